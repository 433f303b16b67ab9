package workload

import (
	"context"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// BenchmarkRequestPath measures rlbench's whole per-request path (key
// building, the limiter call, timing and recording) against a real
// redis-server, with its allocations.
func BenchmarkRequestPath(b *testing.B) {
	rdb := redistest.Client(b)
	ctx := context.Background()
	lim := algorithms.NewFixedWindow(rdb, algorithms.Policy{Limit: 1_000_000, Window: time.Minute})
	if err := lim.Load(ctx); err != nil {
		b.Fatal(err)
	}
	d := &scheduler{limiter: lim, prefix: "rlbench:bench:fixed_window:b:", clock: RealClock{}, rec: newRecorder(time.Now()), concurrency: 1, callCtx: ctx}
	w := d.newWorker(0)
	b.ReportAllocs()
	for i := uint64(0); b.Loop(); i++ {
		d.call(w, i%1000, time.Now())
	}
	if d.rec.completed() == 0 {
		b.Fatal("nothing recorded")
	}
}

// BenchmarkRecord isolates the recorder, which every request passes through.
func BenchmarkRecord(b *testing.B) {
	start := time.Now()
	rec := newRecorder(start)
	o := &outcome{due: start, sent: start.Add(10 * time.Microsecond), done: start.Add(300 * time.Microsecond),
		decision: algorithms.Decision{Allowed: true}}
	b.ReportAllocs()
	for b.Loop() {
		rec.record(0, o)
	}
}
