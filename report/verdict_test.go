package report

import (
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestVerdict: the verdict reads the contract's values. Each row changes
// one thing in a passing result.
func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		why    string
		change func(r *result.Result)
		want   string
	}{
		{"a complete run, every key expires, no threshold", func(*result.Result) {}, result.Pass},
		{"one key never expires: a leak", func(r *result.Result) {
			r.Runs[0].Memory = &result.Memory{Identities: 1000, Keys: 1001, KeysWithoutTTL: 1}
		}, result.Fail},
		{"every key expires", func(r *result.Result) {
			r.Runs[0].Memory = &result.Memory{Identities: 1000, Keys: 1000}
		}, result.Pass},
		{"a declared limiter's script wrote a key outside its prefix", func(r *result.Result) {
			r.Runs[0].Memory = &result.Memory{Identities: 1000, Keys: 1000, KeysOutsidePrefix: 1, OutsidePrefixExamples: []string{"stray:1"}}
		}, result.Fail},
		{"the run did not complete", func(r *result.Result) { r.Complete = false }, result.Fail},
		{"a threshold failed", func(r *result.Result) {
			r.Thresholds = []result.ThresholdResult{{Expression: "*/* audit.overshoot == 0", OK: false}}
		}, result.Fail},
	} {
		r := resulttest.Sample()
		tc.change(r)
		if got := Verdict(r); got != tc.want {
			t.Errorf("%s: verdict %s, want %s", tc.why, got, tc.want)
		}
	}
}
