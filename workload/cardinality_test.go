package workload_test

import (
	"context"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// TestCardinalityShapes runs each distribution open and closed loop and
// checks the requests went where the distribution says: a sequential pass
// gives every identity a key, a Zipf draw touches few identities many
// times, a uniform draw touches most of them once.
func TestCardinalityShapes(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 1000, window: 1h}
algorithms: [fixed_window]
concurrency: 8
scenarios:
  - name: seq
    shape: cardinality
    distribution: sequential
    identities: [300, 700]
    repeats: 100
    rate: max
  - name: zipf-open
    shape: cardinality
    distribution: zipf
    zipf_exponent: 2
    identities: 100000
    rate: 4000/s
    requests: 600
  - name: uniform-closed
    shape: cardinality
    identities: 1000000
    rate: max
    requests: 500
`)
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*result.Run{}
	for i := range runs {
		r := &runs[i]
		checkCounts(t, r)
		if r.Requests.Errors != 0 || r.Memory == nil || r.Memory.KeysWithoutTTL != 0 {
			t.Fatalf("%s: errors %d, memory %+v", r.Scenario, r.Requests.Errors, r.Memory)
		}
		got[r.Scenario] = r
	}
	for name, want := range map[string]int64{"seq-300": 300, "seq-700": 700} {
		r := got[name]
		if r == nil || r.Requests.Sent != want+100 || r.Memory.Identities != want {
			t.Errorf("%s: %+v; want %d identities each with a key after %d requests", name, r, want, want+100)
		}
	}
	// s = 2 puts about 60% of the draws on identity 0: 600 requests touch a
	// few dozen identities.
	if z := got["zipf-open"]; z.Requests.Sent != 600 || z.Rate.TargetPerS != 4000 || z.Memory.Identities > 100 {
		t.Errorf("zipf: sent %d at %v/s over %d identities; want 600 at 4000/s over a few dozen", z.Requests.Sent, z.Rate.TargetPerS, z.Memory.Identities)
	}
	// 500 uniform draws from a million almost never repeat.
	if u := got["uniform-closed"]; u.Requests.Sent != 500 || u.Memory.Identities < 495 {
		t.Errorf("uniform: sent %d over %d identities; want 500 over about 500", u.Requests.Sent, u.Memory.Identities)
	}
	// Every run's keys are gone: the sequential passes' by name (a key for
	// every identity), the draws' by SCAN (a few keys of many identities).
	if n := countKeys(t, rdb, "rlbench:*"); n != 0 {
		t.Errorf("%d keys left after the runs", n)
	}
}
