package workload

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// bindLimiter builds the limiter of run spec on rdb, under the run's
// policy: a user's limiter the profile declares, bound to the run's
// scenario, or a built-in by name (through byName when set, else
// algorithms.New).
func bindLimiter(spec plan.Run, rdb algorithms.Redis, byName func(string, algorithms.Redis, algorithms.Policy) (algorithms.Limiter, error)) (algorithms.Limiter, error) {
	if decl := spec.Declaration; decl != nil {
		return decl.Bind(rdb, spec.Policy, spec.Scenario)
	}
	if byName == nil {
		byName = algorithms.New
	}
	return byName(spec.Algorithm, rdb, spec.Policy)
}

// unloader is a limiter that put something on the server that outlives a
// run (a Redis Functions library) and takes it away again.
type unloader interface {
	Unload(ctx context.Context) error
}

// unload removes what the run's limiter left on the server, even after
// Ctrl-C, within timeout and a few seconds.
func unload(lim algorithms.Limiter, timeout time.Duration) {
	u, ok := lim.(unloader)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancel()
	_ = u.Unload(ctx)
}
