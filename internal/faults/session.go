package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// Config is what one run's faults and caller need.
type Config struct {
	// Run is the run: its faults, its caller and error policy, its
	// concurrency.
	Run plan.Run
	// Env is the Redis the run uses: a single server (the profile refuses
	// faults and a caller on a cluster), and its process when rlbench
	// started it.
	Env *redisenv.Env
	// Timeout bounds a call of the probes and of the set-up.
	Timeout time.Duration
	Clock   event.Clock
}

// Session is what one run needs for its faults and its caller's policy:
// the client the limiter uses (through the proxy when network faults or a
// failover need one), a private replica for a failover, a control
// connection to the server for injecting faults and reading it, the probe
// that watches the faults from the server's side, and the injector that
// runs the schedule.
type Session struct {
	run     plan.Run
	env     *redisenv.Env
	single  *redis.Client
	clock   event.Clock
	timeout time.Duration
	command string

	// client is the limiter's; proxy sits in front of the server when the
	// scenario needs one.
	client *redial
	// limiterAddr and limiterTimeout make the limiter's clients.
	limiterAddr    string
	limiterTimeout time.Duration
	proxy          *faultProxy
	// primary serves the limiter's calls; standby is a private replica of
	// it, for a failover. A failover swaps them.
	primary, standby *node
	original         *node

	offset event.Offset
	// controlTimeout bounds a call on a control connection: longer than
	// the longest fault, which a DEBUG SLEEP lasts.
	controlTimeout time.Duration
	rec            *recorder
	heart          *heartbeat
	started        time.Time

	mu       sync.Mutex
	obs      []observation
	events   []event.StateLoss
	switches []redisenv.Switch

	// active is set while a fault is being injected, and lastEnd holds when
	// the last one was over (unix nanos): a Redis that answers nothing
	// then is no reason to abort the run.
	active  atomic.Bool
	lastEnd atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
	// failBackErr says why the original server could not be made the
	// primary again after a failover.
	failBackErr error

	// primaries are the switches of a Sentinel-managed primary seen
	// during the traffic (see sentinel.go); switchesBefore counts those
	// seen before it, and stopPrimary stops following it.
	primaries      []primarySwitch
	switchesBefore int
	stopPrimary    func()
	// askedBy is 1 + the index of the scheduled failover fault that has
	// asked Sentinel for a switch not yet seen, 0 when none has.
	askedBy int
}

// node is one server a session talks to directly.
type node struct {
	addr string
	// srv is its process, when rlbench started it.
	srv *redisenv.Server
	// rdb is the control connection: injecting faults and reading the
	// server, never through the proxy.
	rdb *redis.Client
}

// observation is what the injector did and saw for one fault.
type observation struct {
	// injected and removed are when the injector began the fault and when
	// it was over from the injector's side.
	injected, removed time.Time
	// serverStartUs and serverEndUs are the server's own clock at the
	// fault's start and end, when the server could say.
	serverStartUs, serverEndUs int64
	// down is when a killed or stopped server was gone, or a stalled one
	// frozen.
	down   time.Time
	server []string
	err    string
	before redisenv.Reading
	after  redisenv.Reading
	// switches are the server switches the fault made.
	switches []redisenv.Switch
}

