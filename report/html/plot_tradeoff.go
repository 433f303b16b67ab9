package html

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/report"
)

// Marker radii of the trade-off plot: the area of a mark grows with the
// server time per decision, from the smallest radius for the cheapest to
// the largest for the dearest.
const (
	tradeoffMinRadius = 5
	tradeoffMaxRadius = 22
)

// tradeoffCosts are the algorithms the trade-off plot can place: those
// with both an accuracy (an audit) and a memory per identity, in report
// order.
func (v *view) tradeoffCosts() []*report.Costs {
	costs := report.AlgorithmCosts(v.r)
	var out []*report.Costs
	for _, alg := range v.algorithms {
		if c := costs[alg]; c != nil && c.HaveAccuracy && c.HaveMemory {
			out = append(out, c)
		}
	}
	return out
}

// hasTradeoff says whether at least two algorithms can be placed on the
// trade-off plot: one point compares with nothing.
func (v *view) hasTradeoff() bool { return len(v.tradeoffCosts()) >= 2 }

// accuracyVsMemory draws the trade-off rlbench exists to show: for each
// algorithm, how far one identity got past the policy (the most admitted
// in one window over the limit: 1 keeps the policy exactly, 2 lets twice
// through) against what an identity costs in Redis memory, with the
// server time per decision as the area of its mark. The best corner is
// bottom left, with a small mark.
func accuracyVsMemory(v *view) (drawing, error) {
	p := newPlot("Accuracy against memory per identity (mark area: server time per decision)",
		"Redis memory per identity (bytes)", "most admitted in one window / policy limit")
	costs := v.tradeoffCosts()
	if len(costs) < 2 {
		return markNoData(p, "fewer than two algorithms have both an audit and memory per identity (a cardinality scenario measures memory)"), nil
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range costs {
		if c.HaveServer {
			lo, hi = math.Min(lo, c.UsecPerCall), math.Max(hi, c.UsecPerCall)
		}
	}
	radius := func(c *report.Costs) vg.Length {
		if !c.HaveServer || hi <= 0 {
			return tradeoffMinRadius
		}
		// Area in proportion to the time: radius to its square root.
		share := math.Sqrt(c.UsecPerCall / hi)
		return vg.Points(tradeoffMinRadius + (tradeoffMaxRadius-tradeoffMinRadius)*share)
	}
	// Dearest first, so a small mark is never hidden under a large one.
	order := append([]*report.Costs(nil), costs...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].UsecPerCall > order[j].UsecPerCall })
	maxX, maxY := 0.0, 2.0
	for _, c := range order {
		xy := plotter.XYs{{X: math.Max(c.BytesPerIdentity, 0), Y: c.MostPerLimit}}
		mark, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		col := v.colors.color(c.Algorithm)
		// Translucent, so marks that overlap both show.
		mark.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{R: col.R, G: col.G, B: col.B, A: 0xA0}, Radius: radius(c), Shape: draw.CircleGlyph{}}
		ring, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		ring.GlyphStyle = draw.GlyphStyle{Color: col, Radius: radius(c), Shape: draw.RingGlyph{}}
		p.Add(mark, ring)
		maxX, maxY = math.Max(maxX, xy[0].X), math.Max(maxY, xy[0].Y)
	}
	for _, c := range costs {
		server := "no server time"
		if c.HaveServer {
			server = fmt.Sprintf("%.1f µs", c.UsecPerCall)
		}
		text := fmt.Sprintf("%s (%s, %s, %.2fx)", c.Algorithm, report.FormatSize(c.BytesPerIdentity), server, c.MostPerLimit)
		p.Legend.Add(text, swatch{fill: v.colors.color(c.Algorithm)})
	}
	// One label per place: algorithms that cost about the same (the token
	// and leaky buckets) share one, rather than print over each other.
	type place struct{ x, y int64 }
	var places []place
	names := map[place]string{}
	at := map[place]plotter.XY{}
	reach := map[place]vg.Length{}
	for _, c := range costs {
		xy := plotter.XY{X: math.Max(c.BytesPerIdentity, 0), Y: c.MostPerLimit}
		k := place{int64(math.Round(xy.X / (maxX/40 + 1))), int64(math.Round(xy.Y * 20))}
		if _, ok := names[k]; !ok {
			places = append(places, k)
			names[k], at[k] = c.Algorithm, xy
		} else {
			names[k] += ", " + c.Algorithm
		}
		reach[k] = max(reach[k], radius(c))
	}
	// Labels go above their mark; of two places close enough for their
	// labels to collide, the second one's goes below.
	sort.SliceStable(places, func(i, j int) bool { return at[places[i]].X < at[places[j]].X })
	below := false
	for i, k := range places {
		below = i > 0 && !below && math.Abs(at[k].X-at[places[i-1]].X) < maxX/6 && math.Abs(at[k].Y-at[places[i-1]].Y) < 0.4
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{at[k]}, Labels: []string{names[k]}})
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font = font.From(plotFont, 9)
			labels.TextStyle[i].Color = inkColor
			labels.TextStyle[i].XAlign = draw.XCenter
			labels.TextStyle[i].YAlign = draw.YBottom
			if below {
				labels.TextStyle[i].YAlign = draw.YTop
			}
		}
		labels.Offset = vg.Point{Y: reach[k] + vg.Points(3)}
		if below {
			labels.Offset.Y = -labels.Offset.Y
		}
		p.Add(labels)
	}
	policy := horizontal(1, limitColor, true)
	p.Add(policy)
	p.Legend.Add("1x: never past the policy in one window", policy)
	p.X.Min, p.X.Max = 0, maxX*1.35+1
	p.Y.Min, p.Y.Max = 0, maxY*1.6
	return p, nil
}
