package verdict

import (
	"cmp"
	"slices"

	"github.com/rlbench/rlbench/result"
)

// SkewTolerance is what one limiter's runs of one sweep of clock skews
// say of the skew it tolerates: the largest step up to which every run
// held (no admission past the limiter's bound, none short of its promise,
// judged on the true clock, by traffic that could have shown an excess).
type SkewTolerance struct {
	Sweep, Algorithm string
	// Steps are the limiter's runs of the sweep, by skew.
	Steps []SkewStep
	// ToleratedMs is the largest skew, in milliseconds, up to which every
	// step held; Tolerated is false when the smallest step did not (no
	// tolerated skew measured), and AllHeld true when every step held (the
	// limiter tolerates at least the largest skew measured).
	ToleratedMs float64
	Tolerated   bool
	AllHeld     bool
	// FirstFailure is the first step that did not hold, when one did not.
	FirstFailure *SkewStep
}

// SkewStep is one run of a sweep, as the verdict found it.
type SkewStep struct {
	// SkewMs is the spread of the instances' clocks, ± milliseconds.
	SkewMs float64
	// Run is the run's key (algorithm/scenario).
	Run string
	// Audited says the run had an audit, whose MaxWindowAdmitted and
	// BoundWindow these are.
	Audited                        bool
	MaxWindowAdmitted, BoundWindow int64
	// NotJudged says the audit could not judge the limiter (none, or the
	// server reset its state); Untested that it judged it on traffic that
	// could not have shown an excess.
	NotJudged, Untested bool
	// OverAdmits and UnderAdmits say the run admitted past the limiter's
	// bound, or denied what its promise admits (the verdict's Overshoot
	// and UnderAdmission findings).
	OverAdmits, UnderAdmits bool
}

// Held says the step showed the limiter keeping its bound and its
// promise at its skew.
func (s SkewStep) Held() bool {
	return !s.NotJudged && !s.Untested && !s.OverAdmits && !s.UnderAdmits
}

// SkewTolerances is, for every sweep of clock skews among r's runs
// (fleet.sweep) and every limiter that ran it, in the order the runs came,
// the largest skew it tolerates, from what j found in each run (j is
// Assess(r)).
func (j Judgement) SkewTolerances(r *result.Result) []SkewTolerance {
	var out []SkewTolerance
	index := map[[2]string]int{}
	for i := range r.Runs {
		run := &r.Runs[i]
		f := run.Fleet
		if f == nil || f.Sweep == "" || i >= len(j.Runs) {
			continue
		}
		k := [2]string{f.Sweep, run.Algorithm}
		at, ok := index[k]
		if !ok {
			at = len(out)
			index[k] = at
			out = append(out, SkewTolerance{Sweep: f.Sweep, Algorithm: run.Algorithm})
		}
		found := j.Runs[i]
		step := SkewStep{SkewMs: f.ClockSkewMs, Run: run.Key(), NotJudged: run.Audit == nil || !found.Judged,
			Untested: found.Promise == Untested, OverAdmits: found.Has(Overshoot), UnderAdmits: found.Has(UnderAdmission)}
		if a := run.Audit; a != nil {
			step.Audited, step.MaxWindowAdmitted, step.BoundWindow = true, a.MaxWindowAdmitted, a.BoundWindow
		}
		out[at].Steps = append(out[at].Steps, step)
	}
	for i := range out {
		t := &out[i]
		slices.SortStableFunc(t.Steps, func(x, y SkewStep) int { return cmp.Compare(x.SkewMs, y.SkewMs) })
		t.AllHeld = true
		for k := range t.Steps {
			if !t.Steps[k].Held() {
				t.AllHeld, t.FirstFailure = false, &t.Steps[k]
				break
			}
			t.ToleratedMs, t.Tolerated = t.Steps[k].SkewMs, true
		}
	}
	return out
}
