package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// WriteSummary prints the terminal summary in the order the page reads:
// the verdict with its first reason; which limiter, whether it is right
// and what it costs, one line per algorithm; the notes grouped by kind,
// the limiter's own failures before what the machine, the server and the
// measurement limit; then the tables of algorithm x scenario (requests,
// rates and latency; the audit; the memory figures; the fault windows and
// the error policies side by side when the profile scheduled faults), the
// thresholds, and the verdict with every reason. Strings from the result
// are printed Printable.
func WriteSummary(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	j := verdict.Assess(r)
	fmt.Fprintln(w, headline(j))
	fmt.Fprintf(w, "rlbench %s  profile %s  redis %s (%s)\n",
		r.Tool.Version, r.Profile.Name, DescribeRedis(r), r.Redis.Addr)
	fmt.Fprintf(w, "policy %s\n", FormatPolicy(r.Profile.Policy))
	if err := writeDecision(w, r, j); err != nil {
		return err
	}
	writeNotes(w, groupNotes(r, noteList(r, j)))
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tscenario\tsent\tallowed\tdenied\terrors\trate/s\ttarget/s\tp50\tp99\tp99.9\tmax\t")
	for i := range r.Runs {
		run := &r.Runs[i]
		target := "max"
		if run.Rate.TargetPerS > 0 {
			target = FormatRate(run.Rate.TargetPerS)
		}
		name := run.Algorithm
		if run.Incomplete {
			name += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			name, run.Scenario, run.Requests.Sent, run.Requests.Allowed, run.Requests.Denied, run.Requests.Errors,
			FormatRate(run.Rate.AchievedPerS), target,
			FormatMicros(run.LatencyUs.P50), FormatMicros(run.LatencyUs.P99),
			FormatMicros(run.LatencyUs.P999), FormatMicros(run.LatencyUs.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if line := PipelineLine(r); line != "" {
		fmt.Fprintln(w, line)
	}
	if err := writeAuditTable(w, r, j); err != nil {
		return err
	}
	if err := writeMemory(w, r, j); err != nil {
		return err
	}
	if err := writeFaults(w, r); err != nil {
		return err
	}
	if err := writeCluster(w, r); err != nil {
		return err
	}
	if err := writeFleet(w, r, j); err != nil {
		return err
	}
	if err := writeCapacity(w, r); err != nil {
		return err
	}
	writeThresholds(w, r.Thresholds)
	writeVerdict(w, j)
	return nil
}

// writeThresholds prints the threshold outcomes, failures first, each with
// the value the run measured.
func writeThresholds(w io.Writer, ts []result.ThresholdResult) {
	if len(ts) == 0 {
		return
	}
	failed := 0
	for _, t := range ts {
		if !t.OK {
			failed++
		}
	}
	fmt.Fprintf(w, "\nthresholds: %d checked, %d failed\n", len(ts), failed)
	for _, t := range ts {
		if t.OK {
			continue
		}
		fmt.Fprintf(w, "  FAIL  %-28s %s: %s\n", t.Run, t.Expression, thresholdOutcome(t))
	}
	if failed == 0 {
		fmt.Fprintln(w, "  all held")
	}
}

// thresholdOutcome says what a threshold found: the value measured
// against the value it had to meet, or why there was no value.
func thresholdOutcome(t result.ThresholdResult) string {
	if t.Note != "" {
		return t.Note
	}
	field := result.FieldOf(t.Expression)
	return fmt.Sprintf("measured %s, against %s", FormatFieldValue(field, t.Value), FormatFieldValue(field, t.Against))
}

// Notes lists what a reader of the figures must know, most serious
// first, each in full; NoteGroups says them grouped by kind.
func Notes(r *result.Result) []string { return texts(noteList(r, verdict.Assess(r))) }

// ScheduleSlipped reports whether more than 1% of a run's requests went
// out over a millisecond late: its corrected latency then measures the
// generator's own queue as much as the limiter.
func ScheduleSlipped(run *result.Run) bool {
	return run.Requests.Sent > 0 && GeneratorLate(run)*100 > run.Requests.Sent
}

// GeneratorLate counts the run's requests that went out more than 1ms late
// for the generator's own want of workers or CPU: its late sends but those
// inside the scheduled faults' windows and recoveries, when the faults
// held the callers (a pause, a restart, a latency spike).
func GeneratorLate(run *result.Run) int64 {
	late := run.Requests.Late
	if f := run.Faults; f != nil {
		late -= min(f.Late, late)
	}
	return late
}

// slipNote says plainly what a slipped schedule means for the run's
// latency, and what would fix it.
func slipNote(run *result.Run) note {
	q := run.Requests
	key := run.Key()
	late := GeneratorLate(run)
	share := 100 * float64(late) / float64(q.Sent)
	inFaults := ""
	if late < q.Late {
		inFaults = fmt.Sprintf(" (and %d more while the faults held the callers)", q.Late-late)
	}
	return note{kind: kindSlipped, where: key,
		text: fmt.Sprintf("%s: %d %s (%.1f%%) went out more than 1ms late%s (worst %s): the generator could not keep the schedule, "+
			"so this run's latency (p99 %s from the due time) is mostly the generator's own queue, not the limiter's; "+
			"from the actual send it was p99 %s. More concurrency, pipelining or a lower rate would keep the schedule",
			key, late, plural.Noun(late, "request", "requests"), share, inFaults, FormatMicros(run.MaxLagUs), FormatMicros(run.LatencyUs.P99), FormatMicros(run.LatencyUncorrectedUs.P99)),
		detail: fmt.Sprintf("%s: %d %s (%.1f%%) late%s, the worst by %s; p99 %s from the due time, %s from the actual send",
			key, late, plural.Noun(late, "request", "requests"), share, inFaults, FormatMicros(run.MaxLagUs), FormatMicros(run.LatencyUs.P99), FormatMicros(run.LatencyUncorrectedUs.P99)),
	}
}
