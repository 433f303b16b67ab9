package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/internal/numfmt"
	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// CapacityColumns name the cells of CapacityCells.
var CapacityColumns = []string{"algorithm", "scenario", "capacity/s", "server µs/decision", "rlbench µs/decision", "ceiling/s", "of ceiling",
	"pipelined/s", "of pipelined", "Redis CPU at capacity", "B/identity", "steps", "end"}

// CapacityRuns are the result's capacity runs, in its order.
func CapacityRuns(r *result.Result) []*result.Run {
	var out []*result.Run
	for i := range r.Runs {
		if r.Runs[i].Capacity != nil {
			out = append(out, &r.Runs[i])
		}
	}
	return out
}

// CapacityCells formats a capacity run's figures in the order of
// CapacityColumns: the capacity found, the server's CPU per decision,
// rlbench's own beside it, the ceiling one core could reach at the
// server's, the capacity's share of that
// ceiling and of the pipelined run's rate, the Redis CPU at the capacity,
// what an identity cost in Redis there, the steps the search took and how
// it ended; "-" where the run has no figure.
func CapacityCells(run *result.Run) []string {
	c := run.Capacity
	cells := []string{run.Algorithm, run.Scenario, "none held", "-", "-", "-", "-", "-", "-", "-", "-", fmt.Sprint(len(c.Steps)), CapacityEnd(c)}
	if c.PerS > 0 {
		cells[2] = FormatCount(int64(c.PerS))
	}
	if c.ServerUsecPerDecision > 0 {
		cells[3] = fmt.Sprintf("%.2f", c.ServerUsecPerDecision)
		cells[5] = FormatCount(int64(c.CeilingPerS))
		if c.PerS > 0 {
			cells[6] = FormatShare(c.ShareOfCeiling)
		}
	}
	if c.GeneratorUsecPerDecision > 0 {
		cells[4] = fmt.Sprintf("%.2f", c.GeneratorUsecPerDecision)
	}
	if p := c.Pipelined; p != nil && p.PerS > 0 {
		cells[7] = FormatCount(int64(p.PerS))
		if c.PerS > 0 {
			cells[8] = FormatShare(c.ShareOfPipelined)
		}
	}
	if c.ServerCPUAtCapacity > 0 {
		cells[9] = FormatShare(c.ServerCPUAtCapacity)
	}
	if c.BytesPerIdentity > 0 {
		cells[10] = fmt.Sprintf("%.0f", c.BytesPerIdentity)
	}
	return cells
}

// CapacityEnd says how a search ended, with the rate that ended it:
// "converged (broke at 47,000/s)", "generator-bound at 32,000/s".
func CapacityEnd(c *result.Capacity) string {
	switch c.End {
	case result.CapacityConverged:
		return fmt.Sprintf("converged (broke at %s/s)", FormatCount(int64(c.BrokePerS)))
	case result.CapacityGeneratorBound:
		return fmt.Sprintf("generator-bound at %s/s", FormatCount(int64(c.GeneratorBoundAtPerS)))
	case result.CapacityTopOfRange:
		return "top of range"
	case result.CapacityBelowRange:
		return fmt.Sprintf("below range (broke at %s/s)", FormatCount(int64(c.BrokePerS)))
	case result.CapacityMaxSteps:
		return "max steps"
	}
	return strings.ReplaceAll(c.End, "_", " ")
}

// CapacityHeadline says what the capacity columns mean: the SLO every step
// had to hold, and for how long.
func CapacityHeadline(r *result.Result) string {
	runs := CapacityRuns(r)
	if len(runs) == 0 {
		return ""
	}
	var slos []string
	for _, run := range runs {
		if s := DescribeSLO(run.Capacity.SLO); !slices.Contains(slos, s) {
			slos = append(slos, s)
		}
	}
	return "capacity: the highest offered rate (open loop) that held " + strings.Join(slos, "; or ") +
		"; the ceiling is what one Redis core decides a second at the server's CPU per decision (INFO commandstats), without its socket work"
}

// DescribeSLO says an SLO as the summary does: "p99 <= 2.00ms, calls
// without a decision <= 0.1%, rlbench's send lag p99 <= 1.00ms, over each
// step of 2s".
func DescribeSLO(s result.SLO) string {
	return fmt.Sprintf("p99 <= %s, calls without a decision <= %s, rlbench's send lag p99 <= %s, over each step of %gs",
		FormatMicros(s.P99Us), numfmt.Fraction(s.ErrorShare), FormatMicros(s.LagUs), s.StepS)
}

