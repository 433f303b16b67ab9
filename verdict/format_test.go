package verdict_test

import (
	"testing"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/verdict"
)

// TestFiguresLookAsInTheReport: a figure in a reason reads as the same
// figure in the summary's tables and on the page.
func TestFiguresLookAsInTheReport(t *testing.T) {
	for _, n := range []int64{0, 7, 999, 1000, 70937, 1_000_000, -1234567} {
		if got, want := verdict.FormatCount(n), report.FormatCount(n); got != want {
			t.Errorf("count %d: %q, the report %q", n, got, want)
		}
	}
	for _, ms := range []int64{0, 1, 250, 1000, 1500, 60_000, 90_000, 3_600_000} {
		if got, want := verdict.FormatMillis(ms), report.FormatMillis(ms); got != want {
			t.Errorf("window %dms: %q, the report %q", ms, got, want)
		}
	}
	for _, us := range []int64{0, 87, 999, 1000, 1240, 15_500, 999_999, 2_000_000} {
		if got, want := verdict.FormatMicros(us), report.FormatMicros(us); got != want {
			t.Errorf("latency %dus: %q, the report %q", us, got, want)
		}
	}
	for _, b := range []float64{0, 87.5, 117, 1023, 1536, -2048, 58 << 20, 3 << 40} {
		if got, want := verdict.FormatSize(b), report.FormatSize(b); got != want {
			t.Errorf("size %g: %q, the report %q", b, got, want)
		}
	}
	for _, tc := range []struct {
		field string
		v     float64
	}{
		{"latency_us.p99", 1500},             // microseconds
		{"memory.bytes_per_identity", 1536},  // bytes
		{"relative.latency_us.p99", 2.4149},  // a ratio to the reference
		{"requests.errors", 12},              // a plain count
		{"audit.policy_excess", 0},           // zero
		{"no.such.field", 1.0 / 3},           // a field rlbench does not know
		{"server.usec_per_call", 12.3456789}, // microseconds with a fraction
		{"params.duration_s", 2.5},           // seconds
	} {
		if got, want := verdict.FormatFieldValue(tc.field, tc.v), report.FormatFieldValue(tc.field, tc.v); got != want {
			t.Errorf("%s = %g: %q, the report %q", tc.field, tc.v, got, want)
		}
	}
}
