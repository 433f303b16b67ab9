package verdict

import (
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestSkewTolerances: per sweep and limiter, the largest skew up to which
// every step held (no overshoot, no under-admission), in the order of the
// skews whatever the order of the runs; none when the smallest step
// failed; every step when all held. A step the audit could not judge (no
// audit, or Redis reset the limiter's state) or judged on traffic that
// could not show an excess holds nothing; a negative control's steps are
// judged alike.
func TestSkewTolerances(t *testing.T) {
	step := func(alg string, skewMs float64, over, under int64) result.Run {
		return result.Run{Algorithm: alg, Scenario: "sweep-skew", Fleet: &result.Fleet{Sweep: "sweep", ClockSkewMs: skewMs},
			Audit: &result.Audit{Overshoot: over, Violations: min(over, 1), UnderAdmitted: under, MaxWindowAdmitted: 100 + over, BoundWindow: 100}}
	}
	unaudited := step("blind", 50, 0, 0)
	unaudited.Audit = nil
	evicted := step("evicted", 50, 3, 0)
	evicted.Eviction = &result.Eviction{EvictedKeys: 2}
	untested := step("weak", 500, 0, 0)
	untested.Audit.Power = &result.Power{Excess: false}
	r := &result.Result{Profile: result.ProfileInfo{ExpectBroken: []string{"client"}}, Runs: []result.Run{
		step("server", 500, 0, 0), step("client", 500, 40, 0), step("early", 500, 0, 0), step("blind", 500, 0, 0),
		step("server", 0, 0, 0), step("client", 0, 0, 0), step("early", 0, 3, 0), step("blind", 0, 0, 0),
		step("server", 50, 0, 0), step("client", 50, 0, 2), step("early", 50, 0, 0), unaudited,
		step("evicted", 0, 0, 0), evicted, step("weak", 0, 0, 0), untested,
		{Algorithm: "server", Scenario: "other"},
	}}
	got := Assess(r).SkewTolerances(r)
	want := map[string]struct {
		tolerated bool
		ms        float64
		all       bool
		first     float64
		steps     int
	}{
		"server":  {true, 500, true, -1, 3},
		"client":  {true, 0, false, 50, 3},
		"early":   {false, 0, false, 0, 3},
		"blind":   {true, 0, false, 50, 3},
		"evicted": {true, 0, false, 50, 2},
		"weak":    {true, 0, false, 500, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("%d tolerances, want %d: %+v", len(got), len(want), got)
	}
	for _, g := range got {
		w := want[g.Algorithm]
		first := -1.0
		if g.FirstFailure != nil {
			first = g.FirstFailure.SkewMs
		}
		if g.Sweep != "sweep" || g.Tolerated != w.tolerated || g.ToleratedMs != w.ms || g.AllHeld != w.all || first != w.first ||
			len(g.Steps) != w.steps || g.Steps[0].SkewMs != 0 {
			t.Errorf("%s: %+v, want %+v", g.Algorithm, g, w)
		}
	}
	for _, g := range got {
		if f := g.FirstFailure; g.Algorithm == "client" && (!f.UnderAdmits || f.OverAdmits || !f.Audited) {
			t.Errorf("client's first failure: %+v, want under-admission alone", *f)
		}
		if f := g.FirstFailure; g.Algorithm == "evicted" && (!f.NotJudged || f.OverAdmits) {
			t.Errorf("a run whose state Redis evicted: %+v, want not judged, its overshoot not the limiter's", *f)
		}
		if f := g.FirstFailure; g.Algorithm == "weak" && (!f.Untested || f.NotJudged) {
			t.Errorf("a run that could not show an excess: %+v, want untested", *f)
		}
	}
}
