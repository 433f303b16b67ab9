package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// headline is the summary's first line: the verdict and, on a fail, its
// first reason; on a pass, the negative controls that were caught.
func (j Judgement) headline() string {
	if j.Verdict == result.Fail && len(j.Reasons) > 0 {
		line := "verdict: fail: " + j.Reasons[0]
		if n := len(j.Reasons) - 1; n > 0 {
			line += fmt.Sprintf(" (and %d more, listed at the end)", n)
		}
		return line
	}
	if len(j.Caught) > 0 {
		return "verdict: " + j.Verdict + "; " + strings.Join(j.Caught, "; ")
	}
	return "verdict: " + j.Verdict
}

// write prints the verdict as the summary's last lines, each reason (or
// caught negative control) on a line of its own below it.
func (j Judgement) write(w io.Writer) {
	fmt.Fprintf(w, "\nverdict: %s\n", j.Verdict)
	for _, line := range j.Reasons {
		fmt.Fprintln(w, "  "+line)
	}
	for _, line := range j.Caught {
		fmt.Fprintln(w, "  "+line)
	}
}

// evictionNotes flags the runs whose limiter state the server dropped, and
// an eviction policy changed in the middle of a run.
func evictionNotes(r *result.Result) []string {
	var out []string
	for i := range r.Runs {
		run := &r.Runs[i]
		e := run.Eviction
		switch {
		case e == nil:
		case e.ResetState():
			out = append(out, "FAIL "+resetReason(run)+"; its overshoot and mismatches are not the limiter's")
		case e.PolicyBefore != e.PolicyAfter:
			out = append(out, fmt.Sprintf("%s: maxmemory-policy changed from %s to %s during the run (no key was evicted)", run.Key(), e.PolicyBefore, e.PolicyAfter))
		}
	}
	return out
}
