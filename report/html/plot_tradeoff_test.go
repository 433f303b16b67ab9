package html

import (
	"math"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestApproximationRemark: an approximate window's paragraph says how often
// the exact algorithm would have decided otherwise, scenario by scenario;
// an exact one's says nothing of the kind.
func TestApproximationRemark(t *testing.T) {
	r := resulttest.Sample()
	run := &r.Runs[0]
	run.Algorithm = "sliding_counter"
	run.Audit = &result.Audit{Identities: 10, Decisions: 40_000, Allowed: 20_000, ExpectedAllowed: 20_000, MaxWindowAdmitted: 110, BoundWindow: 200,
		VsExact: &result.ExactComparison{Algorithm: "sliding_log", Decisions: 40_000, Differ: 12, AdmittedBeyond: 11, DeniedWithin: 1}}
	v := newView(r)
	text := strings.Join(remarks(v, run.Algorithm), " ")
	want := "the exact sliding_log would have decided otherwise in " + run.Scenario + " on 12 of 40,000 decisions (0.030%: 11 admitted that it would deny, 1 denied that it would admit)"
	if !strings.Contains(text, want) {
		t.Errorf("paragraph lacks %q:\n%s", want, text)
	}
	run.Audit.VsExact = nil
	if text := strings.Join(remarks(newView(r), run.Algorithm), " "); strings.Contains(text, "would have decided otherwise") {
		t.Errorf("a run without a comparison gets one: %s", text)
	}
}

// TestTradeoffNeedsTwoPlaces: the accuracy against memory plot needs an
// audit and memory per identity for at least two algorithms.
func TestTradeoffNeedsTwoPlaces(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	a, b := base, base
	a.Algorithm, b.Algorithm = "gcra", "sliding_log"
	a.Audit = &result.Audit{MaxWindowAdmitted: 199}
	a.Memory = &result.Memory{Identities: 100_000, BytesPerIdentity: 149}
	b.Audit = &result.Audit{MaxWindowAdmitted: 100}
	r.Runs = []result.Run{a, b}
	if newView(r).hasTradeoff() {
		t.Errorf("one algorithm with memory per identity makes a plot")
	}
	r.Runs[1].Memory = &result.Memory{Identities: 100_000, BytesPerIdentity: 182}
	v := newView(r)
	if !v.hasTradeoff() {
		t.Fatalf("two algorithms with both figures make no plot")
	}
	costs := v.tradeoffCosts()
	if costs[0].Algorithm != "gcra" || math.Abs(costs[0].MostPerLimit-1.99) > 1e-9 || costs[1].BytesPerIdentity != 182 {
		t.Errorf("costs %+v %+v", *costs[0], *costs[1])
	}
}
