package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// planned is a calibrated run that sent sent of 500 planned requests,
// with a server cost ratio (0: not measured).
func planned(sent int64, serverCost float64) result.Run {
	r := calibrated(1000, 800, 10, 2)
	r.Repeats = nil
	r.Requests = result.Requests{Planned: 500, Sent: sent, Allowed: sent}
	r.Relative.ServerCost = serverCost
	return r
}

// TestCompareRefusesAnInterruptedResult: an interrupted result (7 of 500
// requests) against a full one is never "no regression", and a figure it
// never measured is no change: no ratio, no improvement.
func TestCompareRefusesAnInterruptedResult(t *testing.T) {
	cur := resultOf(planned(7, 0))
	cur.Complete, cur.IncompleteReason = false, "interrupted (Ctrl-C)"
	cur.Runs[0].Incomplete, cur.Runs[0].Note = true, "interrupted"
	cur.Runs[0].LatencyUs.P50 = 20 // seven requests on an idle server
	c := Compare(resultOf(planned(500, 2)), cur, DefaultTolerances)
	if c.Regressed {
		t.Errorf("nothing worse was measured, yet it regressed: %+v", c.Rows)
	}
	want := []string{"the current result did not complete (interrupted (Ctrl-C))", "token_bucket/steady of the current result is incomplete: interrupted"}
	if strings.Join(c.Incomplete, "\n") != strings.Join(want, "\n") {
		t.Errorf("incomplete %q, want %q", c.Incomplete, want)
	}
	for _, r := range c.Rows {
		if r.Verdict == Improved || r.Verdict == Same || r.Verdict == WithinSpread || r.Ratio != 0 {
			t.Errorf("a figure of 7 requests out of 500 judged: %+v", r)
		}
	}
	if row := rowFor(t, c, "token_bucket/steady", "relative.server_cost"); row.Verdict != NotMeasured || row.Note != "not measured in the current result" {
		t.Errorf("server cost never measured: %+v", row)
	}
	var text bytes.Buffer
	if err := WriteCompare(&text, c, "text", true); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if strings.Contains(out, "no regression\n") || strings.Contains(out, "improved") || strings.Contains(out, "0.00") ||
		!strings.Contains(out, "! INCOMPLETE: the current result did not complete") || !strings.Contains(out, "verdict: INCOMPLETE") {
		t.Errorf("the text claims what was not measured:\n%s", out)
	}
	var md bytes.Buffer
	if err := WriteCompare(&md, c, "markdown", false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "### rlbench: ⚠️ INCOMPLETE") || strings.Contains(md.String(), "✅") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// TestCompareFindsWhatAPartialRunShows: a finding in part of a run is a
// finding; the runs an interrupted result never reached are part of its
// incompleteness, not regressions of their own.
func TestCompareFindsWhatAPartialRunShows(t *testing.T) {
	broken := planned(7, 0)
	broken.Audit.Overshoot = 3
	cur := resultOf(broken)
	cur.Complete = false
	never := planned(500, 2)
	never.Algorithm = "sliding_log"
	c := Compare(resultOf(planned(500, 2), never), cur, DefaultTolerances)
	if row := rowFor(t, c, "token_bucket/steady", "audit.overshoot"); row.Verdict != Regressed || !c.Regressed {
		t.Errorf("an overshoot in 7 requests: %+v", row)
	}
	if len(c.MissingInCurrent) != 1 {
		t.Errorf("missing runs %q", c.MissingInCurrent)
	}
	if c := Compare(resultOf(planned(500, 2), never), resultOf(planned(7, 0)), DefaultTolerances); !c.Regressed || len(c.Incomplete) == 0 {
		t.Errorf("a run missing from a result marked complete is a regression: %+v", c)
	}
	c = Compare(resultOf(planned(500, 2), never), func() *result.Result { r := resultOf(planned(7, 0)); r.Complete = false; return r }(), DefaultTolerances)
	if c.Regressed {
		t.Errorf("a run an interrupted result never reached counted as a regression: %+v", c.MissingInCurrent)
	}
}

// TestCompareRunShortOfItsPlan: a run that sent far fewer requests than
// its schedule held makes its result incomplete, though no flag says so;
// Poisson arrivals fall short of the expected count by chance, and that
// is allowed.
func TestCompareRunShortOfItsPlan(t *testing.T) {
	for _, tc := range []struct {
		why              string
		sent, planned    int64
		arrival          string
		incomplete       bool
		incompleteReason string
	}{
		{"all sent", 1000, 1000, "uniform", false, ""},
		{"a few short", 960, 1000, "uniform", false, ""},
		{"far short", 300, 1000, "uniform", true, "token_bucket/steady of the current result sent 300 of 1,000 planned requests"},
		{"Poisson: 140 where 150 are expected is chance", 140, 150, "poisson", false, ""},
		{"Poisson: 60 of 150 is not", 60, 150, "poisson", true, "token_bucket/steady of the current result sent 60 of 150 planned requests"},
		{"no plan: a closed loop bound by time", 7, 0, "", false, ""},
	} {
		r := planned(tc.sent, 2)
		r.Requests.Planned, r.Params.Arrival = tc.planned, tc.arrival
		c := Compare(resultOf(planned(500, 2)), resultOf(r), DefaultTolerances)
		if got := strings.Join(c.Incomplete, "\n"); got != tc.incompleteReason {
			t.Errorf("%s: incomplete %q, want %q", tc.why, got, tc.incompleteReason)
		}
	}
}

// TestCompareOneSideLacksAFigure: in two complete results, a figure one
// side did not measure is "not measured", never a change of 0.00x.
func TestCompareOneSideLacksAFigure(t *testing.T) {
	for _, tc := range []struct {
		why       string
		base, cur result.Run
		metric    string
		note      string
	}{
		{"no cost ratio now", planned(500, 2), planned(500, 0), "relative.server_cost", "not measured in the current result"},
		{"no cost ratio in the baseline", planned(500, 0), planned(500, 2), "relative.server_cost", "not measured in the baseline"},
		{"no latency now", planned(500, 2), func() result.Run { r := planned(500, 2); r.LatencyUs = result.Latency{}; return r }(),
			"latency_us.p50", "not measured in the current result"},
	} {
		c := Compare(resultOf(tc.base), resultOf(tc.cur), DefaultTolerances)
		if row := rowFor(t, c, "token_bucket/steady", tc.metric); row.Verdict != NotMeasured || row.Ratio != 0 || row.Note != tc.note || row.Missing == "" || c.Regressed {
			t.Errorf("%s: %+v", tc.why, row)
		}
	}
}

// spread is a calibrated run whose server cost ratio median measured
// within rounds whose quartiles were low and high.
func spread(median, low, high float64) result.Run {
	r := calibrated(1000, 800, 10, median)
	r.Relative.ServerCostLow, r.Relative.ServerCostHigh = low, high
	r.Repeats = nil
	return r
}

// TestCompareServerCostBySpread: single runs get the tolerance the spread
// of their rounds calls for, when it is wider than the one given: a
// noisier pair of runs may move further, and a script three times slower
// still does not pass.
func TestCompareServerCostBySpread(t *testing.T) {
	for _, tc := range []struct {
		why       string
		base, cur result.Run
		verdict   string
		allowed   string
	}{
		{"tight rounds: the tolerance given", spread(2.5, 2.45, 2.55), spread(2.6, 2.55, 2.65), Same, "+25%"},
		{"tight rounds: +32% is a regression", spread(2.5, 2.45, 2.55), spread(3.3, 3.25, 3.35), Regressed, "+25%"},
		// Spreads of 0.16 and 0.2: 2 x sqrt(0.16^2 + 0.2^2) = 0.51.
		{"noisy rounds: +32% is inside their spread", spread(2.5, 2.3, 2.7), spread(3.3, 3.0, 3.66), Same, "+51%"},
		// Spreads of 0.16 and 0.16: 2 x sqrt(0.16^2 + 0.16^2) = 0.45.
		{"noisy rounds: three times slower is not", spread(2.5, 2.3, 2.7), spread(7.5, 6.9, 8.1), Regressed, "+45%"},
		{"one side without rounds: the tolerance given", spread(2.5, 2.3, 2.7), spread(3.3, 0, 0), Regressed, "+25%"},
	} {
		c := Compare(resultOf(tc.base), resultOf(tc.cur), DefaultTolerances)
		if row := rowFor(t, c, "token_bucket/steady", "relative.server_cost"); row.Verdict != tc.verdict || row.Allowed != tc.allowed {
			t.Errorf("%s: %+v, want %s allowing %s", tc.why, row, tc.verdict, tc.allowed)
		}
	}
}

// TestCompareShortfallInAFault: a run that sent 736 of 1,000 because the
// server stalled under the watch (an unscheduled fault the verdict excuses)
// does not make the comparison incomplete, as it does not make the run
// inconclusive; its figures are judged only where they show a finding, and
// a warning says so. Without the fault it is incomplete as before.
func TestCompareShortfallInAFault(t *testing.T) {
	short := func(fault bool) *result.Result {
		r := planned(370, 2)
		r.Requests.Planned = 500
		if fault {
			r.Faults = &result.Faults{Windows: []result.FaultWindow{{Kind: "stall", Unscheduled: true}}}
		}
		return resultOf(r)
	}
	c := Compare(resultOf(planned(500, 2)), short(true), DefaultTolerances)
	if len(c.Incomplete) > 0 || c.Regressed {
		t.Errorf("a shortfall in a stall made it incomplete %q or regressed", c.Incomplete)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "runs short of their plan during a fault") || !strings.Contains(w, "token_bucket/steady (current: sent 370 of 500)") {
		t.Errorf("warnings %q", c.Warnings)
	}
	if row := rowFor(t, c, "token_bucket/steady", "relative.latency_p50"); row.Verdict != NotMeasured {
		t.Errorf("a partial run's latency judged: %+v", row)
	}
	if c := Compare(resultOf(planned(500, 2)), short(false), DefaultTolerances); len(c.Incomplete) != 1 {
		t.Errorf("without a fault: incomplete %q, want the shortfall", c.Incomplete)
	}
}
