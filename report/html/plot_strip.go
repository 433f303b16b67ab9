package html

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/result"
)

// maxBarGroups is the most scenarios a grouped bar chart shows: past it,
// bars and scenario names no longer fit the plot's width, and a plot
// across scenarios draws one column of points per algorithm instead.
const maxBarGroups = DefaultMaxScenarios

// stripPlot draws, for each algorithm, one point per scenario at the value
// value gives its run there (runs without one are left out), spread across
// the algorithm's column so that points with equal values stay apart. It
// suits any number of scenarios; title gets how many there were.
func stripPlot(v *view, title, yLabel string, scenarios []string, value func(*result.Run) (float64, bool)) (*plot.Plot, float64, error) {
	p := newPlot(fmt.Sprintf("%s (one point per scenario, %d scenarios)", title, len(scenarios)), "algorithm", yLabel)
	top := 0.0
	for i, alg := range v.algorithms {
		var xys plotter.XYs
		for k, s := range scenarios {
			run := v.run(alg, s)
			if run == nil {
				continue
			}
			y, ok := value(run)
			if !ok {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(i) + spread(k), Y: y})
			top = max(top, y)
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, 0, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: v.colors.color(alg), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	p.NominalX(v.algorithms...)
	p.X.Min, p.X.Max = -0.5, float64(len(v.algorithms))-0.5
	return p, top, nil
}

// spread places the k-th point of a column within ±0.35 of its centre,
// evenly and the same way every time (the golden ratio's fractional parts
// never bunch up).
func spread(k int) float64 {
	_, frac := math.Modf(float64(k) * 0.6180339887498949)
	return (frac - 0.5) * 0.7
}
