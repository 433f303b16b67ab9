package html

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barLayout places one bar per algorithm side by side in each group (a
// scenario) of a grouped bar chart.
type barLayout struct {
	slot vg.Length // width given to one algorithm in a group
	n    int       // algorithms per group
}

// newBarLayout sizes the slots so the groups fill about 80% of the width a
// plot of PlotWidthPx has for its data.
func newBarLayout(groups, algorithms int) barLayout {
	dataWidth := vg.Length(PlotWidthPx)*vg.Inch/plotDPI - vg.Points(110)
	group := dataWidth / vg.Length(max(groups, 1)) * 0.8
	return barLayout{slot: group / vg.Length(max(algorithms, 1)), n: algorithms}
}

// offset is where algorithm i's bar sits relative to its group's centre.
func (l barLayout) offset(i int) vg.Length {
	return (vg.Length(i) - vg.Length(l.n-1)/2) * l.slot
}

// bars adds, for algorithm i, one bar per group with the given
// values, share of the slot's width, fill and outline.
func (l barLayout) bars(p *plot.Plot, i int, values []float64, share float64, fill, outline color.Color) error {
	b, err := plotter.NewBarChart(plotter.Values(values), l.slot*vg.Length(share))
	if err != nil {
		return err
	}
	b.Offset = l.offset(i)
	b.Color = fill
	b.LineStyle = draw.LineStyle{Color: outline, Width: vg.Points(1)}
	if outline == nil {
		b.LineStyle.Width = 0
	}
	p.Add(b)
	return nil
}

// labels writes text above algorithm i's bars; an empty text writes
// nothing.
func (l barLayout) labels(p *plot.Plot, i int, heights []float64, texts []string) error {
	var xys plotter.XYs
	var strs []string
	for g, t := range texts {
		if t == "" {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(g), Y: heights[g]})
		strs = append(strs, t)
	}
	if len(xys) == 0 {
		return nil
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: strs})
	if err != nil {
		return err
	}
	for k := range lab.TextStyle {
		lab.TextStyle[k].Font = font.From(plotFont, 9)
		lab.TextStyle[k].Color = inkColor
		lab.TextStyle[k].XAlign = draw.XCenter
	}
	lab.Offset = vg.Point{X: l.offset(i), Y: vg.Points(3)}
	p.Add(lab)
	return nil
}

// labelledBars adds algorithm alg's bars (it is the i-th) in col, each
// labelled with its text, and names alg in the legend.
func (l barLayout) labelledBars(p *plot.Plot, i int, alg string, col color.Color, values []float64, texts []string) error {
	if err := l.bars(p, i, values, 0.8, col, nil); err != nil {
		return err
	}
	if err := l.labels(p, i, values, texts); err != nil {
		return err
	}
	p.Legend.Add(alg, swatch{fill: col})
	return nil
}

// nominalGroups names the groups on the x axis and frames them.
func nominalGroups(p *plot.Plot, groups []string) {
	p.NominalX(groups...)
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
}
