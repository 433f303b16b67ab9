package html

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// hasCapacity says whether a scenario searched for a capacity.
func (v *view) hasCapacity(scenario string) bool {
	for _, run := range v.scenarioRuns(scenario) {
		if run.Capacity != nil && len(run.Capacity.Steps) > 0 {
			return true
		}
	}
	return false
}

// latencyAgainstRate draws a capacity scenario in one picture: for every
// limiter, the p99 (solid) and p50 (dashed) latency from the due time of
// each step against the rate it offered, on logarithmic axes; the SLO's
// p99 as a dashed line across; each limiter's capacity as a large ring on
// its p99 curve. Steps rlbench could not keep are hollow marks: they say
// nothing of the limiter.
func latencyAgainstRate(v *view, scenario string) (drawing, error) {
	p := newPlot("Latency against offered rate: each limiter's capacity within the SLO",
		"offered rate (requests/s, log scale)", "latency from the due time (ms, log scale)")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	lo, hi := math.Inf(1), 0.0
	left, right := math.Inf(1), 0.0
	var slo float64
	for _, run := range v.scenarioRuns(scenario) {
		c := run.Capacity
		if c == nil || len(c.Steps) == 0 {
			continue
		}
		slo = float64(c.SLO.P99Us) / 1000
		col := v.colors.color(run.Algorithm)
		p99, p50, bound := curves(c.Steps)
		for _, xys := range []plotter.XYs{p99, p50, bound} {
			for _, xy := range xys {
				lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
				left, right = math.Min(left, xy.X), math.Max(right, xy.X)
			}
		}
		solid, err := line(p99, col, vg.Points(2))
		if err != nil {
			return nil, err
		}
		dashed, err := line(p50, col, vg.Points(1.2))
		if err != nil {
			return nil, err
		}
		dashed.Dashes = dashes
		marks, err := plotter.NewScatter(p99)
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(solid, dashed, marks)
		if len(bound) > 0 {
			hollow, err := plotter.NewScatter(bound)
			if err != nil {
				return nil, err
			}
			hollow.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
			p.Add(hollow)
		}
		label := fmt.Sprintf("%s: capacity %s", run.Algorithm, capacityLabel(c))
		if at, ok := capacityPoint(c, p99); ok {
			ring, err := plotter.NewScatter(plotter.XYs{at})
			if err != nil {
				return nil, err
			}
			ring.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(9), Shape: draw.RingGlyph{}}
			p.Add(ring)
		}
		p.Legend.Add(label, solid)
	}
	if hi == 0 {
		return markNoData(p, "no capacity step was measured"), nil
	}
	if slo > 0 {
		line := horizontal(slo, limitColor, true)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("SLO: p99 %s (p50 dashed; hollow: steps rlbench could not keep)", report.FormatMicros(int64(slo*1000))), line)
		lo, hi = math.Min(lo, slo), math.Max(hi, slo)
	}
	// Room above for the legend, a little below the lowest mark and on
	// either side of the rates.
	p.Y.Min, p.Y.Max = lo/2, hi*8
	p.X.Min, p.X.Max = left/1.25, right*1.25
	return p, nil
}

// curves are a capacity search's steps as points: the p99 and p50 of the
// last step judged at each rate it held or broke (a rate offered again
// counts as its last try), in rate order, and the p99 of the steps rlbench
// could not keep. Latencies are in milliseconds, at least a microsecond so
// that a logarithmic axis can hold them.
func curves(steps []result.CapacityStep) (p99, p50, bound plotter.XYs) {
	last := map[float64]result.CapacityStep{}
	for _, s := range steps {
		if s.TargetPerS <= 0 {
			continue
		}
		if s.Outcome == result.StepGeneratorBound {
			bound = append(bound, plotter.XY{X: s.TargetPerS, Y: millis(s.P99Us)})
			continue
		}
		last[s.TargetPerS] = s
	}
	rates := make([]float64, 0, len(last))
	for r := range last {
		rates = append(rates, r)
	}
	slices.Sort(rates)
	for _, r := range rates {
		s := last[r]
		p99 = append(p99, plotter.XY{X: r, Y: millis(s.P99Us)})
		p50 = append(p50, plotter.XY{X: r, Y: millis(s.P50Us)})
	}
	return p99, p50, bound
}

// capacityPoint is where a search's capacity sits on its p99 curve.
func capacityPoint(c *result.Capacity, p99 plotter.XYs) (plotter.XY, bool) {
	for _, xy := range p99 {
		if c.PerS > 0 && xy.X == c.PerS {
			return xy, true
		}
	}
	return plotter.XY{}, false
}

// capacityLabel is a capacity as the legend says it.
func capacityLabel(c *result.Capacity) string {
	if c.PerS <= 0 {
		return "none held (" + report.CapacityEnd(c) + ")"
	}
	s := report.FormatCount(int64(c.PerS)) + "/s"
	if c.CeilingPerS > 0 {
		s += fmt.Sprintf(", %s of the ceiling", report.FormatShare(c.ShareOfCeiling))
	}
	if c.End == result.CapacityGeneratorBound {
		s += ", generator-bound"
	}
	return s
}
