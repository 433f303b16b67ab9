package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/internal/numfmt"
	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// headline is the summary's first line: the verdict and, on a fail, its
// first reason; on a pass, the negative controls that were caught.
func headline(j verdict.Judgement) string {
	switch {
	case j.Verdict == result.Fail && len(j.Failures) > 0:
		return "verdict: fail: " + j.Failures[0].Text + more(len(j.Failures)-1)
	case j.Verdict == result.Inconclusive && len(j.Inconclusive) > 0:
		return "verdict: inconclusive: " + strings.Replace(j.Inconclusive[0].Text, ": inconclusive: ", ": ", 1) + more(len(j.Inconclusive)-1)
	case len(j.Caught) > 0:
		return "verdict: " + j.Verdict + "; " + strings.Join(j.Caught, "; ")
	case len(j.Accepted) > 0:
		return fmt.Sprintf("verdict: %s (%d %s it could not judge, accepted by accept_inconclusive, listed at the end)", j.Verdict, len(j.Accepted), plural.Noun(len(j.Accepted), "thing", "things"))
	}
	return "verdict: " + j.Verdict
}

// more says how many more reasons the end of the summary lists.
func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more, listed at the end)", n)
}

// writeVerdict prints the verdict as the summary's last lines, each reason
// (or caught negative control) on a line of its own below it: what failed,
// what could not be judged, and what could not be judged but the scenario
// accepts.
func writeVerdict(w io.Writer, j verdict.Judgement) {
	fmt.Fprintf(w, "\nverdict: %s\n", j.Verdict)
	for _, f := range j.Failures {
		fmt.Fprintln(w, "  "+f.Text)
	}
	for _, f := range j.Inconclusive {
		fmt.Fprintln(w, "  "+f.Text)
	}
	for _, f := range j.Accepted {
		fmt.Fprintln(w, "  accepted (accept_inconclusive): "+f.Text)
	}
	for _, line := range j.Caught {
		fmt.Fprintln(w, "  "+line)
	}
}

// evictionNotes flags the runs whose limiter state the server dropped, and
// an eviction policy changed in the middle of a run.
func evictionNotes(r *result.Result, j verdict.Judgement) []note {
	var out []note
	for i := range r.Runs {
		run := &r.Runs[i]
		e := run.Eviction
		if reset, ok := j.Runs[i].Finding(verdict.StateReset); ok {
			out = append(out, note{kind: kindStateReset, where: run.Key(), text: "INCONCLUSIVE " + reset.Text + "; its overshoot and mismatches are not the limiter's"})
			continue
		}
		switch {
		case e != nil && e.Audited && e.EvictedKeys > 0:
			policy := "maxmemory-policy " + e.PolicyAfter
			if e.PolicyBefore != e.PolicyAfter {
				policy = fmt.Sprintf("maxmemory-policy changed from %s to %s", e.PolicyBefore, e.PolicyAfter)
			}
			out = append(out, note{kind: kindEvicted, where: run.Key(), text: fmt.Sprintf("%s: Redis evicted %s keys during the run (%s): the server's watch placed the evictions on the run's timeline, and the audit judged each decision in every state they may have left (any identity's state may have been evicted)",
				run.Key(), numfmt.Count(e.EvictedKeys), policy)})
		case e != nil && e.PolicyBefore != e.PolicyAfter:
			out = append(out, note{kind: kindPolicyChange, where: run.Key(), text: fmt.Sprintf("%s: maxmemory-policy changed from %s to %s during the run (no key was evicted)", run.Key(), e.PolicyBefore, e.PolicyAfter)})
		}
	}
	return out
}

// evictingPolicies are the eviction policies other than noeviction in
// force while the runs went on, as each run read them right before and
// right after its traffic, in the order they came; the policy read when
// rlbench connected only for a result without those readings. A policy
// set after the connection, or given back before the end, is the one the
// runs met.
func evictingPolicies(r *result.Result) []string {
	var seen []string
	add := func(p string) {
		if p != "" && p != "noeviction" && !slices.Contains(seen, p) {
			seen = append(seen, p)
		}
	}
	read := false
	for i := range r.Runs {
		if e := r.Runs[i].Eviction; e != nil {
			read = true
			add(e.PolicyBefore)
			add(e.PolicyAfter)
		}
	}
	if !read {
		add(r.Redis.MaxmemoryPolicy)
	}
	return seen
}
