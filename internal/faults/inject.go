package faults

import (
	"context"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
)

// inject runs the scenario's faults in order, each at its time from the
// start of the traffic. When ctx ends (the run was interrupted) the fault
// in progress is undone at once and the rest are skipped.
func (s *Session) inject(ctx context.Context) {
	for i, f := range s.run.Faults {
		if !s.sleepUntil(ctx, f.At) {
			return
		}
		s.active.Store(true)
		s.runFault(ctx, i, f)
		s.lastEnd.Store(s.clock.Now().UnixNano())
		s.active.Store(false)
	}
}

// sleepUntil waits until at after the start of the traffic; false when
// ctx ended first.
func (s *Session) sleepUntil(ctx context.Context, at time.Duration) bool {
	wait := s.started.Add(at).Sub(s.clock.Now())
	return s.clock.Sleep(ctx, wait) == nil
}

// detached is a context for undoing a fault: it outlives an interrupted
// run, within bounds.
func (s *Session) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), s.timeout+10*time.Second)
}

// runFault injects fault i, waits out its duration, undoes it, and keeps
// what it saw, with readings of the server right before and right after.
func (s *Session) runFault(ctx context.Context, i int, f plan.Fault) {
	o := &s.obs[i]
	rctx, cancel := s.detached(ctx)
	defer cancel()
	o.before = redisenv.ReadServer(rctx, s.primary.rdb, s.command, s.clock.Now())
	var err error
	switch f.Kind {
	case plan.FaultPause:
		err = s.pause(ctx, i, f, o)
	case plan.FaultStall:
		err = s.stall(ctx, f, o)
	case plan.FaultKill, plan.FaultRestart:
		err = s.replace(ctx, i, f, o)
	case plan.FaultFlushScripts:
		err = s.flushScripts(ctx, o)
	case plan.FaultFailover:
		if s.env.Primaries != nil {
			err = s.sentinelFailover(ctx, i, f, o)
		} else {
			err = s.failover(ctx, i, f, o)
		}
	default:
		err = s.network(ctx, i, f, o)
	}
	if err != nil {
		o.err = err.Error()
	}
	if o.removed.IsZero() {
		o.removed = s.clock.Now()
	}
	// The calls a fault held are answered right after it: the reading
	// after it waits for them.
	_ = s.clock.Sleep(ctx, faultSettle)
	o.after = redisenv.ReadServer(rctx, s.primary.rdb, s.command, s.clock.Now())
	if f.Kind.Network() && o.before.Err == nil && o.after.Err == nil && len(o.switches) == 0 {
		o.server = append(o.server, fmt.Sprintf("the server accepted %d connections during it (the proxy sits between rlbench and Redis: the server itself sees no slowness)",
			o.after.Connections-o.before.Connections))
	}
}

// faultSettle is how long after a fault the server is read again.
const faultSettle = 100 * time.Millisecond

// pause is CLIENT PAUSE for the fault's duration, in one transaction with
// TIME so the server says when it began. The server ends the pause
// itself; an interrupted run waits it out (CLIENT UNPAUSE would wait too).
func (s *Session) pause(ctx context.Context, i int, f plan.Fault, o *observation) error {
	var at *redis.TimeCmd
	o.injected = s.clock.Now()
	_, err := s.primary.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		at = p.Time(ctx)
		p.Do(ctx, "CLIENT", "PAUSE", f.For.Milliseconds(), "ALL")
		return nil
	})
	if err != nil {
		return fmt.Errorf("CLIENT PAUSE: %w", err)
	}
	o.serverStartUs = at.Val().UnixMicro()
	// On the local clock, the calls sent from the pause's start on and
	// given up before its end were held and dropped by the server.
	s.rec.pauseHeld(i, s.offset.LocalTime(o.serverStartUs).Add(s.offset.Uncertainty),
		s.offset.LocalTime(o.serverStartUs+f.For.Microseconds()).Add(-s.offset.Uncertainty))
	o.server = append(o.server, fmt.Sprintf("CLIENT PAUSE %d ALL answered OK at server time %s", f.For.Milliseconds(), s.runTime(o.serverStartUs)))
	s.sleepUntil(ctx, f.End())
	o.removed = s.clock.Now()
	return nil
}

