package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func auditedResult() *result.Result {
	r := resulttest.Sample()
	r.Profile.Seed = 9
	base := r.Runs[0]
	base.Scenario, base.Shape, base.Identities = "edge", "boundary", 50
	base.Params.Boundary = &result.BoundaryParams{Burst: 100, OffsetMs: 10}
	fixed, log, naive, sampled := base, base, base, base
	fixed.Audit = &result.Audit{Identities: 50, Decisions: 10050, Allowed: 9950, ExpectedAllowed: 9950, MaxWindowAdmitted: 199, BoundWindow: 200, PolicyExcess: 99}
	fixed.ClockOffset = &result.ClockOffset{OffsetUs: -3, UncertaintyUs: 40, RTTUs: 78, Samples: 16}
	log.Algorithm = "sliding_log"
	log.Audit = &result.Audit{Identities: 50, Decisions: 10050, Allowed: 5000, ExpectedAllowed: 5000, MaxWindowAdmitted: 100, BoundWindow: 100}
	naive.Algorithm = "naive_counter"
	naive.Audit = &result.Audit{Identities: 50, Decisions: 10050, Allowed: 7000, ExpectedAllowed: 5000, ModelMismatches: 2000, MaxWindowAdmitted: 260, BoundWindow: 200, Overshoot: 900, Violations: 40, PolicyExcess: 160}
	naive.ClockOffset = &result.ClockOffset{UncertaintyUs: 12_000, Samples: 16}
	sampled.Algorithm, sampled.Identities = "token_bucket", 100_000
	sampled.Audit = &result.Audit{Identities: 10_000, Sampled: true, Decisions: 20_000, Allowed: 15_000, ExpectedAllowed: 15_000, MaxWindowAdmitted: 90, BoundWindow: 200}
	r.Runs = []result.Run{fixed, log, naive, sampled}
	return r
}

// collapsedSummary is r's summary with runs of spaces collapsed: column
// widths depend on every row.
func collapsedSummary(t *testing.T, r *result.Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(buf.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

// TestSummaryAudit: the audit table shows admitted against expected and
// the busiest window against the bound, marks a broken limiter, and the
// notes explain overshoot, mismatches, policy excess, sampling and a clock
// too uncertain for the offset.
func TestSummaryAudit(t *testing.T) {
	out := collapsedSummary(t, auditedResult())
	for _, want := range []string{
		"audit: admissions of one identity within any 1s, against the algorithm's bound and the policy's 100",
		"algorithm scenario identities admitted expected mismatches offered max-in-window bound over-policy overshoot under-admitted check",
		"fixed_window edge 50 9950 9950 0 - 199 200 99 0 0 ok",
		"naive_counter edge 50 7000 5000 2000 - 260 200 160 900 0 << OVERSHOOT MISMATCH",
		"token_bucket edge 10000/100000 15000 15000 0 - 90 200 0 0 0 ok",
		"! naive_counter/edge: OVERSHOOT: 40 identities got more than the algorithm's own bound of 200 within one 1s (up to 260; 900 admissions beyond the bound in all)",
		"! naive_counter/edge: MISMATCH: 2000 of 10050 decisions differ from the reference model (Redis admitted 7000, the model 5000); some calls failed",
		"! the audit covers a sample of at most 10000 identities per run (drawn with seed 9) in token_bucket/edge;",
		"! naive_counter/edge: the local clock is aligned with Redis TIME only to within 12.0ms, not within the bursts' offset of 10ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "admitted up to") || strings.Contains(out, "fixed_window/edge: the local clock") {
		t.Errorf("a note for a run that needs none (policy excess within the bound is the table's to show):\n%s", out)
	}
}

func TestAuditRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.json")
	want := auditedResult()
	if err := result.WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Runs {
		w, g := want.Runs[i], got.Runs[i]
		if *g.Audit != *w.Audit || (w.ClockOffset != nil && *g.ClockOffset != *w.ClockOffset) || *g.Params.Boundary != *w.Params.Boundary {
			t.Errorf("run %d changed in the round trip: %+v", i, g)
		}
	}
}

// TestSummaryExactComparison: an approximate window's decisions that the
// exact sliding log would have made otherwise get a table of their own;
// a result without such a comparison has none.
func TestSummaryExactComparison(t *testing.T) {
	r := auditedResult()
	counter := r.Runs[1]
	counter.Algorithm = "sliding_counter"
	counter.Audit = &result.Audit{Identities: 50, Decisions: 40_000, Allowed: 5010, ExpectedAllowed: 5010, MaxWindowAdmitted: 103, BoundWindow: 200, PolicyExcess: 3,
		VsExact: &result.ExactComparison{Algorithm: "sliding_log", Decisions: 40_000, Differ: 12, AdmittedBeyond: 11, DeniedWithin: 1}}
	r.Runs = append(r.Runs, counter)
	out := collapsedSummary(t, r)
	for _, want := range []string{
		"approximations: decisions the exact sliding_log would have made otherwise on the same arrivals",
		"algorithm scenario decisions differ share admitted-beyond denied-within",
		"sliding_counter edge 40000 12 0.030% 11 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if out := collapsedSummary(t, auditedResult()); strings.Contains(out, "approximations:") {
		t.Errorf("a comparison table without a compared run:\n%s", out)
	}
}