// writeCapacity prints the capacity runs' table, when there are any.
func writeCapacity(w io.Writer, r *result.Result) error {
	runs := CapacityRuns(r)
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\n"+CapacityHeadline(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(CapacityColumns, "\t")+"\t")
	for _, run := range runs {
		fmt.Fprintln(tw, strings.Join(CapacityCells(run), "\t")+"\t")
	}
	return tw.Flush()
}

// capacityNotes say what a reader of a capacity run must know: a search
// that rlbench could not carry to the end (generator-bound), one that
// found nothing in its range or stopped before it converged, and the rates
// at which the audit found the limiter wrong.
func capacityNotes(r *result.Result) []string {
	var notes []string
	for _, run := range CapacityRuns(r) {
		c := run.Capacity
		switch c.End {
		case result.CapacityGeneratorBound:
			held := fmt.Sprintf("the limiter held the SLO up to %s/s and may sustain more", FormatCount(int64(c.PerS)))
			if c.PerS <= 0 {
				held = "no step measured the limiter, whose capacity is unknown"
			}
			notes = append(notes, fmt.Sprintf("%s: the search was generator-bound at %s/s: %s, with every worker and all the pipelining allow permits; "+
				"%s (allow more workers or pipelining, or run rlbench on another machine)",
				run.Key(), FormatCount(int64(c.GeneratorBoundAtPerS)), generatorCause(c), held))
		case result.CapacityBelowRange:
			notes = append(notes, fmt.Sprintf("%s: even the lowest rate offered (%s/s) broke the SLO: the capacity is below the range searched", run.Key(), FormatCount(int64(c.BrokePerS))))
		case result.CapacityTopOfRange:
			notes = append(notes, fmt.Sprintf("%s: the highest rate the search may offer (%s/s) held the SLO: the capacity is at least that (give a wider range)", run.Key(), FormatCount(int64(c.PerS))))
		case result.CapacityMaxSteps:
			notes = append(notes, fmt.Sprintf("%s: the search stopped after max_steps (%d) before the rates that held and broke came within its precision", run.Key(), len(c.Steps)))
		}
		if at, ok := c.BrokenAt(); ok {
			notes = append(notes, fmt.Sprintf("%s: the audit found the limiter wrong at %s/s (capacity.steps): a limiter that stops being right under load has no capacity beyond that rate",
				run.Key(), FormatCount(int64(at))))
		}
	}
	return notes
}

// generatorCause says why rlbench could not keep the step at the rate a
// generator-bound search ended below (the last step it could not keep
// when none is at that rate).
func generatorCause(c *result.Capacity) string {
	at := -1
	for i, s := range c.Steps {
		if s.Outcome == result.StepGeneratorBound && (at < 0 || c.Steps[at].TargetPerS != c.GeneratorBoundAtPerS) {
			at = i
		}
	}
	if at >= 0 {
		s := c.Steps[at]
		switch s.Cause {
		case result.CauseGeneratorCPU:
			if g := s.Generator; g != nil && g.UsecPerDecision > 0 && s.ServerUsecPerCall > 0 {
				return fmt.Sprintf("rlbench ran %s of a CPU and waited %s of the step for one, spending %.2fµs of CPU per decision against the server's %.2fµs",
					FormatShare(g.CPUShare), FormatShare(g.CPUWaitShare), g.UsecPerDecision, s.ServerUsecPerCall)
			}
			if g := s.Generator; g != nil {
				return fmt.Sprintf("rlbench ran %s of a CPU and waited %s of the step for one", FormatShare(g.CPUShare), FormatShare(g.CPUWaitShare))
			}
			return "rlbench was out of CPU"
		case result.CauseGeneratorWorkers:
			return fmt.Sprintf("%s %s for a free worker (%d %s)", FormatCount(s.Busy), plural.Noun(s.Busy, "request waited", "requests waited"), s.Concurrency, plural.Noun(s.Concurrency, "worker", "workers"))
		case result.CauseGeneratorUnsent:
			return fmt.Sprintf("%s %s never sent", FormatCount(s.Unsent), plural.Noun(s.Unsent, "request was", "requests were"))
		default:
			return fmt.Sprintf("rlbench sent late (send lag p99 %s) while Redis answered within the SLO once asked (p99 from the send %s)",
				FormatMicros(s.LagP99Us), FormatMicros(s.P99FromSendUs))
		}
	}
	return "rlbench could not keep the schedule"
}