// stall freezes the server for the fault's duration: SIGSTOP and SIGCONT
// of a private server (the server cannot see them: its TIME right before
// the SIGSTOP says when it stopped, the probe's first answer after when it
// woke), DEBUG SLEEP on any other, between two TIMEs.
func (s *Session) stall(ctx context.Context, f plan.Fault, o *observation) error {
	n := s.primary
	if n.srv == nil {
		var t1, t2 *redis.TimeCmd
		o.injected = s.clock.Now()
		_, err := n.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			t1 = p.Time(ctx)
			p.Do(ctx, "DEBUG", "SLEEP", strconv.FormatFloat(f.For.Seconds(), 'f', 3, 64))
			t2 = p.Time(ctx)
			return nil
		})
		if err != nil {
			return fmt.Errorf("DEBUG SLEEP: %w", err)
		}
		o.serverStartUs, o.serverEndUs = t1.Val().UnixMicro(), t2.Val().UnixMicro()
		o.server = append(o.server, fmt.Sprintf("DEBUG SLEEP ran from server time %s to %s", s.runTime(o.serverStartUs), s.runTime(o.serverEndUs)))
		return nil
	}
	o.injected = s.clock.Now()
	o.serverStartUs = s.serverNow(ctx, n.rdb)
	if err := n.srv.Freeze(); err != nil {
		return err
	}
	o.down = s.clock.Now()
	s.sleepUntil(ctx, f.End())
	err := n.srv.Thaw()
	o.removed = s.clock.Now()
	o.server = append(o.server, "SIGSTOP, then SIGCONT after "+o.removed.Sub(o.injected).Round(time.Millisecond).String()+
		"; the server's TIME right before the SIGSTOP and the probe's first answer after the SIGCONT give its own times")
	return err
}

// replace kills (SIGKILL, down for the fault's duration) or restarts
// (SHUTDOWN NOSAVE, started again at once) the private primary: every
// limiter's state is lost. Its writes are paused before it goes, so the
// reading right before counts every call the old server made; SHUTDOWN
// stops it at once, where a SIGTERM would let it go on answering until
// its next cron tick.
func (s *Session) replace(ctx context.Context, i int, f plan.Fault, o *observation) error {
	n := s.primary
	o.injected = s.clock.Now()
	how := "SHUTDOWN NOSAVE"
	var err error
	// Writes paused first (the limiter's scripts wait), with the server's
	// TIME: from then on the old server runs none of the run's calls, so
	// the reading taken then counts every call it made, however long the
	// signal or the SHUTDOWN takes to follow on a busy machine. (A
	// pipeline of the pause and the SHUTDOWN would be sent again to a
	// server that is gone.)
	pctx, pcancel := s.detached(ctx)
	if at, err := pauseWrites(pctx, n.rdb); err == nil {
		o.serverStartUs = at
		o.before = redisenv.ReadServer(pctx, n.rdb, s.command, s.clock.Now())
	} else {
		o.serverStartUs = s.serverNow(ctx, n.rdb)
	}
	pcancel()
	if f.Kind == plan.FaultKill {
		how = "SIGKILL"
		err = n.srv.Kill()
	} else {
		sctx, cancel := s.detached(ctx)
		_ = n.rdb.Do(sctx, "SHUTDOWN", "NOSAVE").Err()
		cancel()
		err = n.srv.Terminate()
	}
	o.down = s.clock.Now()
	if err != nil {
		return err
	}
	if f.Kind == plan.FaultKill {
		s.sleepUntil(ctx, f.End())
	}
	sctx, cancel := s.detached(ctx)
	defer cancel()
	if err := n.srv.Start(sctx); err != nil {
		return fmt.Errorf("starting the server again: %w", err)
	}
	o.removed = s.clock.Now()
	// The control client's connection died with the old server, and its
	// failed dials would keep it from dialling at once: start afresh.
	_ = n.rdb.Close()
	n.rdb = s.cloneClient(n.addr, 2, s.controlTimeout)
	s.client.renew(s.newLimiterClient())
	fresh := redisenv.ReadServer(sctx, n.rdb, s.command, s.clock.Now())
	if fresh.Err == nil {
		// A new process: its counters began at zero when it started, and
		// the limiter's clients may have redialled it and had calls
		// answered before this reading (on a busy machine, 25 of 2,348).
		fresh = fresh.Started()
	}
	sw := redisenv.Switch{Old: o.before, New: fresh}
	o.switches = append(o.switches, sw)
	s.mu.Lock()
	s.switches = append(s.switches, sw)
	// The old server answered nothing once it was gone, and the new one
	// nothing before: any instant between tells their decisions apart.
	s.events = append(s.events, event.StateLoss{Fault: i, CutUs: math.MinInt64, ResumeUs: s.offset.ServerMicros(o.down)})
	s.mu.Unlock()
	o.server = append(o.server, fmt.Sprintf("%s; gone after %s; run_id %s before, %s after (a new, empty server)",
		how, o.down.Sub(o.injected).Round(time.Millisecond), short(o.before.State.RunID), short(fresh.State.RunID)))
	return fresh.Err
}

