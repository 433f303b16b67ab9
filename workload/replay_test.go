package workload_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// replayProfile writes a trace of 120 requests 8ms apart from three
// callers (alice 60, bob and carol 30 each, alice first) and a profile
// that replays it at 2x, and reads the profile.
func replayProfile(t *testing.T, limiters string) *profile.Profile {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("time,identity\n")
	for i := 0; i < 120; i++ {
		who := []string{"alice", "bob", "alice", "carol"}[i%4]
		fmt.Fprintf(&b, "2025-01-01T00:00:00.%03dZ,%s\n", i*8, who)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`
policy: {limit: 5, window: 1m}
algorithms: [%s]
concurrency: 4
scenarios:
  - name: replay
    shape: replay
    trace: t.csv
    speed: 2x
`, limiters)
	p, err := profile.Parse(filepath.Join(dir, "p.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A replay sends every request of the trace, from the trace's callers,
// through each limiter; the audit judges them as any run's.
func TestReplaySendsTheTrace(t *testing.T) {
	rdb := redistest.Client(t)
	p := replayProfile(t, "fixed_window, sliding_log")
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		checkCounts(t, &r)
		q := r.Requests
		// Each caller is admitted its limit of 5 within the minute.
		if q.Planned != 120 || q.Sent != 120 || q.Allowed != 15 || r.Identities != 3 {
			t.Errorf("%s: planned %d, sent %d, allowed %d, %d identities; want 120, 120, 15, 3", r.Algorithm, q.Planned, q.Sent, q.Allowed, r.Identities)
		}
		if a := r.Audit; a == nil || a.Identities != 3 || a.ModelMismatches != 0 || a.Overshoot != 0 {
			t.Errorf("%s: audit %+v", r.Algorithm, a)
		}
		rp := r.Params.Replay
		if rp == nil || rp.Speed != 2 || rp.Requests != 120 || rp.HeaviestShare != 0.5 || rp.Format != "csv" || r.Params.Arrival != "" {
			t.Errorf("%s: replay params %+v, arrival %q", r.Algorithm, rp, r.Params.Arrival)
		}
		// A pass lasts to the last request (0.952s) and the mean gap
		// (8ms) after it: 0.48s at 2x.
		if r.Params.DurationS != 0.48 {
			t.Errorf("%s: duration %vs, want 0.48s", r.Algorithm, r.Params.DurationS)
		}
	}
}

// Each segment replays its own identities' requests of the trace, and
// plans exactly those: alice and carol (0 and 2) in one, bob in the other.
func TestReplaySegments(t *testing.T) {
	rdb := redistest.Client(t)
	p := replayProfile(t, "sliding_log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
	for i, want := range []struct{ sent, allowed int64 }{{90, 10}, {30, 5}} {
		if errs[i] != nil {
			t.Fatalf("segment %d: %v", i, errs[i])
		}
		q := parts[i].Runs[0].Requests
		if q.Planned != want.sent || q.Sent != want.sent || q.Allowed != want.allowed {
			t.Errorf("segment %d: planned %d, sent %d, allowed %d; want %d, %d, %d", i, q.Planned, q.Sent, q.Allowed, want.sent, want.sent, want.allowed)
		}
	}
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	if q := merged.Runs[0].Requests; q.Sent != 120 || q.Allowed != 15 {
		t.Errorf("merged: sent %d, allowed %d; want 120 and 15", q.Sent, q.Allowed)
	}
}
