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

// WriteSummary prints the terminal summary: a table of algorithm x scenario
// with request counts, rates and latency, the audit table, the memory
// figures, the fault windows and the error policies side by side when the
// profile scheduled faults, then anything a reader must not miss (an
// embedded server, incomplete runs, errors, a schedule that slipped, a
// limiter that broke its promise). Strings from the result are printed
// Printable.
func WriteSummary(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	j := verdict.Assess(r)
	fmt.Fprintln(w, headline(j))
	fmt.Fprintf(w, "rlbench %s  profile %s  redis %s (%s)\n",
		r.Tool.Version, r.Profile.Name, DescribeRedis(r), r.Redis.Addr)
	fmt.Fprintf(w, "policy %s\n", FormatPolicy(r.Profile.Policy))
	hot := HotNodeNotes(r)
	for _, n := range hot {
		fmt.Fprintln(w, "! "+n)
	}
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
	if err := writeCapacity(w, r); err != nil {
		return err
	}
	writeThresholds(w, r.Thresholds)
	// The hot-node warnings were printed at the top.
	notes := slices.DeleteFunc(notesOf(r, j), func(n string) bool { return slices.Contains(hot, n) })
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, "! "+n)
		}
	}
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

// Notes lists what a reader of the figures must know, most serious first.
func Notes(r *result.Result) []string { return notesOf(r, verdict.Assess(r)) }

// notesOf is Notes, given the verdict on r.
func notesOf(r *result.Result, j verdict.Judgement) []string {
	var notes []string
	if !r.Complete {
		notes = append(notes, "INCOMPLETE: "+r.IncompleteReason+"; the figures cover what was measured before it stopped")
	}
	if r.Verdict != "" && r.Verdict != j.Verdict {
		notes = append(notes, fmt.Sprintf("this result was recorded with verdict %s; by the rules of this rlbench it is %s", r.Verdict, j.Verdict))
	}
	notes = append(notes, HotNodeNotes(r)...)
	notes = append(notes, evictionNotes(r, j)...)
	notes = append(notes, unscheduledNotes(r)...)
	notes = append(notes, leakNotes(r, j)...)
	notes = append(notes, skippedNotes(r)...)
	if r.Redis.Note != "" {
		notes = append(notes, r.Redis.Note)
	}
	if p := evictingPolicies(r); len(p) > 0 {
		notes = append(notes, fmt.Sprintf("maxmemory-policy was %s during the runs: under memory pressure Redis may evict limiter state and admit more than the limit", strings.Join(p, ", then ")))
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Incomplete && run.Note != "" {
			notes = append(notes, fmt.Sprintf("%s: incomplete: %s", run.Key(), run.Note))
		}
		if run.Requests.Errors > 0 {
			msg := ""
			if len(run.Errors) > 0 {
				msg = ": " + describeErrors(run.Errors)
			}
			notes = append(notes, fmt.Sprintf("%s: %d of %d requests failed%s", run.Key(), run.Requests.Errors, run.Requests.Sent, msg))
		}
		if run.Requests.Unsent > 0 {
			notes = append(notes, fmt.Sprintf("%s: the generator fell behind and %d requests due before the end were never sent", run.Key(), run.Requests.Unsent))
		}
		if ScheduleSlipped(run) {
			notes = append(notes, slipNote(run))
		}
		if run.Requests.NoScriptReloads > 0 {
			notes = append(notes, fmt.Sprintf("%s: the server lost the script %d times (NOSCRIPT) and it was reloaded", run.Key(), run.Requests.NoScriptReloads))
		}
	}
	notes = append(notes, pipelineNotes(r)...)
	notes = append(notes, capacityNotes(r)...)
	notes = append(notes, generatorNotes(r)...)
	notes = append(notes, auditNotes(r, j)...)
	notes = append(notes, memoryNotes(r)...)
	return notes
}

// ScheduleSlipped reports whether more than 1% of a run's requests went
// out over a millisecond late: its corrected latency then measures the
// generator's own queue as much as the limiter.
func ScheduleSlipped(run *result.Run) bool {
	return run.Requests.Sent > 0 && run.Requests.Late*100 > run.Requests.Sent
}

// slipNote says plainly what a slipped schedule means for the run's
// latency, and what would fix it.
func slipNote(run *result.Run) string {
	q := run.Requests
	return fmt.Sprintf("%s: %d requests (%.1f%%) went out more than 1ms late (worst %s): the generator could not keep the schedule, "+
		"so this run's latency (p99 %s from the due time) is mostly the generator's own queue, not the limiter's; "+
		"from the actual send it was p99 %s. More concurrency, pipelining or a lower rate would keep the schedule",
		run.Key(), q.Late, 100*float64(q.Late)/float64(q.Sent), FormatMicros(run.MaxLagUs),
		FormatMicros(run.LatencyUs.P99), FormatMicros(run.LatencyUncorrectedUs.P99))
}
