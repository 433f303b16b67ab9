package workload

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// evictionWatch reads the server's eviction policy, its evicted and
// expired keys and its identity right before a run's traffic and right
// after it. Read once at connect, the policy would miss a change made
// during the run, and evictions would pass for a limiter admitting too
// much.
type evictionWatch struct {
	r      *Runner
	before redisenv.ServerState
	ok     bool
}

// watchEvictions takes the before-reading; it is taken after the probe has
// reset the statistics of a private server. The embedded server has no
// such figures.
func (r *Runner) watchEvictions(ctx context.Context) *evictionWatch {
	w := &evictionWatch{r: r}
	if r.Env.Mode == redisenv.Embedded {
		return w
	}
	ctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout+time.Second)
	defer cancel()
	var err error
	w.before, err = redisenv.ReadServerState(ctx, r.Env.Client)
	w.ok = err == nil
	return w
}

// finish takes the after-reading and records the change in run. It reads
// also after a stopped run (the server may well still be there), on a
// context of its own. When scheduled faults replaced the server, the
// counters are added up on either side of each switch.
func (w *evictionWatch) finish(ctx context.Context, run *result.Run, switches []serverSwitch) {
	if !w.ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.r.Profile.Timeout+time.Second)
	defer cancel()
	after, err := redisenv.ReadServerState(ctx, w.r.Env.Client)
	if err != nil {
		return
	}
	e := &result.Eviction{PolicyBefore: w.before.MaxmemoryPolicy, PolicyAfter: after.MaxmemoryPolicy}
	first, last := readingFromState(w.before), readingFromState(after)
	evicted, ok1 := acrossSwitches(first, last, switches, func(r serverReading) int64 { return r.state.EvictedKeys })
	expired, ok2 := acrossSwitches(first, last, switches, func(r serverReading) int64 { return r.state.ExpiredKeys })
	switch {
	case len(switches) > 0 && ok1 && ok2:
		e.EvictedKeys, e.ExpiredKeys, e.ServerSwitches = evicted, expired, len(switches)
	case after.RunID != w.before.RunID:
		// A new server: its counters started again from zero.
		e.Restarted = true
		e.EvictedKeys, e.ExpiredKeys = after.EvictedKeys, after.ExpiredKeys
	default:
		e.EvictedKeys = after.EvictedKeys - w.before.EvictedKeys
		e.ExpiredKeys = after.ExpiredKeys - w.before.ExpiredKeys
	}
	run.Eviction = e
}
