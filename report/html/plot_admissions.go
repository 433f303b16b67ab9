package html

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// admissionsOverTime draws one tile per algorithm: allowed requests per
// second as a solid area in the algorithm's colour, denied ones stacked
// above as a lighter band, and the policy's limit for all the scenario's
// identities as a dashed line, over the bins the throughput plot uses.
// Tiles share their axes so they compare. A run with scheduled faults is
// scaled to the rate it offered: the backlog a fault releases (2,500/s
// against an offered 400/s and a policy of 200/s) would flatten the
// policy's line, so it is clipped, and the tile says how high it went.
func admissionsOverTime(v *view, scenario string) (drawing, error) {
	runs := v.scenarioRuns(scenario)
	title := "Admissions over time — scenario " + scenario
	xMax, yMax := 0.0, 0.0
	count := 0
	binned := map[*result.Run][]spannedBin{}
	axis := "time (s, decisions counted when decided)"
	peak := map[*result.Run]float64{}
	for _, run := range runs {
		bins, width := fullBins(run)
		binned[run] = bins
		count += len(bins)
		faulted := scheduledFaults(run) && run.Rate.TargetPerS > 0
		for _, b := range bins {
			xMax = max(xMax, float64(b.TMs+b.spanMs)/1000)
			perS := float64(b.Allowed+b.Denied) * 1000 / float64(b.spanMs)
			if faulted {
				// What the run offered bounds what it decides, but for
				// the backlog a fault held back.
				peak[run] = max(peak[run], perS)
				continue
			}
			yMax = max(yMax, perS)
		}
		if faulted {
			yMax = max(yMax, run.Rate.TargetPerS)
		}
		yMax = max(yMax, aggregateLimit(v.r, run))
		if len(bins) > 0 {
			axis = fmt.Sprintf("time (s; %s bins, decisions counted when decided)", report.FormatMillis(width))
		}
	}
	// Clip only what stands well above the rest: a spike that fits is drawn.
	clipped := false
	for _, run := range runs {
		if peak[run] > yMax/(1-0.3) {
			clipped = true
		} else {
			yMax = max(yMax, peak[run])
		}
	}
	if count == 0 {
		p := newPlot(title, axis, "requests/s")
		return markNoData(p, "no decisions over time in this scenario"), nil
	}
	var tiles []*plot.Plot
	for i, run := range runs {
		p := newPlot(run.Algorithm, axis, "requests/s")
		col := v.colors.color(run.Algorithm)
		p.Title.TextStyle.Color = col
		p.Title.TextStyle.Font.Size = vg.Points(12)
		if len(binned[run]) == 0 {
			markNoData(p, "no decisions over time")
			tiles = append(tiles, p)
			continue
		}
		allowed, total := stepAreas(binned[run])
		denied, err := plotter.NewPolygon(band(allowed, total))
		if err != nil {
			return nil, err
		}
		denied.Color = tint(col, 0.75)
		denied.LineStyle.Width = 0
		area, err := plotter.NewPolygon(band(floor(allowed), allowed))
		if err != nil {
			return nil, err
		}
		area.Color = tint(col, 0.25)
		area.LineStyle.Width = 0
		edge, err := line(allowed, col, vg.Points(1.5))
		if err != nil {
			return nil, err
		}
		p.Add(denied, area, edge)
		if i == 0 {
			p.Legend.Add("allowed", swatch{fill: tint(col, 0.25), outline: col})
			p.Legend.Add("denied", swatch{fill: tint(col, 0.75)})
		}
		if lim := aggregateLimit(v.r, run); lim > 0 {
			l := horizontal(lim, limitColor, true)
			p.Add(l)
			if i == 0 {
				p.Legend.Add(fmt.Sprintf("policy limit %s/s (%d per %s x %d %s)",
					report.FormatRate(lim), runLimit(v.r, run), report.FormatMillis(runWindowMs(v.r, run)), run.Identities, plural.Noun(run.Identities, "identity", "identities")), l)
			}
		}
		p.X.Min, p.X.Max = 0, xMax
		padTop(p, yMax, 0.3)
		if clipped && peak[run] > p.Y.Max {
			p.Legend.Add(fmt.Sprintf("clipped: after a fault, up to %s/s", report.FormatRate(peak[run])), swatch{fill: tint(col, 0.25), outline: col})
		}
		tiles = append(tiles, p)
	}
	return grid{title: title, plots: gridOf(tiles, 2)}, nil
}

// scheduledFaults reports whether run had faults its profile scheduled.
func scheduledFaults(run *result.Run) bool {
	if run.Faults == nil {
		return false
	}
	return slices.ContainsFunc(run.Faults.Windows, func(w result.FaultWindow) bool { return !w.Unscheduled })
}

// stepAreas turns bins into step outlines of the allowed rate and of the
// allowed + denied rate, per second: each bin is a flat segment over its
// span, as the counts are per whole bin.
func stepAreas(bins []spannedBin) (allowed, total plotter.XYs) {
	for _, b := range bins {
		from, to := float64(b.TMs)/1000, float64(b.TMs+b.spanMs)/1000
		perS := 1000 / float64(b.spanMs)
		a, d := float64(b.Allowed)*perS, float64(b.Allowed+b.Denied)*perS
		allowed = append(allowed, plotter.XY{X: from, Y: a}, plotter.XY{X: to, Y: a})
		total = append(total, plotter.XY{X: from, Y: d}, plotter.XY{X: to, Y: d})
	}
	return allowed, total
}

// band is the closed outline between a lower and an upper curve over the
// same x values.
func band(lower, upper plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, 0, len(lower)+len(upper))
	out = append(out, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		out = append(out, lower[i])
	}
	return out
}

// floor is the x axis under a curve.
func floor(xys plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, p := range xys {
		out[i] = plotter.XY{X: p.X}
	}
	return out
}

// aggregateLimit is what the policy admits per second over all of the
// run's identities: limit per window, times identities.
func aggregateLimit(r *result.Result, run *result.Run) float64 {
	limit, windowMs := runLimit(r, run), runWindowMs(r, run)
	if limit <= 0 || windowMs <= 0 || run.Identities <= 0 {
		return 0
	}
	return float64(limit) * float64(run.Identities) * 1000 / float64(windowMs)
}

// runLimit and runWindowMs are the run's policy, or the profile's when the
// run does not carry it.
func runLimit(r *result.Result, run *result.Run) int64 { return r.RunPolicy(run).Limit }

func runWindowMs(r *result.Result, run *result.Run) int64 { return r.RunPolicy(run).WindowMs }
