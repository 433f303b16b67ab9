package probe

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/internal/redisenv"
)

// The watch glances at the server through a run's traffic, on a connection
// of its own, and finds whatever took limiter state away or kept the
// server from answering, whoever did it: a FLUSHALL or keys deleted by
// another client, evictions, a restart, a stall (SIGSTOP, DEBUG SLEEP), the
// server closing every connection (CLIENT KILL), a script flush. What it
// finds is placed between the glances around it, on the server's clock
// where the server answered.
const (
	watchInterval = 100 * time.Millisecond
	// watchTimeout bounds one glance: a server that has not answered by
	// then has not answered.
	watchTimeout = 2 * time.Second
	// maxGlances bounds what one run keeps (an hour of glances).
	maxGlances = 36_000
)

// Happening is something the watch saw happen to the server during a run.
type Happening struct {
	// Kind names it: "flushall", "flushdb", "deleted", "evicted",
	// "restart", "stall", "no_answer", "connections_closed",
	// "script_flush".
	Kind string
	// From and To are when, on the local clock: between the glances
	// around it (the glance itself, for a stall).
	From, To time.Time
	// Detail says what the server said.
	Detail string
}

// WatchReport is what a watch saw: what happened, and of that what took
// limiter state away, as resets for the audit.
type WatchReport struct {
	Happenings []Happening
	Resets     []event.Reset
}

// glance is one reading, or its error.
type glance struct {
	sent, recv time.Time
	g          redisenv.Glance
	err        error
}

// Watch is a running watch; a nil Watch (no watch: an embedded server, a
// cluster) reports nothing.
type Watch struct {
	rdb     *redis.Client
	clock   event.Clock
	offset  event.Offset
	deletes bool
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	glances []glance
}

// StartWatch starts watching the single server of t, placing what it sees
// on the server's clock through offset. limiterDeletes says the run's
// limiter deletes keys itself, so that deletions cannot be told from
// another client's. It returns nil where it cannot watch: the embedded
// server (no INFO), a user the server refuses INFO, or a cluster (many
// servers).
func StartWatch(t Target, clock event.Clock, offset event.Offset, limiterDeletes bool) *Watch {
	single, ok := t.Env.Client.(*redis.Client)
	if !ok || t.Env.Mode == redisenv.Embedded || !t.allows(redisenv.CmdInfo) {
		return nil
	}
	rdb := redisenv.CloneClient(single, func(o *redis.Options) {
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1
		o.ReadTimeout, o.WriteTimeout = watchTimeout, watchTimeout
	})
	w := &Watch{rdb: rdb, clock: clock, offset: offset, deletes: limiterDeletes,
		stop: make(chan struct{}), done: make(chan struct{})}
	w.take()
	go w.run()
	return w
}

func (w *Watch) run() {
	defer close(w.done)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.take()
		}
	}
}

// take glances once; a connection that broke is replaced, so the next
// glance dials afresh.
func (w *Watch) take() {
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	gl := glance{sent: w.clock.Now()}
	gl.g, gl.err = redisenv.TakeGlance(ctx, w.rdb)
	gl.recv = w.clock.Now()
	if gl.err != nil {
		o := w.rdb.Options()
		_ = w.rdb.Close()
		w.rdb = redis.NewClient(o)
	}
	w.mu.Lock()
	if n := len(w.glances); n > 0 && w.glances[n-1].g.RunID == gl.g.RunID {
		// One server's id, kept once however many glances name it.
		gl.g.RunID = w.glances[n-1].g.RunID
	}
	if len(w.glances) < maxGlances {
		w.glances = append(w.glances, gl)
	}
	w.mu.Unlock()
}

// Stop ends the watch, takes a last glance and reports what it saw.
func (w *Watch) Stop() WatchReport {
	if w == nil {
		return WatchReport{}
	}
	close(w.stop)
	<-w.done
	w.take()
	_ = w.rdb.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	return readGlances(w.glances, w.offset, w.deletes)
}

