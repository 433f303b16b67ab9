package workload_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// TestASecondLoadDoesNotJoinTheFirst: the segments of one load meet in a
// place their group names, whose keys outlive the load by minutes. A
// second load of the same group (the same profile, plan, seed and start,
// as a rerun of the same command line is) has a segment alone: it must
// not find the first load's meeting complete and run at once (and merge
// later with the first load's segments), but be refused, saying why.
func TestASecondLoadDoesNotJoinTheFirst(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 100, window: 1m}
algorithms: [fixed_window]
concurrency: 2
scenarios:
  - name: s
    shape: steady
    rate: 100/s
    identities: 4
    duration: 200ms
`)
	start := time.Now().UTC().Truncate(time.Second)
	segments := func(i int) workload.Segments {
		return workload.Segments{Segment: plan.Segment{Index: i, Count: 2}, StartAt: start, Wait: 3 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := make([]*result.Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range first {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}, Segments: segments(i)}
			first[i], errs[i] = r.Run(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("first load, segment %d: %v", i, err)
		}
	}

	lone := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}, Segments: segments(1)}
	res, err := lone.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "already took segment 1") {
		t.Fatalf("a lone segment of a second load: %v; want it refused, its seat taken", err)
	}
	if res.Complete || len(res.Runs) != 0 {
		t.Errorf("the refused segment ran: complete %v, %d runs", res.Complete, len(res.Runs))
	}
}
