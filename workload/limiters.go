package workload

import (
	"context"
	"github.com/rlbench/rlbench/plan"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// newLimiter builds the limiter of one run on rdb (the run's Redis when
// nil), under the run's policy: a user's limiter the profile declares,
// bound to this run's scenario, or a built-in by name (through NewLimiter
// when set).
func (r *Runner) newLimiter(spec plan.Run, rdb algorithms.Redis) (algorithms.Limiter, error) {
	if rdb == nil {
		rdb = r.Env.Client
	}
	if decl := spec.Declaration; decl != nil {
		return decl.Bind(rdb, spec.Policy, spec.Scenario)
	}
	newLimiter := r.NewLimiter
	if newLimiter == nil {
		newLimiter = algorithms.New
	}
	return newLimiter(spec.Algorithm, rdb, spec.Policy)
}

// unloader is a limiter that put something on the server that outlives a
// run (a Redis Functions library) and takes it away again.
type unloader interface {
	Unload(ctx context.Context) error
}

// unload removes what the run's limiter left on the server, even after
// Ctrl-C.
func (r *Runner) unload(lim algorithms.Limiter) {
	u, ok := lim.(unloader)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Plan.Timeout+5*time.Second)
	defer cancel()
	_ = u.Unload(ctx)
}