// flushScripts is SCRIPT FLUSH, in one transaction with TIME.
func (s *Session) flushScripts(ctx context.Context, o *observation) error {
	var at *redis.TimeCmd
	o.injected = s.clock.Now()
	_, err := s.primary.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		at = p.Time(ctx)
		p.ScriptFlush(ctx)
		return nil
	})
	if err != nil {
		return fmt.Errorf("SCRIPT FLUSH: %w", err)
	}
	o.serverStartUs = at.Val().UnixMicro()
	o.serverEndUs = o.serverStartUs
	o.removed = s.clock.Now()
	o.server = append(o.server, fmt.Sprintf("SCRIPT FLUSH at server time %s; %d scripts were cached before", s.runTime(o.serverStartUs), o.before.CachedScripts))
	return nil
}

// failover promotes the standby and moves the clients to it. The old
// primary's writes are paused while the standby catches up and is
// promoted, so it has exactly what was written before; then the old
// primary takes writes again for the fault's duration (the clients do not
// know yet), writes the new primary never sees; then it is paused again,
// the proxy moves to the new primary (every connection through it
// fails), and the old primary becomes its replica.
func (s *Session) failover(ctx context.Context, i int, f plan.Fault, o *observation) error {
	old, nu := s.primary, s.standby
	ctx, cancel := s.detached(ctx)
	defer cancel()
	o.injected = s.clock.Now()
	lagged, _ := replOffset(ctx, old.rdb, "master_repl_offset")
	had, _ := replOffset(ctx, nu.rdb, "slave_repl_offset")
	ta, err := pauseWrites(ctx, old.rdb)
	if err != nil {
		return err
	}
	o.serverStartUs = ta
	if err := waitSynced(ctx, old, nu); err != nil {
		_ = old.rdb.Do(ctx, "CLIENT", "UNPAUSE").Err()
		return err
	}
	var tp, tu *redis.TimeCmd
	if _, err := nu.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ReplicaOf(ctx, "NO", "ONE")
		tp = p.Time(ctx)
		return nil
	}); err != nil {
		_ = old.rdb.Do(ctx, "CLIENT", "UNPAUSE").Err()
		return fmt.Errorf("promoting the replica: %w", err)
	}
	promoted := redisenv.ReadServer(ctx, nu.rdb, s.command, s.clock.Now())
	if _, err := old.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		tu = p.Time(ctx)
		p.Do(ctx, "CLIENT", "UNPAUSE")
		return nil
	}); err != nil {
		return fmt.Errorf("letting the old primary take writes: %w", err)
	}
	if f.For > 0 {
		_ = s.clock.Sleep(ctx, f.For)
	}
	tw, err := pauseWrites(ctx, old.rdb)
	if err != nil {
		return err
	}
	last := redisenv.ReadServer(ctx, old.rdb, s.command, s.clock.Now())
	if err := s.proxy.moveTo(nu.addr); err != nil {
		return fmt.Errorf("moving the clients to the new primary: %w", err)
	}
	s.client.renew(s.newLimiterClient())
	o.removed = s.clock.Now()
	host, port, _ := net.SplitHostPort(nu.addr)
	if err := old.rdb.ReplicaOf(ctx, host, port).Err(); err != nil {
		return fmt.Errorf("making the old primary a replica: %w", err)
	}
	_ = old.rdb.Do(ctx, "CLIENT", "UNPAUSE").Err()
	sw := redisenv.Switch{Old: last, New: promoted}
	o.switches = append(o.switches, sw)
	s.mu.Lock()
	s.primary, s.standby = nu, old
	s.switches = append(s.switches, sw)
	s.events = append(s.events, event.StateLoss{Fault: i, CutUs: ta, ResumeUs: tw})
	s.mu.Unlock()
	o.server = append(o.server, fmt.Sprintf("writes paused on the primary at server time %s with the replica %d bytes behind; replica promoted at %s (role master)",
		s.runTime(ta), max(lagged-had, 0), s.runTime(tp.Val().UnixMicro())),
		fmt.Sprintf("the old primary took writes from %s to %s, which the new one never saw; clients moved at %s",
			s.runTime(tu.Val().UnixMicro()), s.runTime(tw), o.removed.Sub(s.started).Round(time.Millisecond)))
	return nil
}

