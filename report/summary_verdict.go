package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// headline is the summary's first line: the verdict and, on a fail, its
// first reason; on a pass, the negative controls that were caught.
func headline(j verdict.Judgement) string {
	if j.Verdict == result.Fail && len(j.Failures) > 0 {
		line := "verdict: fail: " + j.Failures[0].Text
		if n := len(j.Failures) - 1; n > 0 {
			line += fmt.Sprintf(" (and %d more, listed at the end)", n)
		}
		return line
	}
	if len(j.Caught) > 0 {
		return "verdict: " + j.Verdict + "; " + strings.Join(j.Caught, "; ")
	}
	return "verdict: " + j.Verdict
}

// writeVerdict prints the verdict as the summary's last lines, each reason
// (or caught negative control) on a line of its own below it.
func writeVerdict(w io.Writer, j verdict.Judgement) {
	fmt.Fprintf(w, "\nverdict: %s\n", j.Verdict)
	for _, f := range j.Failures {
		fmt.Fprintln(w, "  "+f.Text)
	}
	for _, line := range j.Caught {
		fmt.Fprintln(w, "  "+line)
	}
}

// evictionNotes flags the runs whose limiter state the server dropped, and
// an eviction policy changed in the middle of a run.
func evictionNotes(r *result.Result, j verdict.Judgement) []string {
	var out []string
	for i := range r.Runs {
		run := &r.Runs[i]
		e := run.Eviction
		if reset, ok := j.Runs[i].Finding(verdict.StateReset); ok {
			out = append(out, "FAIL "+reset.Text+"; its overshoot and mismatches are not the limiter's")
			continue
		}
		if e != nil && e.PolicyBefore != e.PolicyAfter {
			out = append(out, fmt.Sprintf("%s: maxmemory-policy changed from %s to %s during the run (no key was evicted)", run.Key(), e.PolicyBefore, e.PolicyAfter))
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
