package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// TestSummaryDeclaredLimiters: runs audited without a model show no
// expected or mismatches figures and say how they were judged; wrong
// remaining and retry hints are named in the MISMATCH note; a declared
// promise's bound carries its interval; keys written outside the prefix
// fail the run.
func TestSummaryDeclaredLimiters(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	base.Scenario, base.Identities = "edge", 10
	client, promise, replies := base, base, base
	client.Algorithm = "textbook"
	client.Audit = &result.Audit{Identities: 10, Decisions: 510, Allowed: 400, MaxWindowAdmitted: 41, BoundWindow: 40, Overshoot: 9, Violations: 9, PolicyExcess: 21,
		Basis: result.AuditByBoundClientTime, Timing: &result.AuditTiming{UncertaintyP50Us: 237, UncertaintyMaxUs: 1749, MaxWindowAdmittedPossible: 43}}
	client.Memory = &result.Memory{Identities: 10, Keys: 10, KeysOutsidePrefix: 20, OutsidePrefixExamples: []string{"stray:1", "stray:2"}}
	promise.Algorithm = "promised"
	promise.Audit = &result.Audit{Identities: 10, Decisions: 100, Allowed: 40, MaxWindowAdmitted: 3, BoundWindow: 3, WindowMs: 100, Basis: result.AuditByBound}
	replies.Algorithm = "fn_bucket"
	replies.Audit = &result.Audit{Identities: 10, Decisions: 500, Allowed: 200, ExpectedAllowed: 200, ModelMismatches: 7, MaxWindowAdmitted: 50, BoundWindow: 130,
		Basis: result.AuditByModel, Reply: &result.ReplyCheck{RemainingChecked: 500, RemainingWrong: 4, RetryAfterChecked: 300, RetryAfterTooEarly: 3}}
	r.Runs = []result.Run{client, promise, replies}
	r.Verdict = verdict.Assess(r).Verdict
	out := collapsedSummary(t, r)
	for _, want := range []string{
		"textbook edge 10 400 - - - 41 40 21 9 0 << OVERSHOOT",
		"promised edge 10 40 - - - 3 3/100ms",
		"fn_bucket edge 10 200 200 7 - 50 130 0 0 0 << MISMATCH",
		"! textbook/edge: its replies carry no server time, so it was judged by its bound only, on the client's clock: each decision lies within half its round trip of the midpoint (median 237us, at most 1.75ms); most admissions of one identity certainly in one window: 41, possibly: 43",
		"! promised/edge: judged by its bound only (it declares a bound, not a semantics with a reference model to replay)",
		"! fn_bucket/edge: MISMATCH: 7 of 500 decisions differ from the reference model (Redis admitted 200, the model 200), among them: 4 of 500 replies' remaining disagree with what the model has left; 3 of 300 denials' retry_after_ms are too short: a request retried then would still be denied",
		"! FAIL textbook/edge: the script wrote 20 keys outside the run prefix",
		"(e.g. stray:1, stray:2): a limiter must touch only its KEYS",
		"verdict: fail",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
