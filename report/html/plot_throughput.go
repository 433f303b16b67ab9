package html

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// throughputOverTime stacks two panels for one scenario: requests answered
// per second (allowed + denied + errors) and the p99 latency of each
// second, one line per algorithm, on a shared time axis.
func throughputOverTime(v *view, scenario string) (drawing, error) {
	title := "Throughput and p99 over time — scenario " + scenario
	rate := newPlot("", "", "requests/s")
	p99 := newPlot("", seriesAxis, "p99 per second (ms, log scale)")
	runs := v.scenarioRuns(scenario)
	xMax, rateMax := 1.0, 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, run := range runs {
		col := v.colors.color(run.Algorithm)
		var sent, lat plotter.XYs
		for _, s := range run.Series {
			x := float64(s.TS) + 0.5
			xMax = max(xMax, float64(s.TS+1))
			n := float64(s.Allowed + s.Denied + s.Errors)
			rateMax = max(rateMax, n)
			sent = append(sent, plotter.XY{X: x, Y: n})
			if s.P99Us > 0 {
				y := millis(s.P99Us)
				lat = append(lat, plotter.XY{X: x, Y: y})
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		if len(sent) == 0 {
			continue
		}
		thumb, err := addSeries(rate, sent, col)
		if err != nil {
			return nil, err
		}
		rate.Legend.Add(run.Algorithm, thumb)
		if len(lat) > 0 {
			if _, err := addSeries(p99, lat, col); err != nil {
				return nil, err
			}
		}
	}
	if rateMax == 0 {
		p := newPlot(title, seriesAxis, "requests/s")
		return markNoData(p, "no per-second series in this scenario"), nil
	}
	rate.X.Min, rate.X.Max = 0, xMax
	padTop(rate, rateMax, 0.5)
	p99.X.Min, p99.X.Max = 0, xMax
	if math.IsInf(lo, 0) {
		markNoData(p99, "no per-second p99")
	} else {
		p99.Y.Scale = plot.LogScale{}
		p99.Y.Tick.Marker = logTicks{}
		p99.Y.Min, p99.Y.Max = lo/1.25, hi*1.25
	}
	return grid{title: title, plots: [][]*plot.Plot{{rate}, {p99}}}, nil
}

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
