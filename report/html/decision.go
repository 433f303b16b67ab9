package html

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/verdict"
)

// projectedIdentities is the population a decision summary always projects
// memory onto, beside the one the profile names.
const projectedIdentities = 1_000_000

// decision answers, from this run's own figures only, the question a
// reader comes with: which limiter should I use, and what will it cost me?
// A few sentences, one row per algorithm, and what could not be said and
// why.
type decision struct {
	Sentences []string
	Rows      []decisionRow
	// Recommendation ends the table: which limiter fits best, by which
	// figures, and what the runner-up would save.
	Recommendation string
	// MemoryAt and MemoryAtMillion head the two memory columns.
	MemoryAt, MemoryAtMillion string
	// Ideal, when some run was set beside the ideal limiter, says which
	// one, and that it runs on the arrivals: the wrong-vs-ideal column's
	// note.
	Ideal string
	// Policies head a column each: the error policies the runs with
	// faults ran under, whose cost each row shows.
	Policies []string
	Missing  []string
}

// decisionRow is one algorithm's line of the summary table.
type decisionRow struct {
	Algorithm, Color            string
	Promise                     string
	Broken, Unaudited, Untested bool
	// Replayed says some run judged it decision by decision against its
	// reference model; otherwise the audit held it to its bound only.
	Replayed                             bool
	PastPolicy, ServerUs, ClientP99, CPU string
	MemoryAt, MemoryAtMillion            string
	// Wrong is its share of decisions decided otherwise than the ideal
	// limiter, with its false admits + false denies.
	Wrong string
	// PolicyCosts are the row's cells under Policies.
	PolicyCosts []string

	// The figures behind the cells, for the sentences.
	usPerCall, worstP99, bytesPerIdentity          float64
	haveServer, haveClient, haveMemory, havePolicy bool
	slipped                                        bool
	excess                                         int64
	excessScenario, p99Scenario                    string
}

// decide builds the decision summary of v's result.
func decide(v *view) decision {
	var d decision
	n := report.ProjectionIdentities(v.r)
	d.MemoryAt = "memory at " + report.FormatCountShort(n) + " identities"
	if n != projectedIdentities {
		d.MemoryAtMillion = "memory at 1M identities"
	}
	costs := report.AlgorithmCosts(v.r)
	if ideal, ok := report.IdealOfCosts(costs, v.r.Profile.Policy); ok {
		d.Ideal = "Wrong vs ideal: the share of decisions a limiter decided otherwise than " + ideal +
			", run on the same arrivals (not on what the limiter admitted), with its false admits + false denies."
	}
	d.Policies = report.ErrorPolicies(v.r)
	for _, alg := range v.algorithms {
		row := decideAlgorithm(v, alg, costs[alg], n, d.MemoryAtMillion != "")
		for _, p := range d.Policies {
			cell := dash
			if c := costs[alg]; c != nil {
				if pc, ok := c.Policy(p); ok {
					cell = pc.Cell()
				}
			}
			row.PolicyCosts = append(row.PolicyCosts, cell)
		}
		d.Rows = append(d.Rows, row)
	}
	d.Sentences = decisionSentences(v, d.Rows)
	d.Missing = missingFigures(v, d)
	d.Recommendation = report.Recommend(v.r, v.judgement).Sentence(report.FormatPolicy(v.r.Profile.Policy))
	return d
}

