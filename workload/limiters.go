package workload

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// bindLimiter builds the limiter of run spec on rdb, under the run's
// policy: a user's limiter the profile declares, bound to the run's
// scenario and cost (drawn from seed), or a built-in by name (through
// byName when set, else algorithms.New).
func bindLimiter(spec plan.Run, seed int64, rdb algorithms.Redis, byName func(string, algorithms.Redis, algorithms.Policy) (algorithms.Limiter, error)) (algorithms.Limiter, error) {
	if decl := spec.Declaration; decl != nil {
		return decl.BindWith(rdb, spec.Policy, algorithms.Binding{Scenario: spec.Scenario, Cost: spec.Cost, Seed: seed})
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

// malformedReplies are the counts of reply parts the limiter could not
// read so far, when it keeps them (a declared limiter).
func malformedReplies(lim algorithms.Limiter) []algorithms.MalformedPart {
	if m, ok := lim.(algorithms.MalformedCounter); ok {
		return m.MalformedReplies()
	}
	return nil
}

// malformedSince is what the counts grew by from before to after: the
// run's own, without the warm-up's.
func malformedSince(before, after []algorithms.MalformedPart) []result.ReplyMalformed {
	var out []result.ReplyMalformed
	for _, a := range after {
		n := a.Count
		for _, b := range before {
			if b.Part == a.Part {
				n -= b.Count
			}
		}
		if n > 0 {
			out = append(out, result.ReplyMalformed{Part: a.Part, Position: a.Position, Count: n, Example: a.Example})
		}
	}
	return out
}
