package report

import (
	"fmt"
	"io"
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
	fmt.Fprintln(w, "\nwhich limiter, is it right, what it costs:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tpromise\tmost past the policy\tserver/decision\tworst p99\tmemory/identity\t")
	for _, alg := range algs {
		c := costs[alg]
		past, server, p99, memory := "-", "-", "-", "-"
		if c.HaveExcess {
			past = FormatCount(c.PolicyExcess)
			if c.PolicyExcess > 0 {
				past += " (" + c.ExcessScenario + ")"
			}
		}
		if c.HaveServer {
			server = fmt.Sprintf("%.1fus", c.UsecPerCall)
		}
		switch {
		case c.HaveP99:
			p99 = FormatMicros(c.WorstP99Us) + " (" + c.P99Scenario + ")"
		case c.Slipped:
			p99 = "- (generator-bound)"
		}
		if c.HaveMemory {
			memory = FormatSize(c.BytesPerIdentity)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", alg, PromiseCell(j, alg), past, server, p99, memory)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s := Recommend(r, j).Sentence(FormatPolicy(r.Profile.Policy)); s != "" {
		fmt.Fprintln(w, s)
	}
	return nil
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