func decideAlgorithm(v *view, alg string, costs *report.Costs, identities int64, millionToo bool) decisionRow {
	row := decisionRow{Algorithm: alg, Color: hexColor(v.colors.color(alg)), PastPolicy: dash, ServerUs: dash,
		ClientP99: dash, CPU: dash, MemoryAt: dash, MemoryAtMillion: dash, Wrong: dash}
	row.excess = -1
	if costs != nil {
		if costs.HaveWrong {
			row.Wrong = report.WrongCell(costs)
		}
		row.usPerCall, row.haveServer = costs.UsecPerCall, costs.HaveServer
		row.bytesPerIdentity, row.haveMemory = costs.BytesPerIdentity, costs.HaveMemory
		if costs.HaveExcess {
			row.excess, row.excessScenario = costs.PolicyExcess, costs.ExcessScenario
		}
		row.worstP99, row.p99Scenario, row.haveClient = float64(costs.WorstP99Us), costs.P99Scenario, costs.HaveP99
		row.slipped, row.Replayed = costs.Slipped, costs.Replayed
	}
	row.Promise = report.PromiseCell(v.judgement, alg)
	switch v.judgement.Limiter(alg).Promise {
	case verdict.NotAudited:
		row.Unaudited = true
	case verdict.Untested:
		row.Untested = true
	case verdict.Broken:
		row.Broken = true
	}
	if row.excess >= 0 {
		row.havePolicy = true
		row.PastPolicy = report.FormatCount(row.excess)
		if row.excess > 0 {
			row.PastPolicy += " (" + row.excessScenario + ")"
		}
	}
	if row.haveServer {
		row.ServerUs = fmt.Sprintf("%.1f µs", row.usPerCall)
		if rate, source := cpuRate(v, alg); rate > 0 {
			row.CPU = fmt.Sprintf("%.1f%% of a core at %s/s (%s)", row.usPerCall*rate/1e4, report.FormatRate(rate), source)
		}
	}
	switch {
	case row.haveClient && costs.P99InFaults:
		row.ClientP99 = fmt.Sprintf("%s (%s, in faults)", report.FormatMicros(int64(row.worstP99)), row.p99Scenario)
	case row.haveClient:
		row.ClientP99 = fmt.Sprintf("%s (%s)", report.FormatMicros(int64(row.worstP99)), row.p99Scenario)
	case row.slipped:
		row.ClientP99 = "— (generator-bound)"
	}
	if row.haveMemory {
		row.MemoryAt = report.FormatSize(row.bytesPerIdentity*float64(identities)) + " (" + costs.MemoryScenario + ")"
		if millionToo {
			row.MemoryAtMillion = report.FormatSize(row.bytesPerIdentity * projectedIdentities)
		}
	}
	return row
}

// cpuRate is the decision rate to project the server's CPU at: the
// algorithm's open-loop run with the highest offered rate (the load a user
// planned), else its fastest closed-loop run; with the scenario's name.
func cpuRate(v *view, alg string) (float64, string) {
	best, source, target := 0.0, "", 0.0
	for _, s := range v.scenarios {
		if run := v.run(alg, s); run != nil && run.Rate.TargetPerS > target {
			target, best, source = run.Rate.TargetPerS, run.Rate.AchievedPerS, s
		}
	}
	if best > 0 {
		return best, source
	}
	for _, s := range v.scenarios {
		if run := v.run(alg, s); run != nil && run.Rate.AchievedPerS > best {
			best, source = run.Rate.AchievedPerS, s
		}
	}
	return best, source
}

