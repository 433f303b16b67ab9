package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// writeFleet prints what a fleet's clocks did, when the runs came from
// one: for each sweep of clock skews, per limiter, the most one identity
// had admitted within a window at each skew (marked where the run went
// past the bound or short of the promise) and the largest skew it
// tolerates, as j (the verdict on r) found; then each run whose admissions
// went past the bound, and how they fall between the instances. Nothing
// without a fleet.
func writeFleet(w io.Writer, r *result.Result, j verdict.Judgement) error {
	for _, sweep := range SkewSweeps(r, j) {
		fmt.Fprintf(w, "\nclock skew (%s): the most one identity had admitted within any %s, with the %d instances' clocks spread over ± each skew, "+
			"judged on the true clock; %s\n",
			sweep.Name, FormatMillis(r.Profile.Policy.WindowMs), sweep.Instances, stepMarks)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "algorithm\ttime from\t"
		for _, ms := range sweep.SkewsMs {
			head += FormatSkew(ms) + "\t"
		}
		fmt.Fprintln(tw, head+"bound\ttolerates\t")
		for _, t := range sweep.Limiters {
			line := t.Algorithm + "\t" + sweep.TimeFrom[t.Algorithm] + "\t"
			for _, ms := range sweep.SkewsMs {
				line += stepCell(t, ms) + "\t"
			}
			fmt.Fprintln(tw, line+boundCell(t)+"\t"+Tolerates(t)+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, line := range FleetExcessLines(r, j) {
		fmt.Fprintln(w, "  "+line)
	}
	return nil
}

// writeSkewMarkdown writes, for each sweep of clock skews, the summary's
// table as Markdown: per limiter, the most admitted in one window at each
// skew and the largest skew it tolerates, as j (the verdict on r) found.
func writeSkewMarkdown(w io.Writer, r *result.Result, j verdict.Judgement) {
	for _, sweep := range SkewSweeps(r, j) {
		fmt.Fprintf(w, "\nClock skew (%s): the most one identity had admitted within any %s, with the %d instances' clocks spread over ± each skew, "+
			"judged on the true clock; %s\n\n", mdEscape(sweep.Name), FormatMillis(r.Profile.Policy.WindowMs), sweep.Instances, mdEscape(stepMarks))
		head, rule := "| algorithm | time from |", "|---|---|"
		for _, ms := range sweep.SkewsMs {
			head, rule = head+" "+FormatSkew(ms)+" |", rule+"---:|"
		}
		fmt.Fprintln(w, head+" bound | tolerates |")
		fmt.Fprintln(w, rule+"---:|---|")
		for _, t := range sweep.Limiters {
			line := "| " + mdEscape(t.Algorithm) + " | " + sweep.TimeFrom[t.Algorithm] + " |"
			for _, ms := range sweep.SkewsMs {
				line += " " + mdEscape(stepCell(t, ms)) + " |"
			}
			fmt.Fprintln(w, line+" "+boundCell(t)+" | "+mdEscape(Tolerates(t))+" |")
		}
	}
}

// boundCell is a limiter's bound over a sweep, "-" when not audited.
func boundCell(t verdict.SkewTolerance) string {
	if len(t.Steps) > 0 && t.Steps[0].Audited {
		return FormatCount(t.Steps[0].BoundWindow)
	}
	return "-"
}

// stepMarks says what StepMark's marks mean.
const stepMarks = "! past the bound or short of the promise, ? not judged or unable to show an excess"

// StepMark marks a step of a sweep that did not hold: "!" where it went
// past the bound or short of the promise, "?" where the audit could not
// judge it or its traffic could not have shown an excess; "" where it
// held.
func StepMark(s verdict.SkewStep) string {
	switch {
	case s.Held():
		return ""
	case s.OverAdmits || s.UnderAdmits:
		return "!"
	default:
		return "?"
	}
}

// stepCell is one limiter's figure at one skew of a sweep: the most it
// admitted within a window, marked as StepMark says.
func stepCell(t verdict.SkewTolerance, ms float64) string {
	for _, s := range t.Steps {
		if s.SkewMs != ms {
			continue
		}
		if !s.Audited {
			return "n/a"
		}
		return FormatCount(s.MaxWindowAdmitted) + StepMark(s)
	}
	return "-"
}

// Sweep is one sweep of clock skews of a result, for the summary and the
// page: its name, how many instances its fleet had, the skews it ran (in
// milliseconds, smallest first), whose clock each limiter took its time
// from, and what each tolerates.
type Sweep struct {
	Name      string
	Instances int
	SkewsMs   []float64
	TimeFrom  map[string]string
	Limiters  []verdict.SkewTolerance
}

// SkewSweeps gathers the result's sweeps of clock skews, in the order
// their runs came, with what j (the verdict on r) found of each limiter's
// tolerance.
func SkewSweeps(r *result.Result, j verdict.Judgement) []Sweep {
	var out []Sweep
	index := map[string]int{}
	for _, t := range j.SkewTolerances(r) {
		at, ok := index[t.Sweep]
		if !ok {
			at = len(out)
			index[t.Sweep] = at
			out = append(out, Sweep{Name: t.Sweep, TimeFrom: map[string]string{}})
		}
		s := &out[at]
		s.Limiters = append(s.Limiters, t)
		for _, step := range t.Steps {
			if !slices.Contains(s.SkewsMs, step.SkewMs) {
				s.SkewsMs = append(s.SkewsMs, step.SkewMs)
			}
		}
		slices.Sort(s.SkewsMs)
	}
	for i := range r.Runs {
		f := r.Runs[i].Fleet
		if f == nil || f.Sweep == "" {
			continue
		}
		s := &out[index[f.Sweep]]
		s.Instances = max(s.Instances, f.Instances)
		s.TimeFrom[r.Runs[i].Algorithm] = "redis"
		if f.TakesTime {
			s.TimeFrom[r.Runs[i].Algorithm] = "caller"
		}
	}
	return out
}

// FormatSkew writes a spread of clock skews in milliseconds: 0, ±50ms,
// ±1.5s, ±0.25ms.
func FormatSkew(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms >= 1000:
		return "±" + strconv.FormatFloat(ms/1000, 'f', -1, 64) + "s"
	default:
		return "±" + strconv.FormatFloat(ms, 'f', -1, 64) + "ms"
	}
}

// Tolerates says the largest skew a limiter tolerates over its sweep:
// "±500ms or more (every step held)", "0 (over-admits at ±50ms)", or
// "none measured (over-admits at 0)".
func Tolerates(t verdict.SkewTolerance) string {
	switch {
	case len(t.Steps) == 0:
		return "none measured"
	case t.AllHeld:
		return FormatSkew(t.ToleratedMs) + " or more (every step held)"
	}
	why := stepFailure(*t.FirstFailure)
	if !t.Tolerated {
		return "none measured (" + why + ")"
	}
	return FormatSkew(t.ToleratedMs) + " (" + why + ")"
}

// stepFailure says why a step of a sweep did not hold.
func stepFailure(s verdict.SkewStep) string {
	at := FormatSkew(s.SkewMs)
	var what []string
	switch {
	case s.NotJudged:
		return "not judged at " + at
	case s.OverAdmits:
		what = append(what, "over-admits")
	}
	if s.UnderAdmits {
		what = append(what, "under-admits")
	}
	if len(what) == 0 {
		return "could not show an excess at " + at
	}
	return strings.Join(what, " and ") + " at " + at
}

// FleetExcessLines says, for each run from a fleet that j (the verdict on
// r) found past its bound, by how many admissions, and how the instances
// took part in the busiest windows; and, where the limiter's model, fed
// the times it saw, agreed with every decision, that the excess comes
// from trusting its callers' clocks.
func FleetExcessLines(r *result.Result, j verdict.Judgement) []string {
	var out []string
	for i := range r.Runs {
		run := &r.Runs[i]
		f, a := run.Fleet, run.Audit
		if f == nil || a == nil || i >= len(j.Runs) {
			continue
		}
		over, ok := j.Runs[i].Finding(verdict.Overshoot)
		if !ok {
			continue
		}
		var parts []string
		for k, in := range f.PerInstance {
			parts = append(parts, fmt.Sprintf("instance %d (clock %s) %s", k, formatOffset(in.OffsetMs), FormatCount(in.InExcess)))
		}
		line := fmt.Sprintf("%s: %s admissions past the bound; admitted within the windows past it: %s", run.Key(), FormatCount(over.Count), strings.Join(parts, ", "))
		switch {
		case !a.HasModel() || j.Runs[i].Has(verdict.ModelMismatch) || !f.TakesTime:
		case f.FurthestOffsetMs() == 0 && f.DriftMsPerMin == 0:
			line += "; its model, fed the times it saw, agrees with every decision: with every clock on the true time, the excess comes from " +
				"trusting its callers' times, which reached the server in another order than they were taken"
		default:
			line += "; its model, fed the times it saw, agrees with every decision: the excess comes from trusting its callers' clocks " +
				"(their skew, and requests that reached the server in another order than their times)"
		}
		out = append(out, line)
	}
	return out
}

// formatOffset writes an instance's clock offset: +50ms, -1.5s, 0.
func formatOffset(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms >= 1000 || ms <= -1000:
		return fmt.Sprintf("%+gs", ms/1000)
	default:
		return fmt.Sprintf("%+gms", ms)
	}
}
