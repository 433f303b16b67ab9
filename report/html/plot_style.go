package html

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/report"
)

// Shared look of every plot: a sans-serif face (easier to read small than
// gonum's default serif), a light grid, and a legend drawn in space the
// axis ranges leave free at the top.
var (
	plotFont  = font.Font{Typeface: "Liberation", Variant: "Sans"}
	gridColor = color.RGBA{0xE3, 0xE3, 0xE3, 0xFF}
	inkColor  = color.RGBA{0x44, 0x44, 0x44, 0xFF}
	// limitColor draws the policy limit in every plot that shows it.
	limitColor = color.RGBA{0x22, 0x22, 0x22, 0xFF}
	// gridEdgeColor marks an instant across a plot, such as a window
	// boundary.
	gridEdgeColor = color.RGBA{0x88, 0x88, 0x88, 0xFF}
	dashes        = []vg.Length{vg.Points(6), vg.Points(4)}
	dots          = []vg.Length{vg.Points(1.5), vg.Points(3)}
)

// newPlot returns a plot with the shared look and the given texts.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(plotFont, 14)
	p.Title.Padding = vg.Points(6)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(plotFont, 11)
		ax.Tick.Label.Font = font.From(plotFont, 10)
		ax.Tick.Label.Color = inkColor
	}
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font = font.From(plotFont, 10)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = -vg.Points(4)
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(24)
	grid := plotter.NewGrid()
	grid.Vertical.Color = gridColor
	grid.Horizontal.Color = gridColor
	p.Add(grid)
	return p
}

// noData is a plot that had nothing to show; reason says why.
type noData struct {
	*plot.Plot
	reason string
}

// markNoData turns p into an empty frame with "no data: msg" written
// across its middle, so a reader sees at once that nothing was there to
// plot. The result, drawn as a whole figure, tells Plots so.
func markNoData(p *plot.Plot, msg string) noData {
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.X.Scale, p.Y.Scale = plot.LinearScale{}, plot.LinearScale{}
	p.X.Tick.Marker = plot.ConstantTicks{}
	p.Y.Tick.Marker = plot.ConstantTicks{}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{"no data: " + msg}})
	if err != nil {
		// NewLabels fails only on a length mismatch, which cannot happen here.
		panic(err)
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font = font.From(plotFont, 14)
		labels.TextStyle[i].Color = inkColor
		labels.TextStyle[i].XAlign = draw.XCenter
		labels.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(labels)
	return noData{Plot: p, reason: msg}
}

// line is a solid line in colour c.
func line(xys plotter.XYs, c color.Color, width vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.Color = c
	l.Width = width
	return l, nil
}

// markShapes are the marks that tell apart lines of points drawn over
// one another, in turn.
var markShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}

// markedLine is a line through xys in c with a mark at each point, the
// k-th of markShapes (in turn): two lines that fall on one another still
// show both.
func markedLine(xys plotter.XYs, c color.Color, k int) (*plotter.Line, *plotter.Scatter, error) {
	l, err := line(xys, c, vg.Points(2))
	if err != nil {
		return nil, nil, err
	}
	marks, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, nil, err
	}
	marks.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: markShapes[k%len(markShapes)]}
	return l, marks, nil
}

// horizontal is a horizontal line at y across the whole x range, for
// limits.
func horizontal(y float64, c color.Color, dashed bool) *plotter.Function {
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Color = c
	f.Width = vg.Points(1.5)
	if dashed {
		f.Dashes = dashes
	}
	return f
}

var _ plot.Thumbnailer = swatch{}

// swatch is a legend thumbnail: a filled box in c with an optional outline.
type swatch struct {
	fill    color.Color
	outline color.Color
}

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(s.fill, c.ClipPolygonY(pts))
	if s.outline != nil {
		c.StrokeLines(draw.LineStyle{Color: s.outline, Width: vg.Points(1)}, c.ClipLinesY(append(pts, pts[0]))...)
	}
}

// logTicks labels a logarithmic axis at 1, 2 and 5 times each power of
// ten inside the range, with unlabelled minor ticks at the other integer
// multiples. Unlike plot.LogTicks it labels a range narrower than a decade.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	labelled := 0
	for exp := math.Floor(math.Log10(lo)); exp <= math.Ceil(math.Log10(hi)); exp++ {
		base := math.Pow(10, exp)
		for m := 1; m <= 9; m++ {
			v := base * float64(m)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = report.FormatTick(v)
				labelled++
			}
			ticks = append(ticks, t)
		}
	}
	if labelled < 2 {
		// Less than one 1-2-5 step inside the range: label every tick.
		for i := range ticks {
			ticks[i].Label = report.FormatTick(ticks[i].Value)
		}
	}
	return ticks
}

// scaledTicks labels an axis in a larger unit than its values: ticks of
// values in milliseconds labelled in seconds, with a divisor of 1000.
type scaledTicks struct {
	plot.Ticker
	divisor float64
}

// Ticks implements plot.Ticker.
func (s scaledTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := s.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = report.FormatTick(ticks[i].Value / s.divisor)
		}
	}
	return ticks
}

// linearTicks are gonum's default ticks with labels free of float noise
// and needless decimals: 2500, not 2500.00.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = report.FormatTick(ticks[i].Value)
		}
	}
	return ticks
}

// padTop raises the top of a linear y axis so the legend at the top of the
// plot does not cover data. It keeps 0 as the bottom.
func padTop(p *plot.Plot, dataMax float64, share float64) {
	if dataMax <= 0 {
		dataMax = 1
	}
	p.Y.Min = 0
	p.Y.Max = dataMax / (1 - share)
}
