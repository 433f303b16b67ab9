package html

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rlbench/rlbench/result"
)

// Size of every plot, in pixels. 16:9 at 96 DPI reads well on a screen
// and embedded in the HTML page at its natural width.
const (
	PlotWidthPx  = 960
	PlotHeightPx = 540
	plotDPI      = 96
)

// Figure is one rendered plot.
type Figure struct {
	// File is the name the PNG is written under, e.g. latency-steady.png.
	File string
	// Title says what the plot shows; the HTML page uses it as caption and
	// alternative text.
	Title string
	// Scenario is the scenario the plot belongs to; empty for a plot that
	// spans every scenario.
	Scenario string
	// PNG is the encoded image, PlotWidthPx x PlotHeightPx.
	PNG []byte
	// NoData says why the plot is empty, when it is: it then shows only
	// a "no data" mark.
	NoData string
}

// drawing is anything that can draw itself on a canvas: a *plot.Plot or a
// grid of them.
type drawing interface{ Draw(draw.Canvas) }

// scenarioPlot builds one plot of one scenario.
type scenarioPlot struct {
	file  string
	title string
	// include says whether the scenario has what the plot shows; nil for
	// every scenario.
	include func(v *view, scenario string) bool
	build   func(v *view, scenario string) (drawing, error)
}

// scenarioPlots are drawn once per scenario, in this order.
var scenarioPlots = []scenarioPlot{
	{"capacity", "Latency against offered rate, the SLO and each limiter's capacity", (*view).hasCapacity, latencyAgainstRate},
	{"edge", "Admissions around the window boundary", (*view).hasEdge, admissionsAtTheEdge},
	{"latency", "Latency by percentile", nil, latencySpectrum},
	{"admissions", "Admissions over time", nil, admissionsOverTime},
	{"throughput", "Throughput and p99 over time", nil, throughputOverTime},
	{"faults", "Fault timeline: decisions by who decided, and p99, with the fault windows shaded", (*view).hasFaults, faultTimeline},
	{"cluster", "Decisions per master of the Redis Cluster", (*view).hasCluster, decisionsPerMaster},
	{"memory-time", "Memory over time: Redis memory per identity and rlbench's resident set", (*view).hasMemoryOverTime, memoryOverTime},
}

// acrossPlots span every scenario, in this order; include says whether
// the result has anything for them.
var acrossPlots = []struct {
	file, title string
	include     func(*view) bool
	build       func(*view) (drawing, error)
}{
	{"admitted-vs-bound.png", "Most admitted in one window vs the policy limit and each algorithm's own bound",
		func(*view) bool { return true }, admittedVsBound},
	{"memory.png", "Redis memory per identity", (*view).hasMemoryPerIdentity, memoryPerIdentity},
	{"memory-vs-identities.png", "Redis memory per identity as identities grow", (*view).hasMemoryCurve, memoryCurve},
	{"admitted-vs-skew.png", "Most admitted in one window against the clock skew of the fleet, one line per limiter, each bound dashed",
		(*view).hasSkewSweep, admittedVsSkew},
	{"accuracy-vs-memory.png", "Accuracy (most admitted in one window / policy limit) against memory per identity; mark area: server time per decision",
		(*view).hasTradeoff, accuracyVsMemory},
	{"wrong-vs-server.png", wrongTitle, (*view).hasWrongVsServer, wrongVsServer},
}

// Plots renders every plot the result supports: for each scenario the
// latency percentile spectrum, admissions over time, and throughput and
// p99 over time, and a fault timeline when the scenario scheduled faults;
// then, across scenarios, admitted vs bound, memory per
// identity when the result has memory figures, and memory per identity
// against identities when a scenario measured several sizes, and accuracy
// against memory per identity when two algorithms have both. A result without runs still
// gets the admitted-vs-bound plot, marked "no data".
func Plots(r *result.Result) ([]Figure, error) {
	return plots(context.Background(), newView(r), true)
}

// plots draws the plots of v, each scenario's only when detailed, and
// stops with ctx's error between two plots when ctx ends.
func plots(ctx context.Context, v *view, detailed bool) ([]Figure, error) {
	var figs []Figure
	for _, s := range v.scenarios {
		if !detailed {
			break
		}
		for _, sp := range scenarioPlots {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if sp.include != nil && !sp.include(v, s) {
				continue
			}
			d, err := sp.build(v, s)
			if err != nil {
				return nil, fmt.Errorf("%s plot of scenario %s: %w", sp.file, s, err)
			}
			fig, err := renderFigure(d, sp.file+"-"+v.slugs[s]+".png", fmt.Sprintf("%s — scenario %s", sp.title, s))
			if err != nil {
				return nil, err
			}
			fig.Scenario = s
			figs = append(figs, fig)
		}
	}
	for _, ap := range acrossPlots {
		if !ap.include(v) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := ap.build(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ap.file, err)
		}
		fig, err := renderFigure(d, ap.file, ap.title)
		if err != nil {
			return nil, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

func renderFigure(d drawing, file, title string) (Figure, error) {
	data, err := renderPNG(d)
	if err != nil {
		return Figure{}, fmt.Errorf("%s: %w", file, err)
	}
	fig := Figure{File: file, Title: title, PNG: data}
	if nd, ok := d.(noData); ok {
		fig.NoData = nd.reason
	}
	return fig, nil
}

// renderPNG draws d on a white PlotWidthPx x PlotHeightPx canvas and
// encodes it. gonum/plot panics on some degenerate inputs; such a panic
// becomes an error naming the figure rather than a crash.
func renderPNG(d drawing) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("drawing failed: %v", p)
		}
	}()
	w := vg.Length(PlotWidthPx) * vg.Inch / plotDPI
	h := vg.Length(PlotHeightPx) * vg.Inch / plotDPI
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))
	d.Draw(draw.New(c))
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// grid draws plots as aligned tiles under one title; nil cells stay empty.
type grid struct {
	title string
	plots [][]*plot.Plot
}

// Draw implements drawing.
func (g grid) Draw(dc draw.Canvas) {
	titleStyle := draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(plotFont, 14),
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
	top := dc.Max.Y - vg.Points(6)
	dc.FillText(titleStyle, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, g.title)
	body := dc
	body.Max.Y = top - titleStyle.Height(g.title) - vg.Points(6)
	rows := len(g.plots)
	cols := 0
	for _, row := range g.plots {
		cols = max(cols, len(row))
	}
	tiles := draw.Tiles{
		Rows: rows, Cols: cols,
		PadX: vg.Points(18), PadY: vg.Points(10),
		PadLeft: vg.Points(4), PadRight: vg.Points(12), PadBottom: vg.Points(4),
	}
	cells := plot.Align(g.plots, tiles, body)
	for j, row := range g.plots {
		for i, p := range row {
			if p != nil {
				p.Draw(cells[j][i])
			}
		}
	}
}

// gridOf lays n plots out in rows of at most cols, padding the last row
// with nil cells so every row has the same length.
func gridOf(plots []*plot.Plot, cols int) [][]*plot.Plot {
	if len(plots) < cols {
		cols = max(len(plots), 1)
	}
	var rows [][]*plot.Plot
	for i := 0; i < len(plots); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, plots[i:min(i+cols, len(plots))])
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		rows = [][]*plot.Plot{{nil}}
	}
	return rows
}
