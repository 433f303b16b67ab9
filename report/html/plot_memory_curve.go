package html

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// memoryCurvePoint is one run of a scenario group: how many identities held
// a key, and what each cost.
type memoryCurvePoint struct {
	identities float64
	bytes      float64
}

// memoryCurves collects, per scenario group (a scenario that listed several
// sizes) and algorithm, bytes per identity against identities, sorted by
// size. Groups with fewer than two sizes draw no curve and are left out.
func (v *view) memoryCurves() (groups []string, curves map[string]map[string][]memoryCurvePoint) {
	curves = map[string]map[string][]memoryCurvePoint{}
	for i := range v.r.Runs {
		run := &v.r.Runs[i]
		if _, ok := run.Memory.PerIdentity(); !ok || run.ScenarioGroup == "" {
			continue
		}
		if curves[run.ScenarioGroup] == nil {
			curves[run.ScenarioGroup] = map[string][]memoryCurvePoint{}
		}
		curves[run.ScenarioGroup][run.Algorithm] = append(curves[run.ScenarioGroup][run.Algorithm],
			memoryCurvePoint{identities: float64(run.Memory.Identities), bytes: run.Memory.BytesPerIdentity})
	}
	for g, byAlg := range curves {
		sizes := map[float64]bool{}
		for _, pts := range byAlg {
			sort.Slice(pts, func(i, j int) bool { return pts[i].identities < pts[j].identities })
			for _, p := range pts {
				sizes[p.identities] = true
			}
		}
		if len(sizes) < 2 {
			delete(curves, g)
			continue
		}
		groups = append(groups, g)
	}
	sort.Strings(groups)
	return groups, curves
}

// hasMemoryCurve says whether some scenario measured memory at several sizes.
func (v *view) hasMemoryCurve() bool {
	groups, _ := v.memoryCurves()
	return len(groups) > 0
}

// memoryCurve draws Redis memory per identity against the number of
// identities on a logarithmic axis, one line per algorithm (and scenario,
// when several scenarios listed sizes): whether a limiter's cost per
// identity stays flat as the keyspace grows, or jumps (a hash table
// doubling, an encoding change).
func memoryCurve(v *view) (drawing, error) {
	p := newPlot("Redis memory per identity as identities grow", "identities holding a key (log scale)", "bytes per identity")
	groups, curves := v.memoryCurves()
	if len(groups) == 0 {
		return markNoData(p, "no scenario measured memory at several sizes"), nil
	}
	lo, hi, top := math.Inf(1), math.Inf(-1), 0.0
	for _, g := range groups {
		for ai, alg := range v.algorithms {
			pts := curves[g][alg]
			if len(pts) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(pts))
			for i, pt := range pts {
				xys[i] = plotter.XY{X: pt.identities, Y: max(pt.bytes, 0)}
				lo, hi, top = math.Min(lo, pt.identities), math.Max(hi, pt.identities), math.Max(top, pt.bytes)
			}
			// A shape per algorithm: two algorithms that cost the same
			// (token and leaky bucket) draw one line, and the marks still
			// show both.
			l, marks, err := markedLine(xys, v.colors.color(alg), ai)
			if err != nil {
				return nil, err
			}
			p.Add(l, marks)
			name := alg
			if len(groups) > 1 {
				name += " (" + g + ")"
			}
			p.Legend.Add(name, l, marks)
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.X.Min, p.X.Max = lo/1.5, hi*1.5
	padTop(p, top, 0.35)
	return p, nil
}
