package html

import (
	"strconv"

	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// admittedVsBound draws, per scenario, one bar per algorithm for the most
// requests one identity had admitted within any window-long interval, in
// front of a lighter box up to the algorithm's own bound for that
// interval, with the policy limit as a dashed line across. A fixed
// window's 2x reads at a glance: its bar reaches twice the line, and still
// stays inside its own box.
//
// When scenarios enforce policies of their own, each bar is in multiples of
// its run's limit, and the line at 1 is every scenario's limit.
func admittedVsBound(v *view) (drawing, error) {
	mixed := report.MixedPolicies(v.r)
	yLabel := "requests of one identity in one window"
	if mixed {
		yLabel = "admitted in one window / the run's policy limit"
	}
	p := newPlot("Most admitted in one window vs policy limit and own bound", "scenario", yLabel)
	groups := v.scenariosWith(func(run *result.Run) bool { return run.Audit != nil })
	if len(groups) == 0 {
		msg := "this result has no audit figures"
		if len(v.r.Runs) == 0 {
			msg = "this result has no runs"
		}
		return markNoData(p, msg), nil
	}
	if len(groups) > maxBarGroups {
		return admittedShareOfBound(v, groups)
	}
	layout := newBarLayout(len(groups), len(v.algorithms))
	top := float64(v.r.Profile.Policy.Limit)
	if mixed {
		top = 1
	}
	for i, alg := range v.algorithms {
		admitted := make([]float64, len(groups))
		bound := make([]float64, len(groups))
		texts := make([]string, len(groups))
		for g, s := range groups {
			run := v.run(alg, s)
			if run == nil || run.Audit == nil {
				continue
			}
			scale := 1.0
			if mixed {
				scale = float64(v.r.RunPolicy(run).Limit)
			}
			admitted[g] = float64(run.Audit.MaxWindowAdmitted) / scale
			bound[g] = float64(run.Audit.BoundWindow) / scale
			texts[g] = strconv.FormatInt(run.Audit.MaxWindowAdmitted, 10)
			top = max(top, admitted[g], bound[g])
		}
		col := v.colors.color(alg)
		if err := layout.bars(p, i, bound, 0.9, tint(col, 0.8), col); err != nil {
			return nil, err
		}
		if err := layout.bars(p, i, admitted, 0.5, col, nil); err != nil {
			return nil, err
		}
		if err := layout.labels(p, i, admitted, texts); err != nil {
			return nil, err
		}
		p.Legend.Add(alg, swatch{fill: col})
	}
	p.Legend.Add("light box: the algorithm's own bound for one window", swatch{fill: tint(inkColor, 0.8), outline: inkColor})
	limitAt, label := float64(v.r.Profile.Policy.Limit), "policy limit: "+report.FormatPolicy(v.r.Profile.Policy)
	if mixed {
		limitAt, label = 1, "each scenario's policy limit"
	}
	if limitAt > 0 {
		limit := horizontal(limitAt, limitColor, true)
		limit.Width = vg.Points(1.5)
		p.Add(limit)
		p.Legend.Add(label, limit)
	}
	nominalGroups(p, groups)
	padTop(p, top, 0.35)
	return p, nil
}

// admittedShareOfBound is admittedVsBound for more scenarios than bars
// can show: for each algorithm, one point per scenario at the most one
// identity had admitted in one window as a share of the algorithm's own
// bound. A point above the line at 1 is a limiter that broke its promise.
func admittedShareOfBound(v *view, groups []string) (drawing, error) {
	p, top, err := stripPlot(v, "Most admitted in one window as a share of the own bound", "most admitted in one window / own bound", groups,
		func(run *result.Run) (float64, bool) {
			a := run.Audit
			if a == nil || a.BoundWindow <= 0 {
				return 0, false
			}
			return float64(a.MaxWindowAdmitted) / float64(a.BoundWindow), true
		})
	if err != nil {
		return nil, err
	}
	bound := horizontal(1, limitColor, true)
	p.Add(bound)
	p.Legend.Add("the algorithm's own bound: above it, a broken promise", bound)
	padTop(p, max(top, 1), 0.35)
	return p, nil
}