// Open prepares the faults and caller of one run; nil when the run
// schedules no fault and has no caller.
func Open(ctx context.Context, c Config) (s *Session, err error) {
	run := c.Run
	if !run.Faults.Any() && run.Client == nil && c.Env.Primaries == nil {
		return nil, nil
	}
	for _, f := range run.Faults {
		if c.Env.Mode == redisenv.Embedded && !f.Kind.Network() {
			return nil, fmt.Errorf("scenario %s: a %s fault needs a real redis-server, and this run has the embedded stand-in (install redis-server)", run.Scenario, f.Kind)
		}
	}
	if c.Env.Primaries != nil {
		// On a primary the Sentinels manage, rlbench asks them for a
		// failover; it controls no server and no connection.
		for _, f := range run.Faults {
			if f.Kind != plan.FaultFailover {
				return nil, fmt.Errorf("scenario %s: a %s fault is injected into one server named by its address, and the Sentinels may move the primary: only a failover (asked of the Sentinels) runs there", run.Scenario, f.Kind)
			}
		}
	}
	single, ok := c.Env.Client.(*redis.Client)
	if !ok {
		return nil, fmt.Errorf("scenario %s: faults and a caller need a single redis-server's client", run.Scenario)
	}
	s = &Session{run: run, env: c.Env, single: single, clock: c.Clock, timeout: c.Timeout, command: "evalsha", done: make(chan struct{})}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	longest := c.Timeout
	for _, f := range run.Faults {
		longest = max(longest, f.For+c.Timeout)
	}
	s.controlTimeout = longest + time.Second
	addr := c.Env.Addr
	if addr == "" {
		addr = single.Options().Addr
	}
	s.primary = &node{addr: addr, srv: c.Env.Server, rdb: s.cloneClient(addr, 2, s.controlTimeout)}
	s.original = s.primary
	if run.Faults.Has(plan.FaultFailover) && c.Env.Primaries == nil {
		if s.standby, err = s.startStandby(ctx, s.primary, longest); err != nil {
			return s, err
		}
	}
	if err := s.checkRights(ctx); err != nil {
		return s, err
	}
	if run.Faults.NeedsProxy() && c.Env.Primaries == nil {
		if s.proxy, err = startProxy(s.primary.addr); err != nil {
			return s, err
		}
		addr = s.proxy.Addr()
	}
	timeout := c.Timeout
	if run.Client != nil {
		timeout = max(timeout, run.Client.Timeout)
	}
	s.limiterAddr, s.limiterTimeout = addr, timeout
	if c.Env.Primaries == nil {
		s.client = newRedial(s.newLimiterClient())
	}
	// else the limiter keeps the run's client, which follows the primary
	// the Sentinels name (faults and a caller's policy are refused there).
	octx, cancel := context.WithTimeout(ctx, c.Timeout+time.Second)
	defer cancel()
	if s.offset, err = event.EstimateOffset(octx, s.primary.rdb, c.Clock, 8); err != nil {
		return s, err
	}
	return s, nil
}

// checkRights makes sure, before the run, that a server rlbench did not
// start lets its user inject the run's server-side faults, with calls
// that change nothing: a pause of 0ms, a sleep of 0s.
func (s *Session) checkRights(ctx context.Context) error {
	if s.primary.srv != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	for _, k := range []plan.FaultKind{plan.FaultPause, plan.FaultStall} {
		if !s.run.Faults.Has(k) {
			continue
		}
		args := []any{"CLIENT", "PAUSE", 0, "WRITE"}
		if k == plan.FaultStall {
			args = []any{"DEBUG", "SLEEP", 0}
		}
		if err := s.primary.rdb.Do(ctx, args...).Err(); err != nil {
			return fmt.Errorf("scenario %s schedules a %s, but redis at %s refused %s: %w (%s)", s.run.Scenario, k, s.env.Addr, args[0], err, k.Info().Target)
		}
	}
	return nil
}

// cloneClient is a client like the run's, to addr, with pool connections
// and calls bounded by timeout.
func (s *Session) cloneClient(addr string, pool int, timeout time.Duration) *redis.Client {
	return redisenv.CloneClient(s.single, func(o *redis.Options) {
		o.Addr = addr
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = pool, 0, pool
		o.ReadTimeout, o.WriteTimeout = timeout, timeout
	})
}

