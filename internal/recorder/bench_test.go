package recorder

import (
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
)

// BenchmarkRecord isolates the recorder, which every request passes through.
func BenchmarkRecord(b *testing.B) {
	start := time.Now()
	rec := New(start)
	o := &event.Outcome{Due: start, Sent: start.Add(10 * time.Microsecond), Done: start.Add(300 * time.Microsecond),
		Decision: algorithms.Decision{Allowed: true}}
	b.ReportAllocs()
	for b.Loop() {
		rec.Record(0, o)
	}
}
