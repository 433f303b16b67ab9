package result_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// accuracyOf is a comparison with the ideal whose counts agree with one
// another, over decisions decisions.
func accuracyOf(decisions, falseAdmits, falseDenies int64) *result.Accuracy {
	a := &result.Accuracy{Ideal: result.IdealSlidingWindow, Identities: 4, ExactTimes: true, Decisions: decisions,
		FalseAdmits: falseAdmits, FalseDenies: falseDenies, FalseAdmitUnits: falseAdmits, FalseDenyUnits: falseDenies,
		NearThresholdIdentities: 2, NearThresholdRateDiff: 0.1, BelowThresholdIdentities: 1, AboveThresholdIdentities: 3, UnlimitedAboveThreshold: 1}
	if falseAdmits > 0 {
		a.WorstIdentity = &result.WorstIdentity{Identity: 3, Decisions: decisions / 4, FalseAdmits: falseAdmits, FalseAdmitUnits: falseAdmits,
			AdmittedUnits: 10 + falseAdmits, IdealAdmittedUnits: 10, ExcessShare: float64(falseAdmits) / 10}
	}
	a.SetShares()
	return a
}

// TestDecodeRefusesImpossibleAccuracy: counts of wrong decisions past
// the decisions they are among, shares that are not their counts over the
// decisions, a worst identity the run never had, and an ideal nobody
// names are refused, naming the field.
func TestDecodeRefusesImpossibleAccuracy(t *testing.T) {
	for _, tc := range []struct {
		why   string
		spoil func(a *result.Accuracy)
		want  string
	}{
		{"more wrong than decided", func(a *result.Accuracy) { a.FalseDenies = 200; a.FalseDenyUnits = 200; a.SetShares() },
			"accuracy.false_admits 10 + false_denies 200 is more than decisions 100"},
		{"a share that is not its count's", func(a *result.Accuracy) { a.WrongShare = 0.5 },
			"accuracy.wrong_share 0.5 is not its count over decisions (0.12)"},
		{"an ideal nobody names", func(a *result.Accuracy) { a.Ideal = "fixed_window" },
			`accuracy.ideal "fixed_window": want sliding_window or token_bucket`},
		{"a worst identity the run never had", func(a *result.Accuracy) { a.WorstIdentity.Identity = 10 },
			"accuracy.worst_identity.identity 10 is not one of the run's 10 identities"},
		{"limited below the threshold more than were below it", func(a *result.Accuracy) { a.LimitedBelowThreshold = 2 },
			"accuracy.limited_below_threshold 2 or unlimited_above_threshold 1 is more than the identities below (1) or above (3) the threshold"},
		{"a negative count", func(a *result.Accuracy) { a.FaultDecisions = -1 },
			"accuracy.fault_decisions is -1, and it cannot be negative"},
	} {
		r := resulttest.Sample()
		r.Runs[0].Identities = 10
		r.Runs[0].Accuracy = accuracyOf(100, 10, 2)
		tc.spoil(r.Runs[0].Accuracy)
		data, err := marshalResult(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := result.Decode([]byte(data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.want)
		}
	}
	// A worst identity whose false denies outweigh its false admits has a
	// negative excess, and loads.
	r := resulttest.Sample()
	r.Runs[0].Accuracy = accuracyOf(100, 10, 2)
	r.Runs[0].Accuracy.WorstIdentity.ExcessShare = -0.2
	data, err := marshalResult(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.Decode([]byte(data)); err != nil {
		t.Errorf("a negative excess refused: %v", err)
	}
}

// TestMergeAccuracy: segments compared disjoint identities, so their
// counts add up exactly and the shares are taken again from the sums (not
// averaged), the mean rate difference is weighted by the identities near
// the threshold, and the worst identity is the worst of any; of
// repetitions, the one with the most wrong decisions stands whole.
func TestMergeAccuracy(t *testing.T) {
	parts := segments(t, 2)
	parts[0].Runs[0].Accuracy = accuracyOf(100, 10, 2)
	parts[1].Runs[0].Accuracy = accuracyOf(300, 3, 0)
	parts[1].Runs[0].Accuracy.NearThresholdIdentities, parts[1].Runs[0].Accuracy.NearThresholdRateDiff = 6, 0.02
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	a := merged.Runs[0].Accuracy
	if a == nil || a.Decisions != 400 || a.FalseAdmits != 13 || a.FalseDenies != 2 || a.Identities != 8 {
		t.Fatalf("merged counts %+v, want 400 decisions, 13 false admits, 2 false denies of 8 identities", a)
	}
	if math.Abs(a.WrongShare-15.0/400) > 1e-12 || math.Abs(a.FalseAdmitShare-13.0/400) > 1e-12 || math.Abs(a.FalseDenyShare-2.0/400) > 1e-12 {
		t.Errorf("merged shares %v %v %v, want the sums' 15/400, 13/400, 2/400", a.WrongShare, a.FalseAdmitShare, a.FalseDenyShare)
	}
	if want := (2*0.1 + 6*0.02) / 8; a.NearThresholdIdentities != 8 || math.Abs(a.NearThresholdRateDiff-want) > 1e-12 {
		t.Errorf("near the threshold: %d identities, mean difference %v; want 8 and %v", a.NearThresholdIdentities, a.NearThresholdRateDiff, want)
	}
	if a.WorstIdentity == nil || a.WorstIdentity.FalseAdmits != 10 {
		t.Errorf("worst identity %+v, want the first segment's with 10 false admits", a.WorstIdentity)
	}
	if merged.Runs[1].Accuracy != nil {
		t.Errorf("a run no segment compared has a comparison: %+v", merged.Runs[1].Accuracy)
	}

	one, two := resulttest.Sample().Runs[0], resulttest.Sample().Runs[0]
	one.Accuracy, two.Accuracy = accuracyOf(100, 1, 0), accuracyOf(90, 4, 5)
	two.LatencyUs.P99 = one.LatencyUs.P99 + 10
	three := one
	three.Accuracy = accuracyOf(100, 0, 1)
	got := result.MergeRepeats([]result.Run{one, two, three}).Accuracy
	if got == nil || got.Decisions != 90 || got.FalseAdmits != 4 || got.FalseDenies != 5 || math.Abs(got.WrongShare-0.1) > 1e-12 {
		t.Errorf("repetitions: %+v, want the one that decided 9 of 90 otherwise, whole", got)
	}
}

// TestThresholdsOnAccuracy: a threshold names the figures beside the ideal
// as any figure of a run, a share in percent; a run without the
// comparison fails it with a note.
func TestThresholdsOnAccuracy(t *testing.T) {
	r := resulttest.Sample()
	r.Runs[0].Accuracy = accuracyOf(1000, 30, 0) // 3% false admits
	log := r.Runs[0]
	log.Algorithm, log.Accuracy = "sliding_log", accuracyOf(1000, 0, 0)
	bare := r.Runs[0]
	bare.Algorithm, bare.Accuracy = "gcra", nil
	r.Runs = append(r.Runs, log, bare)
	var ts []*result.Threshold
	for _, e := range []string{
		"fixed_window/* accuracy.false_admit_share <= 1%", // 3%: fails
		"sliding_log/* accuracy.wrong_share == 0",         // holds
		"gcra/* accuracy.false_deny_share < 0.1%",         // not compared: fails with a note
	} {
		th, err := result.ParseThreshold(e)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		ts = append(ts, th)
	}
	got := map[string]result.ThresholdResult{}
	for _, g := range result.Evaluate(r, ts) {
		got[strings.Fields(g.Expression)[0]] = g
	}
	if len(got) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(got), got)
	}
	if g := got["fixed_window/*"]; g.OK || g.Value != 0.03 || g.Against != 0.01 {
		t.Errorf("fixed window: %+v, want 0.03 against 0.01, failed", g)
	}
	if g := got["sliding_log/*"]; !g.OK {
		t.Errorf("sliding log: %+v, want held", g)
	}
	if g := got["gcra/*"]; g.OK || !strings.Contains(g.Note, "no accuracy.false_deny_share") {
		t.Errorf("gcra: %+v, want failed for want of the figure", g)
	}
}
