package html

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// throughputOverTime stacks two panels for one scenario: decisions per
// second (allowed + denied) and the p99 of each bin, one line per
// algorithm on a shared time axis, from the run's timeline (or, for a
// result without one, its per-second series). Only bins that lie wholly
// inside the issuing window are drawn: the last, partial one would look
// like a collapse. The offered rate is a dashed line, and calls that got no
// decision are a dotted line of their own.
func throughputOverTime(v *view, scenario string) (drawing, error) {
	title := "Throughput and p99 over time — scenario " + scenario
	rate := newPlot("", "", "decisions/s")
	runs := v.scenarioRuns(scenario)
	xMax, rateMax := 0.0, 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	var offered plotter.XYs
	type lines struct {
		alg             string
		decided, failed plotter.XYs
		p99             plotter.XYs
		anyFailed       bool
	}
	var all []lines
	binLabel := ""
	for _, run := range runs {
		bins, width := fullBins(run)
		if len(bins) == 0 {
			continue
		}
		binLabel = report.FormatMillis(width)
		l := lines{alg: run.Algorithm}
		for _, b := range bins {
			secs := float64(b.spanMs) / 1000
			x := (float64(b.TMs) + float64(b.spanMs)/2) / 1000
			xMax = max(xMax, float64(b.TMs+b.spanMs)/1000)
			d := float64(b.Allowed+b.Denied) / secs
			e := float64(b.Errors) / secs
			rateMax = max(rateMax, d, e)
			l.decided = append(l.decided, plotter.XY{X: x, Y: d})
			l.failed = append(l.failed, plotter.XY{X: x, Y: e})
			l.anyFailed = l.anyFailed || b.Errors > 0
			if b.P99Us > 0 {
				y := millis(b.P99Us)
				l.p99 = append(l.p99, plotter.XY{X: x, Y: y})
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		if offered == nil {
			offered = offeredRate(run)
		}
		all = append(all, l)
	}
	axis := fmt.Sprintf("time (s; %s bins, decisions counted when decided)", binLabel)
	if rateMax == 0 {
		p := newPlot(title, axis, "decisions/s")
		return markNoData(p, "no decisions over time in this scenario"), nil
	}
	p99 := newPlot("", axis, "p99 per bin (ms, log scale)")
	anyFailed := false
	for _, l := range all {
		col := v.colors.color(l.alg)
		thumb, err := addSeries(rate, l.decided, col)
		if err != nil {
			return nil, err
		}
		rate.Legend.Add(l.alg, thumb)
		if l.anyFailed {
			f, err := line(l.failed, col, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			f.Dashes = dots
			rate.Add(f)
			anyFailed = true
		}
		if len(l.p99) > 0 {
			if _, err := addSeries(p99, l.p99, col); err != nil {
				return nil, err
			}
		}
	}
	if anyFailed {
		key, err := line(plotter.XYs{{}, {X: 1}}, inkColor, vg.Points(1.5))
		if err != nil {
			return nil, err
		}
		key.Dashes = dots
		rate.Legend.Add("dotted: calls with no decision (errors)/s", key)
	}
	if len(offered) > 0 {
		o, err := line(offered, limitColor, vg.Points(1.5))
		if err != nil {
			return nil, err
		}
		o.Dashes = dashes
		rate.Add(o)
		label := "offered rate"
		if run0 := runs[0]; len(run0.Params.Stages) == 0 {
			label += " " + report.FormatRate(run0.Rate.TargetPerS) + "/s"
		}
		rate.Legend.Add(label, o)
		for _, pt := range offered {
			rateMax = max(rateMax, pt.Y)
			xMax = max(xMax, pt.X)
		}
	}
	rate.X.Min, rate.X.Max = 0, xMax
	padTop(rate, rateMax, 0.45)
	p99.X.Min, p99.X.Max = 0, xMax
	if math.IsInf(lo, 0) {
		markNoData(p99, "no p99 per bin")
	} else {
		p99.Y.Scale = plot.LogScale{}
		p99.Y.Tick.Marker = logTicks{}
		p99.Y.Min, p99.Y.Max = lo/1.25, hi*1.25
	}
	return grid{title: title, plots: [][]*plot.Plot{{rate}, {p99}}}, nil
}

// offeredRate is the rate the run offered over time: a ramp's stages, or
// a constant line over its duration; nil in closed loop.
func offeredRate(run *result.Run) plotter.XYs {
	if st := run.Params.Stages; len(st) > 0 {
		pts := plotter.XYs{{X: 0, Y: run.Params.FromPerS}}
		at := 0.0
		for _, s := range st {
			at += s.DurationS
			pts = append(pts, plotter.XY{X: at, Y: s.TargetPerS})
		}
		return pts
	}
	if run.Rate.TargetPerS <= 0 {
		return nil
	}
	end := run.ElapsedS
	if end <= 0 {
		end = run.Params.DurationS
	}
	return plotter.XYs{{X: 0, Y: run.Rate.TargetPerS}, {X: end, Y: run.Rate.TargetPerS}}
}

// spannedBin is a bin with the part of it the issuing window covered.
type spannedBin struct {
	result.Bin
	spanMs int64
}

// fullBins is the run over time as bins of width milliseconds — the
// timeline when the result has one, else the per-second series — keeping
// only the bins that lie wholly inside the issuing window. A run shorter
// than one bin (a result without a timeline) keeps its one bin, over the
// part of it the run lasted.
func fullBins(run *result.Run) (bins []spannedBin, width int64) {
	var all []result.Bin
	if tl := run.Timeline; tl != nil && tl.BinMs > 0 {
		all, width = tl.Bins, tl.BinMs
	} else {
		width = 1000
		for _, s := range run.Series {
			all = append(all, result.Bin{TMs: int64(s.TS) * 1000, Allowed: s.Allowed, Denied: s.Denied, Errors: s.Errors, P99Us: s.P99Us})
		}
	}
	end := int64(math.Round(run.ElapsedS * 1000))
	// A plot shows at most plotBins points a line: finer bins merge, their
	// counts added and the highest p99 kept.
	k := int64(max(1, (len(all)+plotBins-1)/plotBins))
	for i := 0; i < len(all); i += int(k) {
		b := spannedBin{Bin: all[i], spanMs: width * k}
		for _, o := range all[i+1 : min(i+int(k), len(all))] {
			b.Allowed, b.Denied, b.Errors = b.Allowed+o.Allowed, b.Denied+o.Denied, b.Errors+o.Errors
			b.P99Us = max(b.P99Us, o.P99Us)
		}
		if end <= 0 || b.TMs+b.spanMs <= end {
			bins = append(bins, b)
		}
	}
	if len(bins) == 0 && len(all) > 0 && end > 0 && end < width {
		bins = append(bins, spannedBin{Bin: all[0], spanMs: end})
	}
	return bins, width * k
}

// plotBins is the most points a line of a plot over time has.
const plotBins = 120

// addSeries draws a per-second series as a line in colour c, with dots
// when it is too short to show as a line.
func addSeries(p *plot.Plot, xys plotter.XYs, c color.Color) (plot.Thumbnailer, error) {
	l, err := line(xys, c, vg.Points(2))
	if err != nil {
		return nil, err
	}
	p.Add(l)
	if len(xys) <= 2 {
		dots, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(dots)
	}
	return l, nil
}
