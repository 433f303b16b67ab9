package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// withIdeal sets each run of r beside the ideal sliding window: of its
// decisions, wrong[alg] = {false admits, false denies}.
func withIdeal(r *result.Result, decisions int64, wrong map[string][2]int64) {
	for i := range r.Runs {
		w := wrong[r.Runs[i].Algorithm]
		a := &result.Accuracy{Ideal: result.IdealSlidingWindow, Identities: 10, ExactTimes: true, Decisions: decisions,
			FalseAdmits: w[0], FalseDenies: w[1], FalseAdmitUnits: w[0], FalseDenyUnits: w[1]}
		a.SetShares()
		r.Runs[i].Accuracy = a
	}
}

// TestRecommendByIdeal: once every ranked limiter was set beside the ideal
// limiter, accuracy is the share of decisions it decided otherwise: the
// sliding counter, a little past the policy in one window but rarely
// wrong, ranks before the token bucket, right in its window but often
// wrong; a difference within what timing moves (a request or two, or a
// tenth) is a tie, and memory decides.
func TestRecommendByIdeal(t *testing.T) {
	r, j := recommendFor(candidate{"token_bucket", 0, 20, 136, verdict.Kept}, candidate{"sliding_counter", 3, 25, 300, verdict.Kept})
	withIdeal(r, 100_000, map[string][2]int64{"token_bucket": {900, 100}, "sliding_counter": {3, 0}})
	rec := Recommend(r, j)
	if rec.Best == nil || rec.Best.Algorithm != "sliding_counter" || rec.Decided != decidedAccuracy || !rec.ByIdeal {
		t.Fatalf("recommendation %+v: want the sliding counter, by accuracy beside the ideal", rec)
	}
	s := rec.Sentence("100 per 1s")
	for _, w := range []string{
		"sliding_counter, the most accurate (0.0030% of decisions wrong vs the ideal)",
		"but cost 1.00% of decisions wrong vs the ideal instead of 0.0030%",
		"ranked by accuracy (here the share of decisions decided otherwise than the ideal limiter of the policy, run on the same arrivals)",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("the sentence lacks %q:\n%s", w, s)
		}
	}
	// 3 and 4 wrong of 100,000: timing, not a difference; memory decides.
	withIdeal(r, 100_000, map[string][2]int64{"token_bucket": {4, 0}, "sliding_counter": {3, 0}})
	if rec := Recommend(r, j); rec.Best.Algorithm != "token_bucket" || rec.Decided != decidedMemory {
		t.Errorf("3 against 4 wrong: best %s decided by %s, want token_bucket by memory", rec.Best.Algorithm, rec.Decided)
	}
	// One run without the comparison: the ranking falls back on the
	// window, for every limiter alike.
	r.Runs[1].Accuracy = nil
	if rec := Recommend(r, j); rec.ByIdeal || rec.Best.Algorithm != "token_bucket" || rec.Decided != decidedAccuracy {
		t.Errorf("one limiter not compared: by ideal %v, best %s by %s; want the window's figure, token_bucket by accuracy", rec.ByIdeal, rec.Best.Algorithm, rec.Decided)
	}
}

// TestDecisionTableWrongVsIdeal: the summary's decision table shows each
// limiter's decisions beside the ideal next to how far it got past the
// policy, and says the ideal runs on the arrivals; a result without the
// comparison keeps the table it had.
func TestDecisionTableWrongVsIdeal(t *testing.T) {
	r, j := recommendFor(candidate{"fixed_window", 99, 15, 88, verdict.Kept}, candidate{"sliding_log", 0, 24, 2100, verdict.Kept})
	var before strings.Builder
	if err := writeDecision(&before, r, j); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(before.String(), "ideal\t") || strings.Contains(before.String(), "wrong vs ideal") {
		t.Errorf("a result without the comparison shows it:\n%s", before.String())
	}
	withIdeal(r, 2_000, map[string][2]int64{"fixed_window": {76, 4}})
	var out strings.Builder
	if err := writeDecision(&out, r, j); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	lines := strings.Split(s, "\n")
	var header, fixed, log string
	for _, l := range lines {
		switch f := strings.Fields(l); {
		case len(f) > 0 && f[0] == "algorithm":
			header = l
		case len(f) > 0 && f[0] == "fixed_window":
			fixed = l
		case len(f) > 0 && f[0] == "sliding_log":
			log = l
		}
	}
	if !strings.Contains(header, "most past the policy  wrong vs ideal  server/decision") {
		t.Errorf("header %q: want wrong vs ideal beside most past the policy", header)
	}
	if !strings.Contains(fixed, "99 (steady)") || !strings.HasSuffix(strings.TrimSpace(strings.Split(fixed, "(steady)")[1]), "88 B") ||
		!strings.Contains(fixed, "(steady)    4.00% (76+4)  ") || !strings.Contains(log, "0        0% (0+0)  ") {
		t.Errorf("rows:\n%s\n%s\nwant 4.00%% (76+4) and 0%% (0+0)", fixed, log)
	}
	if !strings.Contains(s, "wrong vs ideal: the share of decisions a limiter decided otherwise than the ideal limiter, an exact sliding window of 100 per 1s, run on the same arrivals (not on what the limiter admitted)") {
		t.Errorf("the table does not say which ideal, nor that it runs on the arrivals:\n%s", s)
	}
}

// TestCompareAccuracyShares: compare judges the shares of false admits and
// false denies beside the ideal as it judges how far past the policy: a
// rise of the baseline's count by a decision or a tenth moves with timing,
// more is a regression.
func TestCompareAccuracyShares(t *testing.T) {
	run := func(falseAdmits, falseDenies int64) result.Run {
		r := compareRun("fixed_window", 200, 1000, 5, 100, 0, 99, 0, 0)
		a := &result.Accuracy{Ideal: result.IdealSlidingWindow, Decisions: 10_000, FalseAdmits: falseAdmits, FalseDenies: falseDenies}
		a.SetShares()
		r.Accuracy = a
		return r
	}
	base := run(30, 0)
	for _, tc := range []struct {
		why            string
		falseAdmits    int64
		admits, denies string
		note           string
	}{
		{"three more of 10,000: timing", 33, WithinSpread, Same, "a rise of up to 0.030% moves with timing"},
		{"ten more: a regression", 40, Regressed, Same, ""},
		{"fewer", 10, Improved, Same, ""},
	} {
		c := Compare(resultOf(base), resultOf(run(tc.falseAdmits, 0)), DefaultTolerances)
		fa := rowFor(t, c, "fixed_window/steady", "accuracy.false_admit_share")
		fd := rowFor(t, c, "fixed_window/steady", "accuracy.false_deny_share")
		if fa.Verdict != tc.admits || fd.Verdict != tc.denies || fa.Note != tc.note {
			t.Errorf("%s: false admits %s (%q), false denies %s; want %s (%q), %s", tc.why, fa.Verdict, fa.Note, fd.Verdict, tc.admits, tc.note, tc.denies)
		}
		if c.Regressed != (tc.admits == Regressed) {
			t.Errorf("%s: regressed %v", tc.why, c.Regressed)
		}
	}
	// A baseline written before the comparison existed: not measured there.
	old := base
	old.Accuracy = nil
	if row := rowFor(t, Compare(resultOf(old), resultOf(base), DefaultTolerances), "fixed_window/steady", "accuracy.false_admit_share"); row.Verdict != NotMeasured || row.Missing != "baseline" {
		t.Errorf("baseline without the comparison: %+v", row)
	}
}
