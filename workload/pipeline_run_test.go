package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/workload"
)

// TestPipelinedRunsThroughEveryShape runs the built-in limiters, a
// declared one and the naive counter with pipeline: 8 through an open
// loop, a closed loop and the boundary shape on a real redis-server. Every
// request is accounted for, the audits of the correct limiters replay
// every decision without a mismatch, the result says which pipeline was
// asked for and which was in effect (1 for the naive counter, whose
// decision takes two round trips), and the audit's heap holds at least its
// 24 bytes per decision.
func TestPipelinedRunsThroughEveryShape(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	p := declaredProfile(t, `
policy: {limit: 20, window: 1m}
algorithms:
  - fixed_window
  - sliding_log
  - token_bucket
  - leaky_bucket
  - naive_counter
  - name: textbook
    script: window.lua
    keys: ["count:{${identity}}", "seen:{${identity}}"]
    args: ["${limit}", "${window_s}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
expect_broken: [naive_counter]
concurrency: 4
pipeline: 8
scenarios:
  - name: open
    shape: steady
    rate: 2000/s
    identities: 10
    duration: 500ms
  - name: closed
    shape: steady
    rate: max
    identities: 10
    requests: 400
  - name: edge
    shape: boundary
    identities: 3
    burst: 20
    offset: 20ms
    stagger: 100ms
    policy: {window: 1s}
`, map[string]string{"window.lua": twoKeyWindow})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 18 {
		t.Fatalf("%d runs, want 3 scenarios x 6 limiters", len(res.Runs))
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		checkCounts(t, r)
		key := r.Key()
		if r.Requests.Errors != 0 {
			t.Errorf("%s: %d errors: %v", key, r.Requests.Errors, r.Errors)
		}
		switch r.Scenario {
		case "open":
			if q := r.Requests; q.Sent+q.Unsent != 1000 {
				t.Errorf("%s: sent %d + unsent %d, want 2000/s x 500ms", key, q.Sent, q.Unsent)
			}
		case "closed":
			if r.Requests.Sent != 400 {
				t.Errorf("%s: sent %d, want 400", key, r.Requests.Sent)
			}
		}
		if r.Params.Pipeline != "8" {
			t.Errorf("%s: params.pipeline %q, want 8", key, r.Params.Pipeline)
		}
		pl := r.Pipeline
		if pl == nil {
			t.Fatalf("%s: no pipeline figures", key)
		}
		naive := r.Algorithm == algorithms.NaiveCounterName
		switch {
		case naive && (pl.Depth != 1 || !strings.Contains(pl.Note, "cannot be pipelined") || pl.Batches != r.Requests.Sent):
			t.Errorf("%s: pipeline %+v, want every request alone, and why", key, pl)
		case !naive && pl.Depth != 8:
			t.Errorf("%s: depth in effect %d, want 8", key, pl.Depth)
		case !naive && r.Scenario == "closed" && pl.LargestBatch != 8:
			t.Errorf("%s: largest batch %d, want full batches of 8 in a closed loop", key, pl.LargestBatch)
		}
		if pl.Batches <= 0 || pl.MeanBatch*float64(pl.Batches) < float64(r.Requests.Sent)-0.5 {
			t.Errorf("%s: %d batches of %.2f do not carry the %d requests sent", key, pl.Batches, pl.MeanBatch, r.Requests.Sent)
		}
		a := r.Audit
		if a == nil {
			t.Fatalf("%s: no audit", key)
		}
		if a.Coverage != 1 || a.Decisions != r.Requests.Decisions() {
			t.Errorf("%s: audit covered %v (%d of %d decisions), want all", key, a.Coverage, a.Decisions, r.Requests.Decisions())
		}
		if !naive && (a.ModelMismatches != 0 || a.Overshoot != 0) {
			t.Errorf("%s: %d mismatches, overshoot %d, want none", key, a.ModelMismatches, a.Overshoot)
		}
		if r.Memory == nil || r.Memory.AuditHeapBytes < uint64(24*a.Decisions) {
			t.Errorf("%s: audit heap %+v, want at least 24 bytes for each of %d decisions", key, r.Memory, a.Decisions)
		}
	}
}