// pauseWrites pauses the writes of the server rdb talks to, and returns
// its TIME at that moment.
func pauseWrites(ctx context.Context, rdb *redis.Client) (int64, error) {
	var at *redis.TimeCmd
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "CLIENT", "PAUSE", maxPause.Milliseconds(), "WRITE")
		at = p.Time(ctx)
		return nil
	}); err != nil {
		return 0, fmt.Errorf("CLIENT PAUSE WRITE: %w", err)
	}
	return at.Val().UnixMicro(), nil
}

// maxPause bounds a failover's pause of writes, should rlbench die before
// it ends it.
const maxPause = time.Minute

// failBack makes the original server the primary again after a failover,
// once it has caught up with the current one, so that the probes, the
// cleanup and the next run find the run's keys where they started.
func (s *Session) failBack(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, syncWait+s.timeout)
	defer cancel()
	cur, orig := s.primary, s.original
	if err := waitSynced(ctx, cur, orig); err != nil {
		s.failBackErr = err
	}
	last := redisenv.ReadServer(ctx, cur.rdb, s.command, s.clock.Now())
	if err := orig.rdb.ReplicaOf(ctx, "NO", "ONE").Err(); err != nil {
		s.failBackErr = fmt.Errorf("making %s the primary again: %w", orig.addr, err)
	}
	first := redisenv.ReadServer(ctx, orig.rdb, s.command, s.clock.Now())
	s.mu.Lock()
	s.switches = append(s.switches, redisenv.Switch{Old: last, New: first})
	s.primary, s.standby = orig, cur
	s.mu.Unlock()
}

// network adds the fault's toxics to the proxy, waits out its duration
// and removes them.
func (s *Session) network(ctx context.Context, i int, f plan.Fault, o *observation) error {
	o.injected = s.clock.Now()
	what, err := s.proxy.add(f)
	if err != nil {
		return err
	}
	if f.Kind == plan.FaultReset || f.Kind == plan.FaultTimeout {
		// From now until the toxics are removed the proxy drops every
		// request: a reset resets the connection it arrived on, a black
		// hole drops it and closes the connection as it goes. A call that
		// failed so never reached the server.
		s.rec.requestsDropped(i, s.clock.Now())
	}
	s.sleepUntil(ctx, f.End())
	s.rec.requestsPass(i, s.clock.Now())
	s.proxy.remove()
	o.removed = s.clock.Now()
	o.server = append(o.server, what)
	return nil
}

// runTime writes a server instant as time from the start of the traffic.
func (s *Session) runTime(serverUs int64) string {
	return "+" + s.offset.LocalTime(serverUs).Sub(s.started).Round(time.Millisecond).String()
}

// short is the start of a run_id, enough to tell two apart.
func short(id string) string { return id[:min(len(id), 8)] }

// serverNow is the server's clock, in microseconds, read right before a
// fault the server cannot report itself (a signal); 0 when it did not
// answer, and the probe's last answer before the fault stands in.
func (s *Session) serverNow(ctx context.Context, rdb *redis.Client) int64 {
	t, err := rdb.Time(ctx).Result()
	if err != nil {
		return 0
	}
	return t.UnixMicro()
}
