package html

import (
	"fmt"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// curveResult has one scenario group measured at three sizes for two
// algorithms, plus a lone-size scenario that must not make a curve.
func curveResult() *result.Result {
	r := resulttest.Sample()
	r.Runs = nil
	for _, alg := range []string{"fixed_window", "sliding_log"} {
		for i, n := range []int64{10_000, 100_000, 1_000_000} {
			r.Runs = append(r.Runs, result.Run{
				Algorithm: alg, Scenario: fmt.Sprintf("once-%d", n), ScenarioGroup: "once", Shape: "cardinality",
				Memory: &result.Memory{Identities: n, BytesPerIdentity: 130 + float64(i)*5 + map[string]float64{"fixed_window": 0, "sliding_log": 50}[alg]},
			})
		}
		r.Runs = append(r.Runs, result.Run{Algorithm: alg, Scenario: "lone", ScenarioGroup: "lone", Memory: &result.Memory{Identities: 500, BytesPerIdentity: 120}})
	}
	return r
}

func TestMemoryCurve(t *testing.T) {
	v := newView(curveResult())
	groups, curves := v.memoryCurves()
	if fmt.Sprint(groups) != "[once]" {
		t.Fatalf("groups %v, want only the group with several sizes", groups)
	}
	if pts := curves["once"]["sliding_log"]; len(pts) != 3 || pts[0].identities != 10_000 || pts[2].bytes != 190 {
		t.Errorf("sliding_log curve %+v", pts)
	}
	figs, err := Plots(curveResult())
	if err != nil {
		t.Fatal(err)
	}
	var fig *Figure
	for i := range figs {
		if figs[i].File == "memory-vs-identities.png" {
			fig = &figs[i]
		}
	}
	if fig == nil {
		t.Fatalf("no memory-vs-identities.png among %d figures", len(figs))
	}
	if fig.NoData != "" {
		t.Errorf("curve marked no data: %s", fig.NoData)
	}
	img := decodePNG(t, fig.File, fig.PNG)
	seen := colorsIn(img)
	for _, alg := range []string{"fixed_window", "sliding_log"} {
		if !seen[v.colors.color(alg)] {
			t.Errorf("%s's colour is not in the curve plot", alg)
		}
	}
	// A result without several sizes has no such plot at all.
	plain, err := Plots(resulttest.Sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plain {
		if f.File == "memory-vs-identities.png" {
			t.Errorf("curve drawn for a result without sizes")
		}
	}
}
