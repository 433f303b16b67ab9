package html

import (
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/report"
)

// Marker radii of the wrong-decisions plot, in points: the area of a mark
// is in proportion to the memory per identity, the largest getting
// wrongMaxRadius; a mark without a memory figure is a hollow ring of
// wrongMinRadius.
const (
	wrongMinRadius = 3
	wrongMaxRadius = 12
)

// maxWrongPanels bounds the panels of the wrong-decisions plot: past it
// the panels would be too small to read, and the first scenarios are
// drawn.
const maxWrongPanels = 6

// wrongPoint is one algorithm's place in one scenario's panel: the share
// of its decisions decided otherwise than the ideal limiter, in percent,
// its server time per decision, and its memory per identity (the
// algorithm's, from the run that held the most identities).
type wrongPoint struct {
	algorithm      string
	wrongPct, usec float64
	bytes          float64
	haveMemory     bool
}

// wrongPoints are the algorithms of scenario that can be placed: a run
// set beside the ideal limiter, with a server time per decision.
func (v *view) wrongPoints(scenario string, costs map[string]*report.Costs) []wrongPoint {
	var out []wrongPoint
	for _, alg := range v.algorithms {
		run := v.run(alg, scenario)
		if run == nil || run.Accuracy == nil || run.Accuracy.Decisions == 0 || run.Server == nil || run.Server.UsecPerCall <= 0 {
			continue
		}
		p := wrongPoint{algorithm: alg, wrongPct: 100 * run.Accuracy.WrongShare, usec: run.Server.UsecPerCall}
		if c := costs[alg]; c != nil && c.HaveMemory {
			p.bytes, p.haveMemory = c.BytesPerIdentity, true
		}
		out = append(out, p)
	}
	return out
}

// wrongScenarios are the scenarios whose panel places at least two
// algorithms, at most maxWrongPanels of them.
func (v *view) wrongScenarios(costs map[string]*report.Costs) []string {
	var out []string
	for _, s := range v.scenarios {
		if len(v.wrongPoints(s, costs)) >= 2 && len(out) < maxWrongPanels {
			out = append(out, s)
		}
	}
	return out
}

// hasWrongVsServer says whether some scenario places two algorithms on the
// wrong-decisions plot.
func (v *view) hasWrongVsServer() bool {
	return len(v.wrongScenarios(report.AlgorithmCosts(v.r))) > 0
}

// wrongVsServer draws the trade-off of deciding like the ideal: for each
// scenario, each algorithm's share of decisions decided otherwise than
// the ideal limiter of the policy, run on the same arrivals (x), against
// its server time per decision (y), the area of its mark its Redis memory
// per identity. The best corner is bottom left, with a small mark.
func wrongVsServer(v *view) (drawing, error) {
	costs := report.AlgorithmCosts(v.r)
	scenarios := v.wrongScenarios(costs)
	title := "Decisions wrong vs the ideal limiter (run on the same arrivals) against server time; mark area: memory"
	if len(scenarios) == 0 {
		p := newPlot(title, "decisions wrong vs the ideal (%)", "server time per decision (µs)")
		return markNoData(p, "no scenario has two algorithms set beside the ideal limiter with a server time"), nil
	}
	// One scale of marks across the panels: the largest memory per
	// identity gets the largest radius.
	most := 0.0
	for _, c := range costs {
		if c.HaveMemory {
			most = math.Max(most, c.BytesPerIdentity)
		}
	}
	radius := func(p wrongPoint) vg.Length {
		if !p.haveMemory || most <= 0 {
			return wrongMinRadius
		}
		// Area in proportion to the bytes.
		return vg.Points(max(wrongMaxRadius*math.Sqrt(p.bytes/most), wrongMinRadius))
	}
	var tiles []*plot.Plot
	for _, s := range scenarios {
		p := newPlot("scenario "+s, "decisions wrong vs the ideal (%)", "server time per decision (µs)")
		points := v.wrongPoints(s, costs)
		// Dearest in memory first, so a small mark is never hidden under a
		// large one.
		sort.SliceStable(points, func(i, j int) bool { return points[i].bytes > points[j].bytes })
		maxX, maxY := 0.0, 0.0
		for _, pt := range points {
			xy := plotter.XYs{{X: pt.wrongPct, Y: pt.usec}}
			col := v.colors.color(pt.algorithm)
			ring, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, err
			}
			ring.GlyphStyle = draw.GlyphStyle{Color: col, Radius: radius(pt), Shape: draw.RingGlyph{}}
			if pt.haveMemory {
				// Translucent, so marks that overlap both show; hollow
				// without a memory figure.
				mark, err := plotter.NewScatter(xy)
				if err != nil {
					return nil, err
				}
				mark.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{R: col.R, G: col.G, B: col.B, A: 0xA0}, Radius: radius(pt), Shape: draw.CircleGlyph{}}
				p.Add(mark)
			}
			p.Add(ring)
			maxX, maxY = math.Max(maxX, pt.wrongPct), math.Max(maxY, pt.usec)
		}
		if err := labelPlaces(p, points, maxX, maxY, radius); err != nil {
			return nil, err
		}
		// Room on the right for the labels; a panel where every limiter
		// decided as the ideal still has a scale.
		p.X.Min, p.X.Max = 0, math.Max(maxX*1.45, 1)
		p.Y.Min, p.Y.Max = 0, math.Max(maxY*1.25, 1)
		tiles = append(tiles, p)
	}
	return grid{title: title, plots: gridOf(tiles, 2)}, nil
}

// wrongTitle is the caption of the wrong-decisions plot.
const wrongTitle = "Wrong decisions against server time per decision, per scenario: the share of each limiter's decisions decided otherwise than " +
	"the ideal limiter of the policy, which is run on the same arrivals (not on what the limiter admitted); mark area: Redis memory per identity"

// labelPlaces names each mark of a panel beside it, with its memory per
// identity; marks close enough for their labels to collide (within a
// twenty-fifth of the panel across and a twelfth up) share one label.
func labelPlaces(p *plot.Plot, points []wrongPoint, maxX, maxY float64, radius func(wrongPoint) vg.Length) error {
	type place struct{ x, y int64 }
	var places []place
	names := map[place]string{}
	at := map[place]plotter.XY{}
	reach := map[place]vg.Length{}
	for _, pt := range points {
		k := place{int64(math.Round(pt.wrongPct / (maxX/25 + 1e-9))), int64(math.Round(pt.usec / (maxY/12 + 1e-9)))}
		name := pt.algorithm
		if pt.haveMemory {
			name += " " + report.FormatSize(pt.bytes)
		}
		if _, ok := names[k]; !ok {
			places = append(places, k)
			names[k], at[k] = name, plotter.XY{X: pt.wrongPct, Y: pt.usec}
		} else {
			names[k] += ", " + name
		}
		reach[k] = max(reach[k], radius(pt))
	}
	for _, k := range places {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{at[k]}, Labels: []string{names[k]}})
		if err != nil {
			return err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font = font.From(plotFont, 8)
			labels.TextStyle[i].Color = inkColor
			labels.TextStyle[i].XAlign = draw.XLeft
			labels.TextStyle[i].YAlign = draw.YCenter
		}
		labels.Offset = vg.Point{X: reach[k] + vg.Points(2)}
		p.Add(labels)
	}
	return nil
}
