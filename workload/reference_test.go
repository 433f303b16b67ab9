package workload_test

import (
	"context"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/workload"
)

// TestReferenceIsMeasuredAlongsideEveryRun: every run on a real Redis
// carries a reference measured while its traffic went on, and its figures
// relative to it; the reference's script keeps out of the limiter's own
// server figures, and a limiter that runs no script has no server cost
// ratio.
func TestReferenceIsMeasuredAlongsideEveryRun(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 50, window: 1s}
algorithms: [token_bucket, naive_counter]
concurrency: 4
scenarios:
  - shape: steady
    rate: 1000/s
    identities: 5
    duration: 600ms
  - name: closed
    shape: steady
    rate: max
    identities: 5
    duration: 300ms
`)
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		r := &runs[i]
		ref, rel := r.Reference, r.Relative
		if ref == nil || rel == nil {
			t.Fatalf("%s: reference %+v, relative %+v", r.Key(), ref, rel)
		}
		// PING and the script in turn, each call in one of the two: how
		// many the ticker got in depends on how busy the machine was, but
		// never fewer than one of each, however short or starved the run.
		if ping, script := ref.PingUs.Count, ref.ScriptUs.Count; script == 0 || ping < script || ping > script+1 ||
			ref.Calls != ping+script || ref.PingUs.P50 <= 0 || ref.ScriptUs.P50 <= 0 {
			t.Errorf("%s: reference %+v: want PING and the script in turn, at least one of each", r.Key(), ref)
		}

		if rel.LatencyP50 <= 0 || rel.LatencyP99 <= 0 {
			t.Errorf("%s: relative latency %+v", r.Key(), rel)
		}
	}
	for i := range runs {
		r := &runs[i]
		closed := r.Scenario == "closed"
		if got := r.Reference.ThroughputPerS > 0 && r.Relative.Throughput > 0; got != closed {
			t.Errorf("%s: reference throughput %v, relative %v: want them for the closed loop only", r.Key(), r.Reference.ThroughputPerS, r.Relative.Throughput)
		}
	}
	tb, naive := &runs[0], &runs[1]
	if tb.Server == nil || tb.Server.Calls != tb.Requests.Sent || tb.Reference.UsecPerCall <= 0 || tb.Reference.LimiterUsecPerCall <= 0 || tb.Relative.ServerCost <= 0 {
		t.Errorf("token_bucket: server %+v, reference %+v, relative %+v: want one EVALSHA per request in the run's figures, and a cost ratio",
			tb.Server, tb.Reference, tb.Relative)
	}
	// Its rounds are all there, and their spread brackets the ratio.
	if rel := tb.Relative; tb.Reference.CostRounds != 10 || rel.ServerCostLow <= 0 || rel.ServerCostLow > rel.ServerCost || rel.ServerCost > rel.ServerCostHigh {
		t.Errorf("token_bucket: %d rounds, ratio %v within [%v, %v]: want 10 rounds whose quartiles bracket the ratio",
			tb.Reference.CostRounds, rel.ServerCost, rel.ServerCostLow, rel.ServerCostHigh)
	}
	if naive.Relative.ServerCost != 0 || naive.Reference.LimiterUsecPerCall != 0 || naive.Reference.CostRounds != 0 || naive.Relative.ServerCostHigh != 0 {
		t.Errorf("naive_counter runs no script, yet has a server cost ratio %v", naive.Relative.ServerCost)
	}
	if n := countKeys(t, rdb, "rlbench:*~cost:*"); n != 0 {
		t.Errorf("%d keys of the server-cost measurement left behind", n)
	}
}
