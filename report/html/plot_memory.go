package html

import (
	"fmt"

	"github.com/rlbench/rlbench/result"
)

// memoryPerIdentity draws, per scenario, one bar per algorithm for the
// Redis memory one identity's state cost (used_memory delta over the
// identities holding a key).
func memoryPerIdentity(v *view) (drawing, error) {
	p := newPlot("Redis memory per identity", "scenario", "bytes per identity (used_memory delta / identities)")
	groups := v.scenariosWith(func(run *result.Run) bool { _, ok := run.Memory.PerIdentity(); return ok })
	if len(groups) == 0 {
		return markNoData(p, fmt.Sprintf("no run had %d identities holding a key, too few for memory per identity", result.MinIdentitiesForBytes)), nil
	}
	if len(groups) > maxBarGroups {
		p, top, err := stripPlot(v, "Redis memory per identity", "bytes per identity (used_memory delta / identities)", groups,
			func(run *result.Run) (float64, bool) { return run.Memory.PerIdentity() })
		if err != nil {
			return nil, err
		}
		padTop(p, top, 0.3)
		return p, nil
	}
	var algs []string
	for _, alg := range v.algorithms {
		for _, s := range groups {
			if run := v.run(alg, s); run != nil {
				if _, ok := run.Memory.PerIdentity(); ok {
					algs = append(algs, alg)
					break
				}
			}
		}
	}
	layout := newBarLayout(len(groups), len(algs))
	top := 0.0
	for i, alg := range algs {
		values := make([]float64, len(groups))
		texts := make([]string, len(groups))
		for g, s := range groups {
			run := v.run(alg, s)
			if run == nil {
				continue
			}
			b, ok := run.Memory.PerIdentity()
			if !ok {
				continue
			}
			values[g] = max(b, 0)
			texts[g] = fmt.Sprintf("%.0f B", b)
			top = max(top, values[g])
		}
		if err := layout.labelledBars(p, i, alg, v.colors.color(alg), values, texts); err != nil {
			return nil, err
		}
	}
	nominalGroups(p, groups)
	padTop(p, top, 0.3)
	return p, nil
}

// hasMemoryPerIdentity says whether any run has a memory-per-identity
// figure; without one the plot is left out, and the page says why.
func (v *view) hasMemoryPerIdentity() bool {
	return len(v.scenariosWith(func(run *result.Run) bool { _, ok := run.Memory.PerIdentity(); return ok })) > 0
}
