package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/capacity"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// capacityShareTarget is the least share of redis-benchmark -P 16's rate
// that the fixed window's capacity, found with a loose SLO and pipelining
// allowed, should reach: what Redis can decide, less what an open loop
// that keeps due times costs.
const capacityShareTarget = 0.8

// capacityProfile is the search compareCapacity runs: the fixed window,
// open loop from 8,000/s, an SLO loose enough that only a saturated server
// breaks it, rlbench free to pipeline 16 deep over its connections.
const capacityProfile = `name: benchcmp-capacity
policy: {limit: 1000000, window: 1m}
algorithms: [fixed_window]
concurrency: %d
seed: 1
scenarios:
  - name: capacity
    shape: capacity
    slo: {p99: 20ms, errors: 0.1%%, lag: 10ms}
    range: auto
    from: 8000/s
    step: 2s
    precision: 5%%
    max_steps: 20
    allow: {concurrency: %d, pipeline: 16}
    pipelined: 0s
    identities: %d
`

// compareCapacity runs, rounds times on one private server, rlbench's
// capacity search on the fixed window with a loose SLO and pipelining
// allowed, each beside redis-benchmark -P 16 -c clients running the same
// script for about span, and prints each capacity as a share of
// redis-benchmark's rate, and their median (target: at least 0.8).
func compareCapacity(rounds int, span time.Duration, clients, identities int) (float64, error) {
	ctx := context.Background()
	serverPath, benchPath, err := lookTools()
	if err != nil {
		return 0, err
	}
	srv, err := redisenv.StartServer(ctx, serverPath)
	if err != nil {
		return 0, err
	}
	defer srv.Stop()
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: srv.Addr, PoolSize: 4*clients + 4})
	if err != nil {
		return 0, err
	}
	// Started above: every key on it is this command's.
	env.Mode = redisenv.Private
	defer env.Close()
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	lim := algorithms.NewFixedWindow(env.Client, policy)
	if err := lim.Load(ctx); err != nil {
		return 0, err
	}
	prof, err := profile.Parse("benchcmp-capacity.yaml", fmt.Appendf(nil, capacityProfile, clients, 4*clients, identities))
	if err != nil {
		return 0, err
	}
	fmt.Printf("capacity: redis %s on %s; fixed_window, SLO p99 20ms, lag 10ms; rlbench may pipeline 16 deep over up to %d connections; redis-benchmark -P 16 -c %d\n",
		env.Version, srv.Addr, 4*clients, clients)
	var shares []float64
	guess := 150000.0
	for i := range rounds {
		b, err := redisBenchmark(benchPath, srv.Addr, lim.Script().SHA1(), policy, clients, identities, 16, int(guess*span.Seconds()))
		if err != nil {
			return 0, err
		}
		guess = b.rate
		res, err := (&workload.Runner{Plan: prof.Plan(1), Env: env, KeepKeys: false, ShareCPUs: true, Shapes: capacity.Shapes()}).Run(ctx)
		if err != nil {
			return 0, err
		}
		c := res.Runs[0].Capacity
		if c == nil {
			return 0, fmt.Errorf("the capacity run has no capacity section")
		}
		share := c.PerS / b.rate
		shares = append(shares, share)
		fmt.Printf("capacity round %d: rlbench's capacity %8.0f/s (%s%s)  redis-benchmark -P 16 %8.0f/s  share %.2f\n",
			i+1, c.PerS, c.End, boundAt(c), b.rate, share)
	}
	slices.Sort(shares)
	return shares[len(shares)/2], nil
}

// boundAt says where a generator-bound search could keep no more.
func boundAt(c *result.Capacity) string {
	if c.End != result.CapacityGeneratorBound {
		return ""
	}
	return fmt.Sprintf(" at %.0f/s", c.GeneratorBoundAtPerS)
}
