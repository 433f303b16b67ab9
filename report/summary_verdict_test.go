package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestSummaryRendersTheVerdictsFindings: the audit table's check column,
// the LEAK mark and the FAIL notes show what the verdict found in each
// run, no more: a run whose state the server reset is not blamed for its
// overshoot, and a negative control's findings are marked as expected.
func TestSummaryRendersTheVerdictsFindings(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	base.Requests = result.Requests{Sent: 100, Allowed: 60, Denied: 40}
	base.Errors = nil
	audited := func(alg, scenario string, a result.Audit, e result.Eviction, m result.Memory) result.Run {
		run := base
		run.Algorithm, run.Scenario = alg, scenario
		run.Audit, run.Eviction, run.Memory = &a, &e, &m
		return run
	}
	ok := result.Audit{Identities: 1, Decisions: 100, Allowed: 60, ExpectedAllowed: 60, BoundWindow: 20, MaxWindowAdmitted: 20}
	over := ok
	over.Overshoot, over.Violations = 5, 1
	r.Runs = []result.Run{
		audited("fixed_window", "evicted", over, result.Eviction{PolicyBefore: "allkeys-lru", PolicyAfter: "allkeys-lru", EvictedKeys: 7}, result.Memory{Identities: 1, Keys: 1}),
		audited("fixed_window", "restarted", over, result.Eviction{Restarted: true}, result.Memory{Identities: 1, Keys: 1}),
		audited("naive", "steady", over, result.Eviction{}, result.Memory{Identities: 1, Keys: 1}),
		audited("sliding_log", "steady", ok, result.Eviction{}, result.Memory{Identities: 1, Keys: 2, KeysWithoutTTL: 2}),
	}
	r.Profile.ExpectBroken = []string{"naive"}
	out := collapsedSummary(t, r)
	for _, want := range []string{
		"fixed_window evicted 1 60 60 0 - 20 20 0 5 0 EVICTED (not judged)",
		"fixed_window restarted 1 60 60 0 - 20 20 0 5 0 RESTARTED (not judged)",
		"naive steady 1 60 60 0 - 20 20 0 5 0 << OVERSHOOT (expected)",
		"sliding_log steady 1 60 60 0 - 20 20 0 0 0 ok",
		"sliding_log steady 1 2 2 LEAK",
		"! limiter state reset by the server (not judged): fixed_window/evicted; fixed_window/restarted",
		"- INCONCLUSIVE fixed_window/evicted: Redis evicted 7 keys (maxmemory-policy allkeys-lru)",
		"! FAIL sliding_log/steady: 2 of 2 keys under",
		"! naive/steady: OVERSHOOT: 1 identity got more than the algorithm's own bound",
		"(expected: the profile runs it as a negative control)",
		"naive: caught, as expected (steady: OVERSHOOT 5)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// The limiter's own failures come first, the most serious first, and
	// before what the server did.
	overshot, leak, reset := strings.Index(out, "! naive/steady: OVERSHOOT"), strings.Index(out, "! FAIL sliding_log/steady"), strings.Index(out, "! limiter state reset")
	if !(overshot < leak && leak < reset) {
		t.Errorf("notes out of order (overshoot at %d, leak at %d, reset at %d):\n%s", overshot, leak, reset, out)
	}
	for _, unwanted := range []string{"fixed_window/evicted: OVERSHOOT", "fixed_window/restarted: OVERSHOOT"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("summary blames the limiter of a reset run (%q):\n%s", unwanted, out)
		}
	}
}
