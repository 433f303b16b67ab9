package workload

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/audit"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
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
	d := &scheduler{limiter: lim, keys: event.KeyScheme{Head: "rlbench:bench:fixed_window:b:"}, clock: event.RealClock{}, rec: recorder.New(time.Now()), concurrency: 1, callCtx: ctx}
	w := d.newWorker(0)
	b.ReportAllocs()
	for i := uint64(0); b.Loop(); i++ {
		d.call(w, job{identity: i % 1000, due: time.Now()})
	}
	if d.rec.Completed() == 0 {
		b.Fatal("nothing recorded")
	}
}

// BenchmarkPipelinedRequestPath is BenchmarkRequestPath pipelined: every
// operation is one batch of 16 requests through the whole path (commands
// built, one pipeline, each reply stamped, decided, recorded and audited).
// It reports the allocations and the time per request.
func BenchmarkPipelinedRequestPath(b *testing.B) {
	const depth = 16
	rdb := redistest.Client(b)
	ctx := context.Background()
	lim := algorithms.NewFixedWindow(rdb, algorithms.Policy{Limit: 1_000_000, Window: time.Minute})
	if err := lim.Load(ctx); err != nil {
		b.Fatal(err)
	}
	d := &scheduler{limiter: lim, keys: event.KeyScheme{Head: "rlbench:bench:fixed_window:p:"}, clock: event.RealClock{}, rec: recorder.New(time.Now()), concurrency: 1, callCtx: ctx}
	d.sinks = []event.Sink{audit.New(audit.Config{Limiter: lim, Identities: 1000, Sample: 1000, Seed: 1})}
	if note := d.setPipeline(plan.Pipeline{Depth: depth}, rdb); note != "" {
		b.Fatal(note)
	}
	w := d.newPipeWorker(0)
	jobs := make([]job, depth)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	var n uint64
	for b.Loop() {
		for k := range jobs {
			jobs[k] = job{identity: n % 1000, due: time.Now()}
			n++
		}
		d.sendBatch(w, jobs)
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if d.rec.Completed() != int64(n) {
		b.Fatalf("%d of %d requests recorded", d.rec.Completed(), n)
	}
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/request")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/request")
}
