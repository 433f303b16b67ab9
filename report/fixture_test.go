package report

import (
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestFixture checks that the committed fixture, a real run of
// profiles/smoke.yaml written by tools/fixture, is whole and agrees with
// itself, so the golden files rendered from it show a realistic result:
// every limiter in every scenario, counts that add up, series that sum to
// the counts, histograms that match their digest, and audit, memory and
// server figures.
func TestFixture(t *testing.T) {
	r := resulttest.Fixture(t)
	scenarios := map[string]bool{}
	for i := range r.Runs {
		scenarios[r.Runs[i].Scenario] = true
	}
	if len(r.Runs) != len(r.Profile.Algorithms)*len(scenarios) || len(scenarios) < 5 {
		t.Fatalf("fixture has %d runs of %d algorithms in %d scenarios, want every algorithm in every one of smoke's scenarios",
			len(r.Runs), len(r.Profile.Algorithms), len(scenarios))
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		q := run.Requests
		if q.Sent == 0 || q.Sent != q.Allowed+q.Denied+q.Errors {
			t.Errorf("%s: sent %d != allowed+denied+errors", run.Key(), q.Sent)
		}
		var allowed int64
		for _, s := range run.Series {
			allowed += s.Allowed
		}
		if allowed != q.Allowed {
			t.Errorf("%s: series admits %d, counts %d", run.Key(), allowed, q.Allowed)
		}
		h, _, err := run.Histograms()
		if err != nil || h == nil || h.Count() != q.Sent || h.AtPercentiles([]float64{99})[0] != run.LatencyUs.P99 {
			t.Errorf("%s: histogram does not match the digest (err %v)", run.Key(), err)
		}
		if run.Audit == nil || run.Memory == nil || run.Server == nil || run.Eviction == nil || run.Reference == nil || run.Relative == nil {
			t.Errorf("%s: audit, memory, server, eviction or reference figures missing", run.Key())
		}
	}
}
