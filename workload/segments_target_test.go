package workload_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// TestSegmentsOfferTheirShare: each segment of a load records the rate it
// offered, its share of the load's (the requests of the schedule it owns,
// over the schedule's length), so the segments' targets add up to the
// load's, as their achieved rates do, and a threshold comparing the two
// holds on each segment and on the merge.
func TestSegmentsOfferTheirShare(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 1000, window: 1m}
algorithms: [fixed_window]
concurrency: 4
scenarios:
  - name: open
    shape: steady
    rate: 400/s
    arrival: poisson
    identities: 7
    duration: 500ms
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	parts := make([]*result.Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb},
				Segments: workload.Segments{Segment: plan.Segment{Index: i, Count: 2}}}
			parts[i], errs[i] = r.Run(ctx)
		}()
	}
	wg.Wait()
	// Every segment draws the whole schedule, and owns a part of it: the
	// parts add up to the schedule.
	owned := make([]float64, 2)
	for i, r := range parts {
		if errs[i] != nil {
			t.Fatalf("segment %d: %v", i, errs[i])
		}
		q := r.Runs[0].Requests
		owned[i] = float64(q.Sent + q.Unsent)
	}
	sum := 0.0
	for i, r := range parts {
		got, want := r.Runs[0].Rate.TargetPerS, 400*owned[i]/(owned[0]+owned[1])
		if math.Abs(got-want) > 1e-9 || got <= 0 || got >= 400 {
			t.Errorf("segment %d: target %v/s, want %v/s: its %v of the schedule's %v requests", i, got, want, owned[i], owned[0]+owned[1])
		}
		sum += got
	}
	if math.Abs(sum-400) > 1e-9 {
		t.Errorf("the segments' targets add up to %v/s, want the load's 400/s", sum)
	}
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got := merged.Runs[0].Rate.TargetPerS; math.Abs(got-400) > 1e-9 {
		t.Errorf("merged target %v/s, want 400/s", got)
	}
}
