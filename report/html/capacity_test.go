package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestCapacityPage: a capacity scenario gets, on its page, the table of
// each limiter's capacity under the SLO it held, and the one picture:
// latency against offered rate for every limiter.
func TestCapacityPage(t *testing.T) {
	r := resulttest.Capacity()
	figs, err := Plots(r)
	if err != nil {
		t.Fatal(err)
	}
	var plotted *Figure
	for i := range figs {
		if strings.HasPrefix(figs[i].File, "capacity-") {
			plotted = &figs[i]
		}
	}
	if plotted == nil || plotted.NoData != "" || len(plotted.PNG) == 0 {
		t.Fatalf("no capacity plot drawn: %+v", plotted)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, figs, testSemantics); err != nil {
		t.Fatal(err)
	}
	text := pageText(buf.String())
	for _, want := range []string{
		"Capacity: the highest offered rate (open loop) that held p99 <= 2.00ms",
		"capacity/s | server µs/decision | rlbench µs/decision | ceiling/s | of ceiling",
		"fixed_window | capacity | 40,000 | 5.00 | 3.10 | 200,000 | 20% | 160,000 | 25% | 71% | 62 | 5 | converged (broke at 42,000/s)",
		"[image: Latency against offered rate, the SLO and each limiter's capacity — scenario capacity]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if v := newView(resulttest.Sample()); v.hasCapacity("steady") {
		t.Errorf("a steady scenario has a capacity plot")
	}
}

// TestCapacityCurves: the curves hold, per rate, the last step judged at
// it (a rate offered again counts as its last try), in rate order; steps
// rlbench could not keep are apart.
func TestCapacityCurves(t *testing.T) {
	steps := []result.CapacityStep{
		{TargetPerS: 4000, P99Us: 900, P50Us: 100, Outcome: result.StepHeld},
		{TargetPerS: 8000, P99Us: 9000, P50Us: 300, Outcome: result.StepBroke},
		{TargetPerS: 8000, P99Us: 1500, P50Us: 200, Outcome: result.StepHeld},
		{TargetPerS: 2000, P99Us: 0, P50Us: 0, Outcome: result.StepHeld},
		{TargetPerS: 16000, P99Us: 40000, Outcome: result.StepGeneratorBound},
	}
	p99, p50, bound := curves(steps)
	if len(p99) != 3 || p99[0].X != 2000 || p99[0].Y != 0.001 || p99[2].X != 8000 || p99[2].Y != 1.5 || p50[2].Y != 0.2 {
		t.Errorf("p99 %v, p50 %v", p99, p50)
	}
	if len(bound) != 1 || bound[0].X != 16000 || bound[0].Y != 40 {
		t.Errorf("steps rlbench could not keep: %v", bound)
	}
}
