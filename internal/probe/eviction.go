package probe

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// EvictionWatch reads the server's eviction policy, its evicted and
// expired keys and its identity right before a run's traffic and right
// after it. Read once at connect, the policy would miss a change made
// during the run, and evictions would pass for a limiter admitting too
// much.
type EvictionWatch struct {
	t      Target
	before redisenv.ServerState
	ok     bool
}

// WatchEvictions takes the before-reading; it is taken after the probe has
// reset the statistics of a private server. The embedded server has no
// such figures.
func WatchEvictions(ctx context.Context, t Target) *EvictionWatch {
	w := &EvictionWatch{t: t}
	if t.Env.Mode == redisenv.Embedded || !t.allows(redisenv.CmdInfo) {
		return w
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout+time.Second)
	defer cancel()
	var err error
	w.before, err = redisenv.ReadServerState(ctx, t.Env.Client)
	w.ok = err == nil
	return w
}

// Finish takes the after-reading and says what changed; nil when the
// server could not be read. It reads also after a stopped run (the server
// may well still be there), on a context of its own. When scheduled faults
// replaced the server, the counters are added up on either side of each
// switch.
func (w *EvictionWatch) Finish(ctx context.Context, switches []redisenv.Switch) *result.Eviction {
	if !w.ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.t.Timeout+time.Second)
	defer cancel()
	after, err := redisenv.ReadServerState(ctx, w.t.Env.Client)
	if err != nil {
		return nil
	}
	e := &result.Eviction{PolicyBefore: w.before.MaxmemoryPolicy, PolicyAfter: after.MaxmemoryPolicy}
	first, last := redisenv.Reading{State: w.before}, redisenv.Reading{State: after}
	evicted, ok1 := redisenv.AcrossSwitches(first, last, switches, func(r redisenv.Reading) int64 { return r.State.EvictedKeys })
	expired, ok2 := redisenv.AcrossSwitches(first, last, switches, func(r redisenv.Reading) int64 { return r.State.ExpiredKeys })
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
	return e
}
