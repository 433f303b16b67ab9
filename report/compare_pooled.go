package report

import (
	"fmt"
	"math"

	"github.com/rlbench/rlbench/result"
)

// A limiter's server cost is one figure measured again after each of its
// runs: every round decides the first request of fresh identities, the
// same path through the script whatever the scenario. So a comparison
// judges it once per limiter, over all its runs: the median of the runs'
// ratios (current over baseline, scenario by scenario, so that a
// scenario's own level cancels), against the spread the runs measured
// (each run's interquartile range over its median, the median of those on
// each side) narrowed by the root of the number of runs, as the median of
// that many ratios is. One run's odd rounds then neither raise an alarm
// nor hide a slower script: back to back on a loaded 2-CPU machine (load
// average 15 to 26), 272 ordered pairs of unchanged single runs of
// profiles/smoke.yaml moved the pooled ratio by at most 19% (standard
// deviation 4-6%) against tolerances of 12-23%, while the median
// comparison showed a script 1.47 times slower as 1.43 (scripts/gate-calibrate.sh).

// pooledSuffix names a row judged over all of a limiter's runs.
const pooledSuffix = "/*"

// pooledServerCost compares each limiter's relative.server_cost over all
// its runs both results measured it in; rows only for limiters with at
// least two such runs (with one, its run's own row is the judgement). It
// returns the rows and the limiters they judge.
func pooledServerCost(baseline, current *result.Result, tol Tolerances) ([]CompareRow, map[string]bool) {
	cur := map[string]*result.Run{}
	for i := range current.Runs {
		cur[current.Runs[i].Key()] = &current.Runs[i]
	}
	type pair struct{ b, c *result.Run }
	var order []string
	pairs := map[string][]pair{}
	for i := range baseline.Runs {
		b := &baseline.Runs[i]
		c, ok := cur[b.Key()]
		if !ok || partial(b) || partial(c) || b.Relative == nil || c.Relative == nil || b.Relative.ServerCost <= 0 || c.Relative.ServerCost <= 0 {
			continue
		}
		if _, seen := pairs[b.Algorithm]; !seen {
			order = append(order, b.Algorithm)
		}
		pairs[b.Algorithm] = append(pairs[b.Algorithm], pair{b, c})
	}
	var rows []CompareRow
	judged := map[string]bool{}
	for _, alg := range order {
		ps := pairs[alg]
		if len(ps) < 2 {
			continue
		}
		var ratios, bases, curs, spreadB, spreadC []float64
		for _, p := range ps {
			ratios = append(ratios, p.c.Relative.ServerCost/p.b.Relative.ServerCost)
			bases, curs = append(bases, p.b.Relative.ServerCost), append(curs, p.c.Relative.ServerCost)
			if s, ok := serverCostSpread(p.b); ok {
				spreadB = append(spreadB, s)
			}
			if s, ok := serverCostSpread(p.c); ok {
				spreadC = append(spreadC, s)
			}
		}
		n := len(ps)
		ratio := result.Median(ratios)
		row := CompareRow{Run: alg + pooledSuffix, Metric: "relative.server_cost", Baseline: result.Median(bases), Current: result.Median(curs), Ratio: ratio}
		t := tol.UsecPerCall
		spread := 0.0
		if len(spreadB) == n && len(spreadC) == n {
			spread = spreadWidths * math.Hypot(result.Median(spreadB), result.Median(spreadC)) / math.Sqrt(float64(n))
		}
		source := "--server"
		switch {
		case spread > 0 && tol.Given["server"] && spread > t:
			t, source = spread, "the spread they measured"
		case spread > 0 && !tol.Given["server"]:
			t, source = spread, "the spread they measured"
		}
		row.Allowed, row.Tolerance = fmt.Sprintf("+%.0f%%", 100*t), t
		switch {
		case ratio > 1+t:
			row.Verdict = Regressed
			row.Note = fmt.Sprintf("the median of %d runs' ratios, more than %s allows", n, source)
		case ratio < 1-t:
			row.Verdict = Improved
			row.Note = fmt.Sprintf("the median of %d runs' ratios, a fall larger than %s explains", n, source)
		default:
			row.Verdict = Same
			row.Note = fmt.Sprintf("the median of %d runs' ratios, within %s", n, source)
		}
		rows = append(rows, row)
		judged[alg] = true
	}
	return rows, judged
}