// decisionSentences says what the table shows, in words: each sentence
// names what was checked, and compares algorithms only on one scenario.
func decisionSentences(v *view, rows []decisionRow) []string {
	var out []string
	var replayed, bounded, untested, broken, unaudited []string
	for _, r := range rows {
		switch {
		case r.Broken:
			broken = append(broken, r.Algorithm)
		case r.Unaudited:
			unaudited = append(unaudited, r.Algorithm)
		case r.Untested:
			untested = append(untested, r.Algorithm)
		case r.Replayed:
			replayed = append(replayed, r.Algorithm)
		default:
			bounded = append(bounded, r.Algorithm)
		}
	}
	if len(replayed) > 0 {
		out = append(out, fmt.Sprintf("Kept its promise (nothing admitted beyond its own bound, every decision as its reference model says): %s.", list(replayed)))
	}
	if len(bounded) > 0 {
		out = append(out, fmt.Sprintf("Kept its bound (nothing admitted beyond it; its decisions were not replayed against a reference model): %s.", list(bounded)))
	}
	if len(broken) > 0 {
		out = append(out, fmt.Sprintf("Broke its promise: %s. Do not use it as it is.", list(broken)))
	}
	if len(untested) > 0 {
		out = append(out, fmt.Sprintf("Untested: its runs could not have shown an admission beyond its promise, so rlbench cannot say whether it keeps it: %s.", list(untested)))
	}
	if len(unaudited) > 0 {
		out = append(out, fmt.Sprintf("Not audited, so rlbench cannot say whether it keeps its promise: %s.", list(unaudited)))
	}
	if s, past := pastPolicy(v); len(past) > 1 {
		limit := report.FormatPolicy(v.r.Profile.Policy)
		out = append(out, fmt.Sprintf("Most one identity got past the policy (%s) within one window, in %s: %s.", limit, s, strings.Join(past, ", ")))
	}
	if r, ok := fastest(rows, func(r decisionRow) (float64, bool) { return r.usPerCall, r.haveServer }); ok {
		out = append(out, fmt.Sprintf("Fastest at the server: %s, %.1f µs of Redis time per decision.", r.Algorithm, r.usPerCall))
	}
	if r, ok := fastest(rows, func(r decisionRow) (float64, bool) { return r.worstP99, r.haveClient }); ok {
		out = append(out, fmt.Sprintf("Fastest at the client: %s, with the lowest worst p99 over its scenarios (%s in %s).",
			r.Algorithm, report.FormatMicros(int64(r.worstP99)), r.p99Scenario))
	}
	if r, ok := fastest(rows, func(r decisionRow) (float64, bool) { return r.bytesPerIdentity, r.haveMemory }); ok {
		out = append(out, fmt.Sprintf("Cheapest in memory: %s, %s per identity.", r.Algorithm, report.FormatSize(r.bytesPerIdentity)))
	}
	return out
}

// pastPolicy compares how far one identity got past the policy, like with
// like: within the scenario that the most audited algorithms ran (of
// those, the one where some got furthest past it), each algorithm's
// figure there, most first.
func pastPolicy(v *view) (string, []string) {
	type figure struct {
		alg    string
		excess int64
	}
	var best []figure
	scenario := ""
	for _, s := range v.scenarios {
		var figs []figure
		for _, alg := range v.algorithms {
			if run := v.run(alg, s); run != nil && run.Audit != nil {
				figs = append(figs, figure{alg, run.Audit.PolicyExcess})
			}
		}
		most := func(fs []figure) int64 {
			var m int64
			for _, f := range fs {
				m = max(m, f.excess)
			}
			return m
		}
		if len(figs) > len(best) || len(figs) == len(best) && len(figs) > 0 && most(figs) > most(best) {
			best, scenario = figs, s
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].excess > best[j].excess })
	parts := make([]string, len(best))
	for i, f := range best {
		parts[i] = fmt.Sprintf("%s %s", f.alg, report.FormatCount(f.excess))
	}
	return scenario, parts
}

// fastest is the row with the smallest figure among those that have it.
func fastest(rows []decisionRow, figure func(decisionRow) (float64, bool)) (decisionRow, bool) {
	var best decisionRow
	found := false
	for _, r := range rows {
		f, ok := figure(r)
		if !ok {
			continue
		}
		if b, _ := figure(best); !found || f < b {
			best, found = r, true
		}
	}
	return best, found
}

