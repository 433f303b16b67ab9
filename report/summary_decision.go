package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// algorithmOrder is the algorithms of r's runs in the profile's order,
// then any others as their runs first appear (the page's order too).
func algorithmOrder(r *result.Result) []string {
	ran := map[string]bool{}
	for i := range r.Runs {
		ran[r.Runs[i].Algorithm] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range r.Profile.Algorithms {
		if ran[a] && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for i := range r.Runs {
		if a := r.Runs[i].Algorithm; !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// PromiseCell says whether alg's limiter kept its promise, as the
// decision tables show it: kept, untested, not audited, or BROKEN in the
// scenarios that found it broken.
func PromiseCell(j verdict.Judgement, alg string) string {
	lim := j.Limiter(alg)
	if lim.Promise == verdict.Broken {
		return "BROKEN in " + strings.Join(lim.BrokenIn, ", ")
	}
	return lim.Promise.String()
}

// writeDecision prints the summary's answer to the question a reader
// comes with, right after the verdict: one line per algorithm saying
// whether its limiter is right and what it costs (how far one identity
// got past the policy, server time per decision, the worst p99 of the
// runs that kept their schedule, Redis memory per identity).
func writeDecision(w io.Writer, r *result.Result, j verdict.Judgement) error {
	algs := algorithmOrder(r)
	if len(algs) == 0 {
		return nil
	}
	costs := AlgorithmCosts(r)
	ideal, compared := IdealOfCosts(costs, r.Profile.Policy)
	policies := ErrorPolicies(r)
	fmt.Fprintln(w, "\nwhich limiter, is it right, what it costs:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "algorithm\tpromise\tmost past the policy\t"
	if compared {
		header += "wrong vs ideal\t"
	}
	for _, p := range policies {
		header += p + " cost\t"
	}
	fmt.Fprintln(tw, header+"server/decision\tworst p99\tmemory/identity\t")
	var why MissingCells
	inFaults := false
	for _, alg := range algs {
		c := costs[alg]
		why.Add("most past the policy", alg, c.NoExcess)
		why.Add("server/decision", alg, c.NoServer)
		why.Add("memory/identity", alg, c.NoMemory)
		if compared {
			why.Add("wrong vs ideal", alg, c.NoWrong)
		}
		why.Add("worst p99", alg, c.NoP99)
		var policyCells string
		for _, p := range policies {
			cell := "-"
			if pc, ok := c.Policy(p); ok {
				cell = pc.Cell()
			} else {
				why.Add(p+" cost", alg, "no run of it had faults under "+p)
			}
			policyCells += cell + "\t"
		}
		past, server, p99, memory := "-", "-", "-", "-"
		if c.HaveExcess {
			past = FormatCount(c.PolicyExcess)
			if c.PolicyExcess > 0 {
				past += " (" + c.ExcessScenario + ")"
			}
		}
		if compared {
			past += "\t" + WrongCell(c)
		}
		if c.HaveServer {
			server = fmt.Sprintf("%.1fus", c.UsecPerCall)
		}
		switch {
		case c.HaveP99 && c.P99InFaults:
			p99 = FormatMicros(c.WorstP99Us) + " (" + c.P99Scenario + ", in faults)"
			inFaults = true
		case c.HaveP99:
			p99 = FormatMicros(c.WorstP99Us) + " (" + c.P99Scenario + ")"
		case c.Slipped:
			p99 = "- (generator-bound)"
		}
		if c.HaveMemory {
			memory = FormatSize(c.BytesPerIdentity) + " (" + c.MemoryScenario + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%s\t%s\t\n", alg, PromiseCell(j, alg), past, policyCells, server, p99, memory)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if compared {
		fmt.Fprintln(w, "wrong vs ideal: the share of decisions a limiter decided otherwise than "+ideal+
			", run on the same arrivals (not on what the limiter admitted), with its false admits + false denies")
	}
	if len(policies) > 0 {
		fmt.Fprintln(w, "  (each error policy's cost under the scheduled faults: how far its admissions on error took one identity past the policy, "+
			"what it let through that the limiter would have denied, and what it denied in error that the limiter would have admitted)")
	}
	if inFaults {
		fmt.Fprintln(w, "  (a p99 \"in faults\" was measured through the scheduled faults, which held the calls: the faults table has each fault's own figures)")
	}
	for _, line := range why.Lines("-") {
		fmt.Fprintln(w, "  "+line)
	}
	if s := Recommend(r, j).Sentence(FormatPolicy(r.Profile.Policy)); s != "" {
		fmt.Fprintln(w, s)
	}
	return nil
}

// MissingCells gathers why a table's cells are dashes: for each column
// and reason, the algorithms it applies to, in the order they came.
type MissingCells struct {
	// Rows and Every, when set, say how many rows the table has and how
	// to name them all ("every run"): a cause of every row of a table of
	// more than two names them so, not one by one.
	Rows  int
	Every string
	order []string
	algs  map[string][]string
}

// Add notes that alg's cell of column is a dash because of why (nothing
// when why is empty).
func (m *MissingCells) Add(column, alg, why string) {
	if why == "" {
		return
	}
	k := column + "\x00" + why
	if m.algs == nil {
		m.algs = map[string][]string{}
	}
	if _, ok := m.algs[k]; !ok {
		m.order = append(m.order, k)
	}
	if !slices.Contains(m.algs[k], alg) {
		m.algs[k] = append(m.algs[k], alg)
	}
}

// Lines says each reason once, after the dash as the table shows it: "-
// memory/identity of a and b: why"; columns whose dashes have one cause
// for the same rows share a line ("- MEMORY USAGE and encodings of a: why").
func (m *MissingCells) Lines(dash string) []string {
	type line struct {
		columns []string
		of, why string
	}
	var lines []*line
	for _, k := range m.order {
		column, why, _ := strings.Cut(k, "\x00")
		of := joinAnd(m.algs[k])
		if n := len(m.algs[k]); m.Every != "" && n > 2 && n == m.Rows {
			of = fmt.Sprintf("%s (%d)", m.Every, n)
		}
		i := slices.IndexFunc(lines, func(l *line) bool { return l.of == of && l.why == why })
		if i < 0 {
			lines = append(lines, &line{of: of, why: why})
			i = len(lines) - 1
		}
		lines[i].columns = append(lines[i].columns, column)
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, fmt.Sprintf("%s %s of %s: %s", dash, joinAnd(l.columns), l.of, l.why))
	}
	return out
}

// writeNotes prints the notes grouped by kind, the limiter's own failures
// first: a line per kind naming the runs it applies to, then, indented,
// what the kind means (once) and each run's own figures.
func writeNotes(w io.Writer, groups []NoteGroup) {
	heading := ""
	for _, g := range groups {
		h := "notes:"
		if g.Limiter {
			h = "the limiter's own failures:"
		}
		if h != heading {
			fmt.Fprintln(w, "\n"+h)
			heading = h
		}
		fmt.Fprintln(w, "! "+g.Line)
		if g.Explanation != "" {
			fmt.Fprintln(w, "    "+g.Explanation)
		}
		for _, d := range g.Details {
			fmt.Fprintln(w, "    - "+d)
		}
	}
}

// WrongCell is an algorithm's figure beside the ideal limiter as the
// decision tables show it: the share of its decisions decided otherwise
// than the ideal, then its false admits + false denies ("0.85% (12+3)");
// "-" when no run was compared.
func WrongCell(c *Costs) string {
	if !c.HaveWrong {
		return "-"
	}
	return FormatShare(c.WrongShare()) + " (" + FormatCount(c.FalseAdmits) + "+" + FormatCount(c.FalseDenies) + ")"
}

// IdealOfCosts says which ideal limiter the algorithms' runs were set
// beside, in words ("an exact sliding window of 100 per 1s"), and whether
// any was.
func IdealOfCosts(costs map[string]*Costs, p result.PolicyInfo) (string, bool) {
	ideal, compared := "", false
	for _, c := range costs {
		switch {
		case !c.HaveWrong:
		case !compared:
			ideal, compared = c.Ideal, true
		case ideal != c.Ideal:
			ideal = mixedIdeals
		}
	}
	return DescribeIdeal(ideal, p), compared
}

// DescribeIdeal says in words the ideal limiter named ideal
// (result.IdealSlidingWindow or result.IdealTokenBucket) of policy p.
func DescribeIdeal(ideal string, p result.PolicyInfo) string {
	switch ideal {
	case result.IdealSlidingWindow:
		return fmt.Sprintf("the ideal limiter, an exact sliding window of %d per %s", p.Limit, FormatMillis(p.WindowMs))
	case result.IdealTokenBucket:
		capacity := p.Limit
		if p.Burst > 0 {
			capacity = p.Burst
		}
		return fmt.Sprintf("the ideal limiter, an exact token bucket of %d refilled at %d per %s", capacity, p.Limit, FormatMillis(p.WindowMs))
	}
	return "the ideal limiter of each run's policy"
}
