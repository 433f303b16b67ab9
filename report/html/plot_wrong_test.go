package html

import (
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// TestWrongVsServerPlacesEachScenario: the wrong-decisions plot has a panel
// per scenario where two algorithms were set beside the ideal limiter and
// have a server time; each is placed at its share of wrong decisions, in
// percent, and its server time per decision, with its memory per identity.
func TestWrongVsServerPlacesEachScenario(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	run := func(alg, scenario string, wrong, decisions int64, usec float64) result.Run {
		x := base
		x.Algorithm, x.Scenario = alg, scenario
		a := &result.Accuracy{Ideal: result.IdealSlidingWindow, Decisions: decisions, FalseAdmits: wrong}
		a.SetShares()
		x.Accuracy, x.Server, x.Memory = a, &result.Server{Calls: decisions, Usec: int64(usec * float64(decisions)), UsecPerCall: usec}, nil
		return x
	}
	r.Runs = []result.Run{
		run("fixed_window", "edge", 76, 200, 15), run("sliding_log", "edge", 0, 200, 24),
		run("fixed_window", "steady", 10, 1000, 16),
	}
	r.Runs[1].Memory = &result.Memory{Identities: 100_000, BytesPerIdentity: 182}
	r.Profile.Algorithms = []string{"fixed_window", "sliding_log"}
	v := newView(r)
	costs := report.AlgorithmCosts(r)
	if got := v.wrongScenarios(costs); len(got) != 1 || got[0] != "edge" {
		t.Fatalf("panels %v, want edge alone (steady places one algorithm)", got)
	}
	points := v.wrongPoints("edge", costs)
	want := []wrongPoint{{algorithm: "fixed_window", wrongPct: 38, usec: 15}, {algorithm: "sliding_log", wrongPct: 0, usec: 24, bytes: 182, haveMemory: true}}
	if len(points) != 2 || points[0] != want[0] || points[1] != want[1] {
		t.Errorf("points %+v, want %+v", points, want)
	}
	figs, err := Plots(r)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range figs {
		if f.File == "wrong-vs-server.png" {
			found = f.NoData == "" && len(f.PNG) > 0
		}
	}
	if !found {
		t.Errorf("no wrong-vs-server.png drawn")
	}
	// Without the comparison, no plot.
	for i := range r.Runs {
		r.Runs[i].Accuracy = nil
	}
	if newView(r).hasWrongVsServer() {
		t.Errorf("a result without the comparison gets the plot")
	}
}
