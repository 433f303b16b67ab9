package report

import (
	"fmt"

	"github.com/rlbench/rlbench/result"
)

// CPUWaitNoted is the share of a run's traffic time rlbench's threads may
// wait for a CPU before the summary says the run measured the machine as
// much as the limiter (result.CPUWaitStarved, which a capacity search
// also reads).
const CPUWaitNoted = result.CPUWaitStarved

// generatorNotes says which runs rlbench itself was starved of CPU in, and,
// when the kernel groups processes by session, how that treats a Redis
// that runs as a service.
func generatorNotes(r *result.Result) []string {
	var notes []string
	for i := range r.Runs {
		run := &r.Runs[i]
		g := run.Generator
		if g == nil || g.CPUWaitShare < CPUWaitNoted {
			continue
		}
		msg := fmt.Sprintf("%s: rlbench waited for a CPU %.0f%% of the traffic's time (it ran %.0f%%): other processes on this machine held its CPUs, "+
			"so this run's rate and latency are partly the machine's, not the limiter's", run.Key(), 100*g.CPUWaitShare, 100*g.CPUShare)
		if a := r.Host.SchedAutogroup; a != nil && *a {
			msg += "; with scheduler autogroups on (kernel.sched_autogroup_enabled=1) contended CPUs are shared equally between sessions, " +
				"so a Redis that runs as a service gets a whole share while rlbench splits its session's with everything else started there"
		}
		notes = append(notes, msg+". A quiet machine, or rlbench on another one, measures the limiter")
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
