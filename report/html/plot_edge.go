package html

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// hasEdge says whether some run of scenario measured admissions around
// its window boundaries (a boundary run with an audit).
func (v *view) hasEdge(scenario string) bool {
	for _, run := range v.scenarioRuns(scenario) {
		if run.Edge != nil && len(run.Edge.MaxInWindow) > 0 {
			return true
		}
	}
	return false
}

// admissionsAtTheEdge draws, for one boundary scenario, how many requests
// one identity had admitted in the window ending at each millisecond
// around its window boundary: per algorithm the most over the identities
// (solid) and their mean (dashed), with the policy limit across and the
// boundary as a vertical line. This is what the boundary shape exists to
// show: the fixed window's curve jumps to twice the limit just after the
// boundary, the sliding log's never passes the limit.
func admissionsAtTheEdge(v *view, scenario string) (drawing, error) {
	p := newPlot("Admissions around the window boundary — scenario "+scenario,
		"time relative to each identity's window boundary (ms)", "admitted to one identity in the window ending then")
	top := 0.0
	xMin, xMax := 0.0, 0.0
	var limit int64
	for _, run := range v.scenarioRuns(scenario) {
		e := run.Edge
		if e == nil || len(e.MaxInWindow) == 0 {
			continue
		}
		limit = max(limit, runLimit(v.r, run))
		col := v.colors.color(run.Algorithm)
		most, mean := edgeCurves(e)
		xMin = min(xMin, most[0].X)
		xMax = max(xMax, most[len(most)-1].X)
		for _, pt := range most {
			top = max(top, pt.Y)
		}
		l, err := line(most, col, vg.Points(2))
		if err != nil {
			return nil, err
		}
		m, err := line(mean, tint(col, 0.35), vg.Points(1.2))
		if err != nil {
			return nil, err
		}
		m.Dashes = dashes
		p.Add(m, l)
		p.Legend.Add(fmt.Sprintf("%s (most of %d %s)", run.Algorithm, e.Identities, plural.Noun(e.Identities, "identity", "identities")), l)
	}
	if top == 0 {
		return markNoData(p, "no run of this scenario measured its window boundaries"), nil
	}
	key, err := line(plotter.XYs{{}, {X: 1}}, inkColor, vg.Points(1.2))
	if err != nil {
		return nil, err
	}
	key.Dashes = dashes
	p.Legend.Add("dashed: the mean identity", key)
	if limit > 0 {
		l := horizontal(float64(limit), limitColor, true)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("policy limit %s per window", report.FormatCount(limit)), l)
		top = max(top, float64(limit))
	}
	boundary, err := line(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: top / (1 - 0.35)}}, gridEdgeColor, vg.Points(1))
	if err != nil {
		return nil, err
	}
	p.Add(boundary)
	p.X.Min, p.X.Max = xMin, xMax
	padTop(p, top, 0.35)
	return p, nil
}

// edgeCurves turns an edge into points: the most and the mean admitted in
// the window ending at each millisecond.
func edgeCurves(e *result.Edge) (most, mean plotter.XYs) {
	for i, n := range e.MaxInWindow {
		x := float64(e.FromMs + int64(i))
		most = append(most, plotter.XY{X: x, Y: float64(n)})
		if i < len(e.MeanInWindow) {
			mean = append(mean, plotter.XY{X: x, Y: e.MeanInWindow[i]})
		}
	}
	return most, mean
}
