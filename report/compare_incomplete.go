package report

import (
	"fmt"
	"math"

	"github.com/rlbench/rlbench/internal/numfmt"
	"github.com/rlbench/rlbench/result"
)

// A result that is incomplete cannot say "no regression": what it lacks
// was never measured, neither better nor unchanged. Compare lists why each
// side is incomplete, judges an incomplete run's figures only where they
// show a finding (an overshoot in part of a run is an overshoot), and
// reports every other figure of it as not measured.

// shortOfPlanShare is the share of its planned requests under which a run
// sent far fewer than its schedule held. Poisson arrivals are allowed
// poissonSlack standard deviations (the square root of the planned count)
// besides.
const (
	shortOfPlanShare = 0.9
	poissonSlack     = 4
)

// incompleteness says why r, the baseline or the current result (which),
// is incomplete: it did not complete, or some run of it is marked
// incomplete or sent far fewer requests than planned. Nothing when it is
// complete.
func incompleteness(which string, r *result.Result) []string {
	var out []string
	if !r.Complete {
		why := ""
		if r.IncompleteReason != "" {
			why = " (" + r.IncompleteReason + ")"
		}
		out = append(out, fmt.Sprintf("the %s result did not complete%s", which, why))
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		switch sent, planned, short := shortOfPlan(run); {
		case short && inFault(run):
			// As the verdict has it: what a fault (scheduled, or seen by
			// the server's watch) kept from being sent is the fault's.
			// The run's figures are still judged only where they show a
			// finding (partial).
		case run.Incomplete:
			why := ""
			if run.Note != "" {
				why = ": " + run.Note
			}
			out = append(out, fmt.Sprintf("%s of the %s result is incomplete%s", run.Key(), which, why))
		case short:
			out = append(out, fmt.Sprintf("%s of the %s result sent %s of %s planned requests", run.Key(), which, numfmt.Count(sent), numfmt.Count(planned)))
		}
	}
	return out
}

// partial reports whether run's figures cover only part of what it set
// out to measure.
func partial(run *result.Run) bool {
	_, _, short := shortOfPlan(run)
	return run.Incomplete || short
}

// inFault reports whether a fault, scheduled or seen by the server's
// watch, overlapped run: what it kept from being sent does not make the
// run incomplete, as it does not make its verdict inconclusive.
func inFault(run *result.Run) bool { return run.Faults != nil && len(run.Faults.Windows) > 0 }

// shortOfPlan reports whether run sent far fewer requests than its
// schedule held, with both counts; never for a run without a plan (a
// closed loop bound by time, a result from before plans were recorded).
func shortOfPlan(run *result.Run) (sent, planned int64, short bool) {
	sent, planned = run.Requests.Sent, run.Requests.Planned
	if planned <= 0 {
		return sent, planned, false
	}
	least := shortOfPlanShare * float64(planned)
	if run.Params.Arrival == "poisson" {
		least -= poissonSlack * math.Sqrt(float64(planned))
	}
	return sent, planned, float64(sent) < least
}
