package main

import (
	"context"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/workload"
)

// hooks are what a test may change about one invocation of the command.
// They travel in the invocation's context, so invocations side by side
// each keep their own; the zero value changes nothing.
type hooks struct {
	// newLimiter builds each run's limiter; nil means algorithms.New.
	// Tests pass limiters that are broken by construction, to see what
	// the command makes of them.
	newLimiter func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error)
	// runObserver, when set, is told of every run as the progress bar
	// is, given where the live metrics are served: it acts at a known
	// point of each run (after its traffic, before the next).
	runObserver func(metricsURL string) workload.Observer
}

type hooksKey struct{}

// withHooks is ctx carrying h for the invocation run under it.
func withHooks(ctx context.Context, h hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooksOf is the hooks ctx carries, or none.
func hooksOf(ctx context.Context) hooks {
	h, _ := ctx.Value(hooksKey{}).(hooks)
	return h
}
