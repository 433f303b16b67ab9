package audit

import (
	"runtime"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
)

// TestAuditHeapIsWhatItHolds: the audit's heap, as the result records it,
// agrees with what the Go heap grew by while the audit kept its decisions,
// within 10%. Rows cover an audit of every identity (its decisions in the
// shards' logs), a sample (a map from identity to slot besides), and
// denials whose reply does not fit a stored record (kept whole among the
// extras).
func TestAuditHeapIsWhatItHolds(t *testing.T) {
	lim := algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 10, Window: time.Minute})
	for _, tc := range []struct {
		why                  string
		identities, audited  int
		decisionsPerIdentity int
		decision             algorithms.Decision
	}{
		{"every identity audited, one decision each (a cardinality run)", 300_000, 300_000, 1,
			algorithms.Decision{Allowed: true, Remaining: "1", ServerNowMicros: 1}},
		{"a sample of a larger population, several decisions each", 600_000, 150_000, 5,
			algorithms.Decision{Allowed: true, Remaining: "1", ServerNowMicros: 1}},
		{"denials with a fractional remaining and a retry hint: each kept whole", 200_000, 200_000, 2,
			algorithms.Decision{Remaining: "0.1", RetryAfter: 90 * time.Millisecond, ServerNowMicros: 1}},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a := New(Config{Limiter: lim, Identities: tc.identities, Sample: tc.audited, Seed: 1})
		o := &event.Outcome{Decision: tc.decision}
		for k := 0; k < tc.decisionsPerIdentity; k++ {
			for id := 0; id < tc.identities; id++ {
				o.Decision.ServerNowMicros++
				o.Identity = uint64(id)
				a.Record(o)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		grew := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		held := float64(a.heapBytes())
		if held < 0.9*grew || held > 1.1*grew {
			t.Errorf("%s: the audit says it holds %.1f MB; the heap grew by %.1f MB", tc.why, held/1e6, grew/1e6)
		}
		if min := float64(storedRecordBytes) * float64(tc.audited*tc.decisionsPerIdentity); held < min {
			t.Errorf("%s: %.1f MB held, less than %d bytes per decision (%.1f MB)", tc.why, held/1e6, storedRecordBytes, min/1e6)
		}
		runtime.KeepAlive(a)
	}
}