// readGlances finds, between consecutive glances, what happened. A glance
// that took far longer than the others met a server that did not answer
// meanwhile (a stall); one that failed met a server gone, or one that
// closed its connection.
func readGlances(gs []glance, offset event.Offset, limiterDeletes bool) WatchReport {
	var rep WatchReport
	normal := normalGlance(gs)
	var last *glance // the last glance the server answered
	for i := range gs {
		g := &gs[i]
		if g.err != nil {
			kind := "no_answer"
			switch redisenv.ErrorKind(g.err) {
			case redisenv.KindTimeout:
			case redisenv.KindEOF, redisenv.KindReset, redisenv.KindRefused:
				kind = "connections_closed"
			default:
				// The server answered, with an error (OOM, NOPERM...): it
				// is there, and it is not the connection's doing.
				continue
			}
			// What broke the connection happened since the glance before.
			from := g.sent
			if i > 0 {
				from = gs[i-1].recv
			}
			rep.add(Happening{Kind: kind, From: from, To: g.recv, Detail: g.err.Error()})
			continue
		}
		// A stall holds the glance before the server runs it: its TIME
		// then lags the send. A glance whose reply only rlbench was slow
		// to read (its own process starved of CPU) is not the server's.
		if rtt, held := g.recv.Sub(g.sent), time.Duration(g.g.ServerUs-offset.ServerMicros(g.sent))*time.Microsecond; rtt > normal && held > normal {
			rep.add(Happening{Kind: "stall", From: g.sent, To: g.recv, Detail: fmt.Sprintf("the server answered after %s, where it answers in %s", rtt.Round(time.Millisecond), normal/stallFactor)})
		}
		if last != nil {
			rep.compare(last, g, offset, limiterDeletes)
		}
		last = g
	}
	return rep
}

// stallFactor is how many times slower than usual a glance must be
// answered to count as a stall (and at least minStall).
const (
	stallFactor = 20
	minStall    = 250 * time.Millisecond
)

// normalGlance is the longest round trip a glance may take and not be a
// stall: stallFactor times the median, and at least minStall.
func normalGlance(gs []glance) time.Duration {
	var rtts []time.Duration
	for _, g := range gs {
		if g.err == nil {
			rtts = append(rtts, g.recv.Sub(g.sent))
		}
	}
	if len(rtts) == 0 {
		return minStall
	}
	slices.Sort(rtts)
	return max(stallFactor*rtts[len(rtts)/2], minStall)
}

// compare finds what happened between two answered glances a and b.
func (rep *WatchReport) compare(a, b *glance, offset event.Offset, limiterDeletes bool) {
	from, to := a.recv, b.sent
	fromUs, toUs := a.g.ServerUs, b.g.ServerUs
	reset := func(kind string, all bool) {
		rep.Resets = append(rep.Resets, event.Reset{Kind: kind, FromUs: fromUs, ToUs: toUs, AllKeys: all})
	}
	if a.g.RunID != b.g.RunID {
		// A new server: its counters started again, and its state is
		// empty.
		if toUs <= fromUs {
			toUs = offset.ServerMicros(b.recv)
		}
		rep.add(Happening{Kind: "restart", From: from, To: to, Detail: fmt.Sprintf("run_id %.8s before, %.8s after: a new, empty server", a.g.RunID, b.g.RunID)})
		reset("restart", true)
		return
	}
	if a.g.Replica || b.g.Replica {
		// A replica runs what its primary sends it: the DELs of keys
		// that expired there, a full copy that replaces its data. A
		// failover made it one; that fault accounts for its state.
		return
	}
	if n := b.g.FlushAll - a.g.FlushAll; n > 0 {
		rep.add(Happening{Kind: "flushall", From: from, To: to, Detail: fmt.Sprintf("%d FLUSHALL", n)})
		reset("flushall", true)
	}
	if n := b.g.FlushDB - a.g.FlushDB; n > 0 {
		rep.add(Happening{Kind: "flushdb", From: from, To: to, Detail: fmt.Sprintf("%d FLUSHDB (of this database or another)", n)})
		reset("flushdb", false)
	}
	if n := b.g.Deletes - a.g.Deletes; n > 0 && !limiterDeletes {
		rep.add(Happening{Kind: "deleted", From: from, To: to, Detail: fmt.Sprintf("%d DEL, UNLINK or GETDEL by another client", n)})
		reset("deleted", false)
	}
	if n := b.g.EvictedKeys - a.g.EvictedKeys; n > 0 {
		rep.add(Happening{Kind: "evicted", From: from, To: to, Detail: fmt.Sprintf("%d %s evicted", n, plural.Noun(n, "key", "keys"))})
		reset("evicted", false)
	}
	if b.g.CachedScripts < a.g.CachedScripts {
		rep.add(Happening{Kind: "script_flush", From: from, To: to, Detail: fmt.Sprintf("cached scripts fell from %d to %d", a.g.CachedScripts, b.g.CachedScripts)})
	}
}

// add records h, merged into the last happening of its kind when they
// meet.
func (rep *WatchReport) add(h Happening) {
	if n := len(rep.Happenings); n > 0 {
		last := &rep.Happenings[n-1]
		if last.Kind == h.Kind && !h.From.After(last.To.Add(watchInterval+watchInterval/2)) {
			last.To = h.To
			return
		}
	}
	rep.Happenings = append(rep.Happenings, h)
}
