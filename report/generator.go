package report

import (
	"fmt"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// CPUWaitNoted is the share of a run's traffic time rlbench's threads may
// wait for a CPU before the summary says the run measured the machine as
// much as the limiter (result.CPUWaitStarved, which a capacity search
// also reads).
const CPUWaitNoted = result.CPUWaitStarved

// generatorNotes says which runs rlbench itself was starved of CPU in, and,
// when the kernel groups processes by session, how that treats a Redis
// that runs as a service; of a run whose failed calls past the error
// budget the verdict judged, whose they were (as j found).
func generatorNotes(r *result.Result, j verdict.Judgement) []note {
	explain := "other processes on this machine held rlbench's CPUs, so these runs' rate and latency are partly the machine's, not the limiter's"
	autogroup := ""
	if a := r.Host.SchedAutogroup; a != nil && *a {
		autogroup = "; with scheduler autogroups on (kernel.sched_autogroup_enabled=1) contended CPUs are shared equally between sessions, " +
			"so a Redis that runs as a service gets a whole share while rlbench splits its session's with everything else started there"
	}
	const remedy = ". A quiet machine, or rlbench on another one, measures the limiter"
	var notes []note
	for i := range r.Runs {
		run := &r.Runs[i]
		g := run.Generator
		if g == nil || g.CPUWaitShare < CPUWaitNoted {
			continue
		}
		waited := fmt.Sprintf("rlbench waited for a CPU %.0f%% of the traffic's time (it ran %.0f%%)", 100*g.CPUWaitShare, 100*g.CPUShare)
		errs := ""
		if i < len(j.Runs) {
			switch {
			case j.Runs[i].Has(verdict.ErrorsNotLimiter):
				errs = "; its calls that got no answer are the machine's too, not the limiter's (the verdict is inconclusive, not a fail)"
			case j.Runs[i].Has(verdict.ErrorsOverBudget):
				errs = "; its failed calls are still the limiter's (see the verdict: an error Redis answered, or a script the server was as slow on as a call's timeout, is not the machine's)"
			}
		}
		notes = append(notes, note{kind: kindCPUWait, where: run.Key(),
			text: fmt.Sprintf("%s: %s: other processes on this machine held its CPUs, "+
				"so this run's rate and latency are partly the machine's, not the limiter's%s%s%s", run.Key(), waited, errs, autogroup, remedy),
			detail: fmt.Sprintf("%s: waited %.0f%%, ran %.0f%%", run.Key(), 100*g.CPUWaitShare, 100*g.CPUShare),
		})
	}
	if len(notes) > 1 {
		// The group says the explanation once.
		k := *kindCPUWait
		k.explain = explain + autogroup + remedy
		for i := range notes {
			notes[i].kind = &k
		}
	}
	return notes
}

// DescribeHost is the machine the load came from, in a line: its CPUs, the
// GOMAXPROCS rlbench ran with, and scheduler autogroups when they are on.
func DescribeHost(h result.HostInfo) string {
	s := fmt.Sprintf("%s/%s, %d CPUs, GOMAXPROCS %d", h.OS, h.Arch, h.CPUs, h.GOMAXPROCS)
	if h.SchedAutogroup != nil && *h.SchedAutogroup {
		s += ", scheduler autogroups on"
	}
	return s
}