// startStandby starts a private replica of primary and waits until it has
// synchronised.
func (s *Session) startStandby(ctx context.Context, primary *node, timeout time.Duration) (*node, error) {
	srv, err := primary.srv.StartSibling(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting a replica for the failover: %w", err)
	}
	n := &node{addr: srv.Addr, srv: srv, rdb: s.cloneClient(srv.Addr, 2, timeout)}
	// Both are rlbench's own servers: a replica is fed at once, not after
	// the 5s Redis waits for others to join a diskless transfer.
	for _, m := range []*node{primary, n} {
		if err := m.rdb.ConfigSet(ctx, "repl-diskless-sync-delay", "0").Err(); err != nil {
			err = fmt.Errorf("preparing %s for a failover: %w", m.addr, err)
			return nil, errors.Join(err, n.stop())
		}
	}
	host, port, _ := net.SplitHostPort(primary.addr)
	if err := n.rdb.ReplicaOf(ctx, host, port).Err(); err != nil {
		err = fmt.Errorf("making %s a replica of %s: %w", srv.Addr, primary.addr, err)
		return nil, errors.Join(err, n.stop())
	}
	if err := waitSynced(ctx, primary, n); err != nil {
		return nil, errors.Join(err, n.stop())
	}
	return n, nil
}

