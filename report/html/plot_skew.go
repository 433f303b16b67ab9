package html

import (
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/report"
)

// hasSkewSweep says whether some scenario swept the clock skew of a fleet.
func (v *view) hasSkewSweep() bool { return len(v.sweeps) > 0 }

// admittedVsSkew draws, for every sweep of clock skews, the most one
// identity had admitted within a window at each skew, one line per
// limiter (and sweep, when there are several), with each limiter's bound
// dashed in its colour: a limiter that reads Redis TIME draws a flat line
// under its bound, one that trusts its callers' clocks climbs past it.
// The skews are spaced evenly, labelled with their values, since a sweep
// usually grows by factors (0, 10ms, 100ms, 1s).
func admittedVsSkew(v *view) (drawing, error) {
	p := newPlot("Most admitted in one window against the clock skew of the fleet",
		"the instances' clocks spread over ± (skew)", "requests of one identity in one window")
	var skews []float64
	for _, s := range v.sweeps {
		for _, ms := range s.SkewsMs {
			if !slices.Contains(skews, ms) {
				skews = append(skews, ms)
			}
		}
	}
	slices.Sort(skews)
	if len(skews) == 0 {
		return markNoData(p, "no scenario swept the clock skew"), nil
	}
	top, bottom := 0.0, math.Inf(1)
	bounds := map[string]bool{}
	for si, s := range v.sweeps {
		for li, t := range s.Limiters {
			var xys plotter.XYs
			for _, step := range t.Steps {
				if !step.Audited {
					continue
				}
				xys = append(xys, plotter.XY{X: float64(slices.Index(skews, step.SkewMs)), Y: max(float64(step.MaxWindowAdmitted), 1)})
				top = max(top, float64(step.MaxWindowAdmitted), float64(step.BoundWindow))
				bottom = min(bottom, max(float64(step.MaxWindowAdmitted), 1), max(float64(step.BoundWindow), 1))
			}
			if len(xys) == 0 {
				continue
			}
			col := v.colors.color(t.Algorithm)
			l, marks, err := markedLine(xys, col, si+li)
			if err != nil {
				return nil, err
			}
			p.Add(l, marks)
			name := t.Algorithm + ": tolerates " + report.Tolerates(t)
			if len(v.sweeps) > 1 {
				name = s.Name + " " + name
			}
			p.Legend.Add(name, l, marks)
			if b := t.Steps[0].BoundWindow; t.Steps[0].Audited && !bounds[t.Algorithm] {
				bounds[t.Algorithm] = true
				bound := horizontal(float64(b), col, true)
				bound.Width = vg.Points(1)
				p.Add(bound)
			}
		}
	}
	p.Legend.Add("dashed: each limiter's own bound, in its colour", swatch{fill: tint(inkColor, 0.8), outline: inkColor})
	var ticks []plot.Tick
	for i, ms := range skews {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: report.FormatSkew(ms)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.25, float64(len(skews)-1)+0.25
	if top > 5*bottom {
		// A limiter that trusts its callers may admit many times its
		// bound: on a logarithmic axis the flat lines under the bounds
		// still read apart.
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min, p.Y.Max = bottom/1.5, top*4
		p.Y.Label.Text += " (log scale)"
		return p, nil
	}
	padTop(p, top, 0.35)
	return p, nil
}
