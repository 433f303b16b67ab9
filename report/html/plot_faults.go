package html

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// Colours of the fault timeline: who decided each request, and the shades
// of a fault's window and of the recovery after it.
var (
	faultAllowedColor        = color.RGBA{0x00, 0x9E, 0x73, 0xFF} // Redis admitted
	faultDeniedColor         = color.RGBA{0x99, 0x99, 0x99, 0xFF} // Redis denied
	faultAllowedOnErrorColor = color.RGBA{0xE6, 0x9F, 0x00, 0xFF} // the policy admitted
	faultDeniedOnErrorColor  = color.RGBA{0xD5, 0x5E, 0x00, 0xFF} // the policy denied
	faultWindowShade         = color.NRGBA{0xD5, 0x5E, 0x00, 0x40}
	faultRecoveryShade       = color.NRGBA{0xE6, 0x9F, 0x00, 0x28}
)

// hasFaults says whether a run of the scenario had scheduled faults and a
// timeline of them.
func (v *view) hasFaults(scenario string) bool {
	for _, run := range v.scenarioRuns(scenario) {
		if f := run.Faults; f != nil && f.Timeline != nil && f.Timeline.BinMs > 0 {
			return true
		}
	}
	return false
}

// faultTimeline draws, for each algorithm of one scenario with faults, its
// decisions per bin split by who decided (Redis admitted, Redis denied,
// the error policy admitted, the error policy denied; errors dotted, the
// policy's two shares adding up to them) next to the p99 per bin, with
// each fault's window shaded and the recovery after it shaded lighter.
// The figure's title is its key: panels this small have no room for a
// legend.
func faultTimeline(v *view, scenario string) (drawing, error) {
	title := scenario + ": green/grey Redis admitted/denied, orange/red the policy admitted/denied, dotted errors; shaded faults, lighter recovery"
	var runs []*result.Run
	for _, run := range v.scenarioRuns(scenario) {
		if f := run.Faults; f != nil && f.Timeline != nil && f.Timeline.BinMs > 0 {
			runs = append(runs, run)
		}
	}
	var rows [][]*plot.Plot
	for i, run := range runs {
		decisions, p99, err := faultPanels(run, i == len(runs)-1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, []*plot.Plot{decisions, p99})
	}
	if len(rows) == 0 {
		return markNoData(newPlot(title, "time (s)", "decisions per bin"), "no fault timeline in this scenario"), nil
	}
	return grid{title: title, plots: rows}, nil
}

// faultPanels draws one run's two panels; last says whether they are the
// bottom row, which alone labels the time axis.
func faultPanels(run *result.Run, last bool) (decisions, latency *plot.Plot, err error) {
	tl := run.Faults.Timeline
	axis := ""
	if last {
		axis = fmt.Sprintf("time (s; %s bins)", report.FormatMillis(tl.BinMs))
	}
	decisions = newPlot("", axis, run.Algorithm+"\nper bin")
	latency = newPlot("", axis, "p99 (ms)")
	series := []struct {
		color color.Color
		count func(result.FaultBin) int64
		dots  bool
	}{
		{faultAllowedColor, func(b result.FaultBin) int64 { return b.Allowed }, false},
		{faultDeniedColor, func(b result.FaultBin) int64 { return b.Denied }, false},
		{faultAllowedOnErrorColor, func(b result.FaultBin) int64 { return b.AllowedOnError }, false},
		{faultDeniedOnErrorColor, func(b result.FaultBin) int64 { return b.DeniedOnError }, false},
		{inkColor, func(b result.FaultBin) int64 { return b.Errors }, true},
	}
	end := run.ElapsedS * 1000
	xMax, yMax := 0.0, 0.0
	hi := math.Inf(-1)
	var p99 plotter.XYs
	lines := make([]plotter.XYs, len(series))
	for _, b := range tl.Bins {
		if end > 0 && float64(b.TMs+tl.BinMs) > end {
			break
		}
		x := float64(b.TMs+tl.BinMs/2) / 1000
		xMax = float64(b.TMs+tl.BinMs) / 1000
		for i, s := range series {
			y := float64(s.count(b))
			lines[i] = append(lines[i], plotter.XY{X: x, Y: y})
			yMax = max(yMax, y)
		}
		if b.P99Us > 0 {
			y := millis(b.P99Us)
			p99 = append(p99, plotter.XY{X: x, Y: y})
			hi = math.Max(hi, y)
		}
	}
	if len(lines[0]) == 0 {
		markNoData(decisions, "no whole bin")
		markNoData(latency, "no whole bin")
		return decisions, latency, nil
	}
	yMax = max(yMax, 1)
	pHi := 1.0
	if !math.IsInf(hi, 0) {
		pHi = hi * 1.1
	}
	for _, w := range run.Faults.Windows {
		if err := shadeFault(decisions, w, 0, yMax*1.1); err != nil {
			return nil, nil, err
		}
		if err := shadeFault(latency, w, 0, pHi); err != nil {
			return nil, nil, err
		}
	}
	for i, s := range series {
		l, err := line(lines[i], s.color, vg.Points(1.5))
		if err != nil {
			return nil, nil, err
		}
		if s.dots {
			l.Dashes = dots
		}
		decisions.Add(l)
	}
	decisions.X.Min, decisions.X.Max = 0, xMax
	decisions.Y.Min, decisions.Y.Max = 0, yMax*1.1
	latency.X.Min, latency.X.Max = 0, xMax
	if len(p99) == 0 {
		markNoData(latency, "no p99 per bin")
		return decisions, latency, nil
	}
	l, err := line(p99, inkColor, vg.Points(1.5))
	if err != nil {
		return nil, nil, err
	}
	latency.Add(l)
	latency.Y.Min, latency.Y.Max = 0, pHi
	return decisions, latency, nil
}

// shadeFault shades fault w's window, from its start (scheduled, or seen
// for an unscheduled one) to the later of its scheduled and observed end
// (an instant fault at least one 50ms sliver wide), and, lighter, the
// recovery after it, from y0 to y1.
func shadeFault(p *plot.Plot, w result.FaultWindow, y0, y1 float64) error {
	start := float64(w.Window.StartMs) / 1000
	end := float64(max(w.ScheduledEndMs, w.ObservedEndMs, w.Window.StartMs+50)) / 1000
	spans := []struct {
		from, to float64
		shade    color.Color
	}{
		{start, end, faultWindowShade},
		{float64(w.Recovery.StartMs) / 1000, float64(w.Recovery.EndMs) / 1000, faultRecoveryShade},
	}
	for _, s := range spans {
		if s.to <= s.from {
			continue
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: s.from, Y: y0}, {X: s.from, Y: y1}, {X: s.to, Y: y1}, {X: s.to, Y: y0}})
		if err != nil {
			return err
		}
		band.Color = s.shade
		band.LineStyle.Width = 0
		p.Add(band)
	}
	return nil
}