// waitSynced waits, at most syncWait, until replica's link to primary is
// up and it has everything primary wrote.
func waitSynced(ctx context.Context, primary, replica *node) error {
	deadline := time.Now().Add(syncWait)
	for {
		want, err1 := replOffset(ctx, primary.rdb, "master_repl_offset")
		got, err2 := replOffset(ctx, replica.rdb, "slave_repl_offset")
		link, err3 := replField(ctx, replica.rdb, "master_link_status")
		if err := errors.Join(err1, err2, err3); err == nil && link == "up" && got >= want {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("the replica %s did not catch up with %s within %s (link %s, offset %d of %d; %v)", replica.addr, primary.addr, syncWait, link, got, want, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// syncWait bounds the wait for a replica to catch up.
const syncWait = 10 * time.Second

func replField(ctx context.Context, rdb *redis.Client, name string) (string, error) {
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return "", err
	}
	return redisenv.ParseInfo(info)[name], nil
}

func replOffset(ctx context.Context, rdb *redis.Client, name string) (int64, error) {
	v, err := replField(ctx, rdb, name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// stop closes n's connection and stops its server.
func (n *node) stop() error {
	n.close()
	return n.srv.Stop()
}

func (n *node) close() {
	if n == nil {
		return
	}
	if n.rdb != nil {
		_ = n.rdb.Close()
	}
}

// UnseenRecorder is told of calls that failed in a way that may have let
// them run on the server all the same: the audit then knows that
// identity's state is no longer what the replies say. units is what the
// call asked for, carriedUs the caller's time its request carried
// (algorithms.Decision.ClientNowMicros; 0 when it carried none).
type UnseenRecorder interface {
	RecordUnseen(identity uint64, sentUs, doneUs, units, carriedUs int64)
}

// Begin starts the session with the run's traffic, which starts at start
// and lasts about length: the recorder, the probe and the injector. It
// returns the limiter lim as the run's caller uses it, which tells unseen
// of the calls that may have run unseen. keys names the run's keys.
func (s *Session) Begin(ctx context.Context, start time.Time, lim algorithms.Limiter, keys event.KeyScheme, length time.Duration, unseen UnseenRecorder) algorithms.Limiter {
	if s == nil {
		return lim
	}
	s.command = algorithms.CommandOf(lim)
	s.started = start
	s.rec = newRecorder(start, length, s.run.Faults, unseen, s.offset)
	s.rec.quiet = s.QuietSince
	s.watchPrimary()
	if !s.Caller() {
		// Only following a Sentinel-managed primary: the limiter is
		// called as it is (pipelined too), and the run's outcomes say
		// what failed.
		close(s.done)
		return lim
	}
	caller := newCaller(lim, s.run.Client, s.run.OnError, s.clock, keys, s.rec)
	if !s.run.Faults.Any() {
		close(s.done)
		return caller
	}
	s.obs = make([]observation, len(s.run.Faults))
	s.heart = startHeartbeat(func() *redis.Client { return s.cloneClient(s.limiterAddr, 1, s.controlTimeout) }, s.clock)
	ictx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() {
		defer close(s.done)
		s.inject(ictx)
	}()
	return caller
}

// Caller says whether the session calls the limiter as a caller does
// (faults, or a client section): it then tells the audit itself of the
// failed calls that may have run. A session that only follows a
// Sentinel-managed primary does not.
func (s *Session) Caller() bool {
	return s != nil && (s.run.Faults.Any() || s.run.Client != nil)
}

// Sink is what takes the run's outcomes, by the time they were decided
// and who decided them; nil for a nil Session.
func (s *Session) Sink() event.Sink {
	if s == nil || s.rec == nil {
		return nil
	}
	return s.rec
}

// QuietSince is, for the run's abort watch, when the stretch of calls
// without an answer that no fault explains began: now while a fault is
// being injected, else when the last one was over.
func (s *Session) QuietSince() int64 {
	if s == nil {
		return 0
	}
	if s.active.Load() {
		return s.clock.Now().UnixNano()
	}
	return s.lastEnd.Load()
}

// End waits for the injector (stopping it when the traffic was
// interrupted: every fault is then undone at once), stops the probe, fails
// back to the original server after a failover, and clears the dead
// connections a replaced server left in the run's client.
func (s *Session) End(ctx context.Context, interrupted bool) {
	if s == nil {
		return
	}
	if interrupted && s.cancel != nil {
		s.cancel()
	}
	select {
	case <-s.done:
	case <-time.After(endWait):
		if s.cancel != nil {
			s.cancel()
		}
		<-s.done
	}
	if s.heart != nil {
		s.heart.halt()
	}
	s.endPrimary()
	if s.primary != s.original {
		s.failBack(context.WithoutCancel(ctx))
	}
	if len(s.switches) > 0 {
		purgePool(context.WithoutCancel(ctx), s.single, s.timeout)
	}
}

// endWait bounds how long after the traffic the injector may take to
// finish its last fault.
const endWait = 30 * time.Second

// Close releases what the session holds: its clients, the proxy and the
// replica.
func (s *Session) Close() {
	if s == nil {
		return
	}
	if s.cancel != nil {
		s.cancel()
	}
	if s.stopPrimary != nil {
		s.stopPrimary()
	}
	if s.client != nil {
		s.client.close()
	}
	if s.proxy != nil {
		s.proxy.Close()
	}
	for _, n := range []*node{s.primary, s.standby} {
		if n == nil {
			continue
		}
		if n != s.original && n.srv != nil {
			_ = n.stop()
		} else {
			n.close()
		}
	}
}

// purgePool makes one call on every connection of rdb's pool at once, so
// that those a replaced server left dead fail now and are dropped, rather
// than failing the probes' first calls.
func purgePool(ctx context.Context, rdb *redis.Client, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	n := int(rdb.PoolStats().TotalConns) + 1
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); _ = rdb.Ping(ctx).Err() }()
	}
	wg.Wait()
}

// watchedSpan is, for the report, the later of a fault's scheduled and
// observed end.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// Report is what the session measured of a run.
type Report struct {
	// Faults is the run's faults section (the audit adds its own figures
	// to it).
	Faults *result.Faults
	// AllowedOnError and DeniedOnError count the requests the error
	// policy decided; FaultErrors the calls without a decision inside the
	// faults' windows.
	AllowedOnError, DeniedOnError, FaultErrors int64
}

// Finish reports what the session measured of a run whose traffic lasted
// elapsed: the counts by who decided, the faults' timeline and their
// figures. A nil Session reports nothing.
func (s *Session) Finish(elapsed time.Duration) Report {
	if s == nil || !s.Caller() && len(s.primaries) == 0 {
		// Only following a primary that did not switch: nothing to say.
		return Report{}
	}
	aoe, doe, attempts, retries := s.rec.totals()
	f := &result.Faults{
		Windows: []result.FaultWindow{}, AllowedOnError: aoe, DeniedOnError: doe,
		Attempts: attempts, Retries: retries, MaxAttempts: s.rec.maxAttempts.Load(), CallsMaybeRun: s.rec.unseenCalls.Load(),
		Timeline: s.rec.timeline(elapsed),
	}
	var beats []beat
	if s.heart != nil {
		beats = s.heart.samples()
	}
	end := s.started.Add(elapsed)
	for i, flt := range s.run.Faults {
		limit := end
		if i+1 < len(s.run.Faults) {
			limit = s.started.Add(s.run.Faults[i+1].At)
		}
		w, ok := s.sentinelWindow(i, flt, limit)
		if !ok {
			w = s.window(i, flt, beats, limit)
		}
		f.Windows = append(f.Windows, w)
		f.Errors += w.Window.Errors + w.Recovery.Errors
		f.Late += w.Window.Late + w.Recovery.Late
		f.MaxRecoveryMs = max(f.MaxRecoveryMs, w.RecoveryMs)
	}
	for _, w := range s.primaryWindows(end) {
		f.Windows = append(f.Windows, w)
		f.Errors += w.Window.Errors + w.Recovery.Errors
		f.Late += w.Window.Late + w.Recovery.Late
		f.MaxRecoveryMs = max(f.MaxRecoveryMs, w.RecoveryMs)
	}
	if len(s.switches) > 0 {
		f.Notes = append(f.Notes, redisenv.SwitchNote(len(s.switches)))
	}
	if s.failBackErr != nil {
		f.Notes = append(f.Notes, "after the failover the original server could not be made the primary again: "+s.failBackErr.Error())
	}
	return Report{Faults: f, AllowedOnError: aoe, DeniedOnError: doe, FaultErrors: f.Errors}
}

// window builds fault i's entry: when it was scheduled, when it was seen
// (from the server's own clock where the server said, else from the
// probe), what the server reported, and the figures of its window and of
// the recovery up to limit.
func (s *Session) window(i int, flt plan.Fault, beats []beat, limit time.Time) result.FaultWindow {
	o := s.obs[i]
	ms := func(t time.Time) int64 { return t.Sub(s.started).Milliseconds() }
	w := result.FaultWindow{
		Kind: string(flt.Kind), ScheduledStartMs: flt.At.Milliseconds(), ScheduledEndMs: flt.End().Milliseconds(),
		AddMs: float64(flt.Add.Microseconds()) / 1000, JitterMs: float64(flt.Jitter.Microseconds()) / 1000, RateKBps: flt.RateKBps,
		Error: o.err,
	}
	start, end := s.observed(flt, o, beats)
	w.ObservedStartMs, w.ObservedEndMs, w.InjectedMs = ms(start), ms(end), ms(o.injected)
	w.Server = strings.Join(o.server, "; ")
	winStart := s.started.Add(flt.At)
	winEnd := latest(s.started.Add(flt.End()), end)
	if winEnd.After(limit) {
		winEnd = limit
	}
	w.Window = s.rec.span(winStart, winEnd)
	recEnd, ok := s.rec.recovered(winEnd, limit)
	w.Recovered = ok
	w.RecoveryMs = max(recEnd.Sub(winEnd).Milliseconds(), 0)
	w.Recovery = s.rec.span(winEnd, recEnd)
	w.ErrorLatencyUs = s.rec.errorLatency(i)
	if !o.before.At.IsZero() && !o.after.At.IsZero() {
		calls := s.rec.span(o.before.At, o.after.At)
		w.ClientCalls = calls.Attempts
		if n, ok := redisenv.AcrossSwitches(o.before, o.after, o.switches, func(r redisenv.Reading) int64 { return r.Stat.PerDecision().Calls }); ok {
			w.ServerCalls = n
		} else {
			w.ServerCallsUnavailable = "INFO commandstats could not be read around the fault: " + errors.Join(o.before.Err, o.after.Err, errors.New("a server nobody scheduled took over")).Error()
		}
		if calls.Decisions > 0 {
			w.ServerCallsPerDecision = float64(w.ServerCalls) / float64(calls.Decisions)
			w.ClientCallsPerDecision = float64(w.ClientCalls) / float64(calls.Decisions)
		}
	}
	return w
}

// observed is when fault flt was seen to start and end: the server's own
// clock where it said (the TIME read with the command that paused, slept
// or flushed; the first answer of a server that came back, woke up, or
// took over), the probe's samples for the network faults, and the
// injector's own times where nothing better was seen.
func (s *Session) observed(flt plan.Fault, o observation, beats []beat) (start, end time.Time) {
	start, end = o.injected, o.removed
	if o.serverStartUs > 0 {
		start = s.offset.LocalTime(o.serverStartUs)
	}
	if o.serverEndUs > 0 {
		end = s.offset.LocalTime(o.serverEndUs)
	}
	switch flt.Kind {
	case plan.FaultPause:
		// A probe sent once the pause has surely begun is held until it
		// ends, and answered with the server's time then.
		if b, ok := firstAnsweredAfter(beats, start.Add(time.Millisecond)); ok {
			end = s.offset.LocalTime(b.serverUs)
		}
	case plan.FaultStall, plan.FaultKill, plan.FaultRestart:
		// The server's TIME right before the signal or with the SHUTDOWN
		// is its start; without it, the probe's last answer before. A
		// probe sent once the server was frozen or gone is answered by the
		// server back.
		if b, ok := lastAnsweredBefore(beats, o.injected); ok && o.serverStartUs == 0 {
			start = s.offset.LocalTime(b.serverUs)
		}
		from := o.injected
		if !o.down.IsZero() {
			from = o.down
		}
		if b, ok := firstAnsweredAfter(beats, from); ok && o.serverEndUs == 0 {
			end = s.offset.LocalTime(b.serverUs)
		}
	case plan.FaultFailover:
		if b, ok := firstAnsweredAfter(beats, o.removed); ok {
			end = s.offset.LocalTime(b.serverUs)
		}
	default:
		if flt.Kind.Network() {
			normal := normalRTT(beats, s.started.Add(s.run.Faults[0].At))
			if a, b, ok := affected(beats, o.injected, o.removed, normal); ok {
				start, end = a, b
			}
		}
	}
	if end.Before(start) {
		end = start
	}
	return start, end
}

// faultsGrace is how much longer than its duration a run's fault bins
// reach: calls in flight at the end, and a schedule that ran late.
const faultsGrace = 10 * time.Second

// Redis is the client the run's limiter uses: the session's, or nil for
// a nil Session (the run's own client then).
func (s *Session) Redis() algorithms.Redis {
	if s == nil || s.client == nil {
		return nil
	}
	return s.client
}

// Offset is the estimate of the server's clock the session places faults
// and the error policy's decisions on.
func (s *Session) Offset() event.Offset {
	if s == nil {
		return event.Offset{}
	}
	return s.offset
}

// newLimiterClient is a fresh client for the limiter's calls.
func (s *Session) newLimiterClient() *redis.Client {
	return s.cloneClient(s.limiterAddr, s.run.Concurrency+2, s.limiterTimeout)
}

// Warm opens the limiter's connections before the run is timed.
func (s *Session) Warm(ctx context.Context, n int) {
	if s != nil && s.client != nil {
		redisenv.WarmPool(ctx, s.client.client(), n)
	}
}

// StateLosses are the losses of state the faults caused.
func (s *Session) StateLosses() []event.StateLoss {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Switches are the times the faults replaced the server.
func (s *Session) Switches() []redisenv.Switch {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.switches)
}
