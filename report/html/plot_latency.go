package html

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/result"
)

// The latency spectrum puts percentiles on a "nines" axis, x = -log10(1-q):
// 90% sits at 1, 99% at 2, 99.9% at 3, so each extra nine of the tail gets
// as much room as the whole body of the distribution.
var ninesTicks = []struct {
	x     float64
	label string
}{
	{0, "0%"}, {math.Log10(2), "50%"}, {1, "90%"}, {2, "99%"}, {3, "99.9%"},
	{4, "99.99%"}, {5, "99.999%"}, {6, "99.9999%"},
}

const (
	// ninesStep is the spacing of the sampled percentiles on the nines axis.
	ninesStep = 0.02
	// maxNines caps the axis at 99.9999%: beyond it every curve is its max.
	maxNines = 6
)

// latencySpectrum plots, for one scenario, each algorithm's corrected
// latency against the percentile on the nines axis, with the uncorrected
// curve dashed where it differs, on a logarithmic millisecond axis.
func latencySpectrum(v *view, scenario string) (drawing, error) {
	p := newPlot("Latency by percentile — scenario "+scenario, "percentile (nines scale)", "latency (ms, log scale)")
	type curve struct {
		alg        string
		corrected  plotter.XYs
		uncorrect  plotter.XYs
		differ     bool
		lowY, topY float64
	}
	var curves []curve
	xMax := 1.0
	for _, run := range v.scenarioRuns(scenario) {
		corr, unc, err := run.Histograms()
		if err != nil {
			return nil, err
		}
		if corr == nil || corr.Count() == 0 {
			continue
		}
		c := curve{alg: run.Algorithm, corrected: spectrum(corr)}
		if unc != nil && unc.Count() > 0 {
			c.uncorrect = spectrum(unc)
			c.differ = !sameCurve(c.corrected, c.uncorrect)
		}
		curves = append(curves, c)
		xMax = math.Max(xMax, c.corrected[len(c.corrected)-1].X)
	}
	if len(curves) == 0 {
		return markNoData(p, "no latency histogram in this scenario"), nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	anyDashed := false
	for _, c := range curves {
		col := v.colors.color(c.alg)
		l, err := line(c.corrected, col, vg.Points(2))
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add(c.alg, l)
		for _, pt := range c.corrected {
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
		if c.differ {
			d, err := line(c.uncorrect, col, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			d.Dashes = dashes
			p.Add(d)
			anyDashed = true
			for _, pt := range c.uncorrect {
				lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
			}
		}
	}
	entries := len(curves)
	if anyDashed {
		entries++
		key, err := line(plotter.XYs{{}, {X: 1}}, inkColor, vg.Points(1.5))
		if err != nil {
			return nil, err
		}
		key.Dashes = dashes
		p.Legend.Add("dashed: uncorrected (from the actual send)", key)
	}
	p.X.Min, p.X.Max = 0, xMax
	var ticks plot.ConstantTicks
	for _, t := range ninesTicks {
		if t.x <= xMax+1e-9 {
			ticks = append(ticks, plot.Tick{Value: t.x, Label: t.label})
		}
	}
	p.X.Tick.Marker = ticks
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	if hi >= 1000 {
		// Latencies of seconds read better in seconds.
		p.Y.Label.Text = "latency (s, log scale)"
		p.Y.Tick.Marker = scaledTicks{logTicks{}, 1000}
	}
	// The legend sits in a strip kept free below the lowest curve, at the
	// right, where the curves (which rise to the right) never are.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(4)
	p.Y.Max = hi * 1.6
	p.Y.Min = math.Pow(10, math.Log10(p.Y.Max)-(math.Log10(p.Y.Max)-math.Log10(lo/1.25))/(1-legendShare(entries)))
	return p, nil
}

// legendShare is the part of a plot's height a legend of n entries needs.
func legendShare(n int) float64 {
	return min(0.04+0.05*float64(n), 0.6)
}

// spectrum samples h on the nines axis from 0% up to the last percentile
// its count can resolve, ending at its maximum. Values are milliseconds.
func spectrum(h *result.Histogram) plotter.XYs {
	xMax := math.Min(math.Max(math.Log10(float64(h.Count())), 1), maxNines)
	n := int(xMax/ninesStep) + 1
	percentiles := make([]float64, 0, n)
	xs := make([]float64, 0, n)
	for i := range n {
		x := float64(i) * ninesStep
		if x >= xMax {
			break
		}
		xs = append(xs, x)
		percentiles = append(percentiles, 100*(1-math.Pow(10, -x)))
	}
	values := h.AtPercentiles(percentiles)
	pts := make(plotter.XYs, 0, len(xs)+1)
	for i, x := range xs {
		pts = append(pts, plotter.XY{X: x, Y: millis(values[i])})
	}
	return append(pts, plotter.XY{X: xMax, Y: millis(h.Max())})
}

// sameCurve reports whether two spectra agree point for point within 1%.
func sameCurve(a, b plotter.XYs) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i].Y-b[i].Y) > 0.01*math.Max(a[i].Y, b[i].Y) {
			return false
		}
	}
	return true
}

// millis converts microseconds to milliseconds, keeping the value
// positive for a log axis (HDR histograms here start at 1 us).
func millis(us int64) float64 { return math.Max(float64(us), 1) / 1000 }