// missingFigures says which of the summary's figures this result cannot
// give, and why: a sentence for each cause of a dash in d's table.
func missingFigures(v *view, d decision) []string {
	rows := d.Rows
	var out []string
	var noServer, noMemory, noExcess []string
	for _, r := range rows {
		if !r.haveServer {
			noServer = append(noServer, r.Algorithm)
		}
		if !r.havePolicy {
			noExcess = append(noExcess, r.Algorithm)
		}
		if !r.haveMemory {
			noMemory = append(noMemory, r.Algorithm)
		}
	}
	var slipped []string
	for _, r := range rows {
		if !r.haveClient && r.slipped {
			slipped = append(slipped, r.Algorithm)
		}
	}
	if len(v.r.Runs) > 0 && len(report.ErrorPolicies(v.r)) > 0 {
		out = append(out, "Each error policy's cost: under the scheduled faults, how far its admissions on error took one identity past the policy, "+
			"what it let through that the limiter would have denied, and what it denied in error that the limiter would have admitted "+
			"(the error policies side by side, below, have every figure).")
	}
	var inFaults []string
	for _, r := range rows {
		if strings.Contains(r.ClientP99, ", in faults)") {
			inFaults = append(inFaults, r.Algorithm)
		}
	}
	if len(inFaults) > 0 {
		out = append(out, fmt.Sprintf("The worst p99 of %s was measured through the scheduled faults, which held the calls: the faults table has each fault's own figures.", list(inFaults)))
	}
	if len(slipped) > 0 {
		out = append(out, fmt.Sprintf("No client latency for %s: in every run the generator fell behind its schedule, so the latency measured is its own queue "+
			"(more concurrency, pipelining or a lower rate would keep the schedule).", list(slipped)))
	}
	var noWrong, noClient, noCPU []string
	for _, r := range rows {
		if d.Ideal != "" && r.Wrong == dash {
			noWrong = append(noWrong, r.Algorithm)
		}
		if r.ClientP99 == dash {
			noClient = append(noClient, r.Algorithm)
		}
		if r.CPU == dash && r.haveServer {
			noCPU = append(noCPU, r.Algorithm)
		}
	}
	for i, p := range d.Policies {
		var none []string
		for _, r := range rows {
			if r.PolicyCosts[i] == dash {
				none = append(none, r.Algorithm)
			}
		}
		if len(none) > 0 {
			out = append(out, fmt.Sprintf("No %s cost for %s: no run of %s had faults under %s.", p, list(none), plural.Noun(len(none), "it", "them"), p))
		}
	}
	if len(noCPU) > 0 {
		out = append(out, fmt.Sprintf("No Redis CPU at the measured rate for %s: no run of %s achieved a rate to project it at.", list(noCPU), plural.Noun(len(noCPU), "it", "them")))
	}
	costs := report.AlgorithmCosts(v.r)
	for _, m := range []struct {
		what string
		algs []string
		why  func(*report.Costs) string
	}{
		{"figure of how far one identity got past the policy", noExcess, func(c *report.Costs) string { return c.NoExcess }},
		{"share of decisions wrong vs the ideal", noWrong, func(c *report.Costs) string { return c.NoWrong }},
		{"server time per decision (nor Redis CPU at the measured rate)", noServer, func(c *report.Costs) string { return c.NoServer }},
		{"client latency", noClient, func(c *report.Costs) string { return c.NoP99 }},
		{"memory per identity", noMemory, func(c *report.Costs) string { return c.NoMemory }},
	} {
		// One line per cause, naming the algorithms it applies to.
		var order []string
		byWhy := map[string][]string{}
		for _, alg := range m.algs {
			why := ""
			if c := costs[alg]; c != nil {
				why = m.why(c)
			}
			if _, ok := byWhy[why]; !ok {
				order = append(order, why)
			}
			byWhy[why] = append(byWhy[why], alg)
		}
		for _, why := range order {
			if why == "" {
				why = "no run measured it"
			}
			out = append(out, fmt.Sprintf("No %s for %s: %s.", m.what, list(byWhy[why]), why))
		}
	}
	return out
}

// list joins names as people write them: a, b and c.
func list(names []string) string {
	names = slices.Clone(names)
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
