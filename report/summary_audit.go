package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// writeAuditTable prints, for every audited run, what the limiter admitted
// against what its reference model expects, and its busiest window against
// its own bound and the policy. A run that the verdict found overshooting
// its bound or disagreeing with its model is marked in the last column.
func writeAuditTable(w io.Writer, r *result.Result, j verdict.Judgement) error {
	audited := false
	for i := range r.Runs {
		audited = audited || r.Runs[i].Audit != nil
	}
	if !audited {
		return nil
	}
	mixed := MixedPolicies(r)
	policyColumn := ""
	if mixed {
		fmt.Fprintln(w, "\naudit: admissions of one identity within any one window of its run's policy, against the algorithm's bound and the policy's limit")
		policyColumn = "policy\t"
	} else {
		fmt.Fprintf(w, "\naudit: admissions of one identity within any %s, against the algorithm's bound and the policy's %d\n",
			FormatMillis(r.Profile.Policy.WindowMs), r.Profile.Policy.Limit)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	why := MissingCells{Every: "every run"}
	fmt.Fprintln(tw, "algorithm\tscenario\t"+policyColumn+"identities\tadmitted\texpected\tmismatches\toffered\tmax-in-window\tbound\tover-policy\tovershoot\tunder-admitted\tcheck\t")
	for i := range r.Runs {
		run := &r.Runs[i]
		a := run.Audit
		if a == nil {
			continue
		}
		why.Rows++
		ids := fmt.Sprint(a.Identities)
		if a.Sampled {
			ids = fmt.Sprintf("%d/%d", a.Identities, run.Identities)
		}
		policy := ""
		if mixed {
			policy = FormatPolicyShort(r.RunPolicy(run)) + "\t"
		}
		expected, mismatches := AuditModelColumns(a)
		why.Add("expected and mismatches", run.Key(), WhyNoExpected(run))
		offered := "-"
		if p := a.Power; p != nil {
			offered = fmt.Sprint(p.OfferedMaxInWindow)
		}
		why.Add("offered", run.Key(), WhyNoOffered(run))
		fmt.Fprintf(tw, "%s\t%s\t%s%s\t%d\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%s\t\n",
			run.Algorithm, run.Scenario, policy, ids, a.Allowed, expected, mismatches, offered,
			a.MaxWindowAdmitted, AuditBound(a), a.PolicyExcess, a.Overshoot, a.UnderAdmitted, auditCheck(run, j.Runs[i]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range why.Lines("-") {
		fmt.Fprintln(w, "  "+line)
	}
	return writeExactComparisons(w, r)
}

// writeExactComparisons prints, for the approximate algorithms, how often
// they decided otherwise than the exact algorithm they approximate would
// have on the same arrivals. Nothing when no run was compared.
func writeExactComparisons(w io.Writer, r *result.Result) error {
	var runs []*result.Run
	for i := range r.Runs {
		if a := r.Runs[i].Audit; a != nil && a.VsExact != nil {
			runs = append(runs, &r.Runs[i])
		}
	}
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\napproximations: decisions the exact %s would have made otherwise on the same arrivals\n", runs[0].Audit.VsExact.Algorithm)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tscenario\tdecisions\tdiffer\tshare\tadmitted-beyond\tdenied-within\t")
	for _, run := range runs {
		c := run.Audit.VsExact
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%d\t\n", run.Algorithm, run.Scenario, c.Decisions, c.Differ,
			FormatShare(c.DifferShare()), c.AdmittedBeyond, c.DeniedWithin)
	}
	return tw.Flush()
}

// AuditModelColumns are the expected and mismatches cells of a run's
// audit: "-" when the audit had no model to replay (only the bound was
// judged), so that nobody reads "0 mismatches" into it.
func AuditModelColumns(a *result.Audit) (expected, mismatches string) {
	if !a.HasModel() {
		return "-", "-"
	}
	return fmt.Sprint(a.ExpectedAllowed), fmt.Sprint(a.ModelMismatches)
}

// AuditBound is the bound cell: the bound, with its interval when that is
// not the policy's window (a declared promise's).
func AuditBound(a *result.Audit) string {
	if a.WindowMs > 0 {
		return fmt.Sprintf("%d/%s", a.BoundWindow, FormatMillis(a.WindowMs))
	}
	return fmt.Sprint(a.BoundWindow)
}

// auditCheck is the last column of the audit table: ok, what the verdict
// found wrong with the run's bound, model and promise to admit, "no power"
// when its traffic could not have shown an excess, or why the audit cannot
// judge the run (the server dropped limiter state).
func auditCheck(run *result.Run, v verdict.Run) string {
	if !v.Judged {
		if run.Eviction.Restarted {
			return "RESTARTED (not judged)"
		}
		return "EVICTED (not judged)"
	}
	var bad []string
	for _, f := range v.Findings {
		if f.Kind == verdict.Overshoot || f.Kind == verdict.ModelMismatch || f.Kind == verdict.UnderAdmission {
			bad = append(bad, f.Kind.String())
		}
	}
	if len(bad) == 0 && v.Has(verdict.NoPower) {
		return "no power"
	}
	if len(bad) == 0 {
		return "ok"
	}
	check := "<< " + strings.Join(bad, " ")
	if v.NegativeControl {
		check += " (expected)"
	}
	return check
}

// auditNotes flags the audit's problems, run by run: broken promises
// (the limiter's own failures), then what limits the figures. How far a
// correct algorithm lets traffic past the policy is in the table's
// over-policy column, not here: it is what the algorithm promises, not a
// warning.
func auditNotes(r *result.Result, j verdict.Judgement) []note {
	var notes []note
	var sampled []string
	var sampleSize int64
	for i := range r.Runs {
		run, v := &r.Runs[i], j.Runs[i]
		window := FormatMillis(r.AuditWindowMs(run))
		a := run.Audit
		if a == nil || !v.Judged {
			continue
		}
		key := run.Key()
		expected := ""
		if v.NegativeControl {
			expected = " (expected: the profile runs it as a negative control)"
		}
		if v.Has(verdict.Overshoot) {
			figures := fmt.Sprintf("%d %s more than the algorithm's own bound of %d within one %s (up to %d; %d %s beyond the bound in all)",
				a.Violations, plural.Noun(a.Violations, "identity got", "identities got"), a.BoundWindow, window, a.MaxWindowAdmitted, a.Overshoot,
				plural.Noun(a.Overshoot, "admission", "admissions"))
			notes = append(notes, note{kind: kindOvershoot, where: key,
				text:   fmt.Sprintf("%s: OVERSHOOT: %s: this limiter does not keep its promise%s", key, figures, expected),
				detail: key + ": " + figures + expected})
		}
		if v.Has(verdict.ModelMismatch) {
			figures := fmt.Sprintf("%d of %d %s from the reference model (Redis admitted %d, the model %d)",
				a.ModelMismatches, a.Decisions, plural.Noun(a.ModelMismatches, "decision differs", "decisions differ"), a.Allowed, a.ExpectedAllowed)
			figures += replyMismatches(a.Reply)
			if run.Requests.Errors > 0 {
				figures += "; some calls failed, and a call that fails after its script ran leaves state the model cannot see"
			}
			notes = append(notes, note{kind: kindMismatch, where: key,
				text:   fmt.Sprintf("%s: MISMATCH: %s%s", key, figures, expected),
				detail: key + ": " + figures + expected})
		}
		if f, ok := v.Finding(verdict.UnderAdmission); ok {
			notes = append(notes, note{kind: kindUnder, where: key,
				text:   f.Text + ": this limiter does not keep its promise to admit" + expected,
				detail: f.Text + expected})
		}
		if n, ok := auditBasisNote(key, a); ok {
			notes = append(notes, n)
		}
		if a.Sampled {
			sampled = append(sampled, key)
			sampleSize = max(sampleSize, a.Identities)
		}
		if n := windowNote(run); n != "" {
			notes = append(notes, note{kind: kindWindow, where: key, text: n})
		}
		if c, b := run.ClockOffset, run.Params.Boundary; c != nil && b != nil && time.Duration(c.UncertaintyUs)*time.Microsecond >= time.Duration(b.OffsetMs*float64(time.Millisecond)) {
			notes = append(notes, note{kind: kindClock, where: key, text: fmt.Sprintf("%s: the local clock is aligned with Redis TIME only to within %s, not within the bursts' offset of %gms: bursts may land on the wrong side of the boundary",
				key, FormatMicros(c.UncertaintyUs), b.OffsetMs)})
		}
	}
	if len(sampled) > 0 {
		notes = append(notes, note{kind: kindSampled, text: fmt.Sprintf("the audit covers a sample of at most %d identities per run (drawn with seed %d) in %s; admitted and expected count the sampled identities' decisions only",
			sampleSize, r.Profile.Seed, strings.Join(sampled, ", "))})
	}
	return notes
}

// replyMismatches says which of a MISMATCH's decisions had a wrong
// remaining or retry hint, rather than a wrong answer.
func replyMismatches(c *result.ReplyCheck) string {
	if c == nil || c.RemainingWrong+c.RetryAfterTooEarly == 0 {
		return ""
	}
	var parts []string
	if c.RemainingWrong > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d replies' remaining disagree with what the model has left", c.RemainingWrong, c.RemainingChecked))
	}
	if c.RetryAfterTooEarly > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d denials' retry_after_ms are too short: a request retried then would still be denied", c.RetryAfterTooEarly, c.RetryAfterChecked))
	}
	return ", among them: " + strings.Join(parts, "; ")
}

// auditBasisNote says how a run was judged when it was not replayed
// through a model, so the missing expected and mismatches columns are
// understood.
func auditBasisNote(key string, a *result.Audit) (note, bool) {
	switch a.Basis {
	case result.AuditByBound:
		return note{kind: kindByBound, where: key, detail: key,
			text: fmt.Sprintf("%s: judged by its bound only (it declares a bound, not a semantics with a reference model to replay), at the server times its replies carried", key)}, true
	case result.AuditByBoundCallerTime:
		n := note{kind: kindCallerTime, where: key, detail: key,
			text: fmt.Sprintf("%s: it decides by the caller's clock, so it was judged by its bound only, on the true clock: each decision somewhere between its request's send and its reply", key)}
		if c := a.CallerClock; c != nil {
			figures := fmt.Sprintf("most admissions of one identity certainly in one window: %d; on its own clock (the times its arguments carried, in %s): %d",
				a.MaxWindowAdmitted, tickUnit(c.TickUs), c.MaxWindowAdmittedOwn)
			n.text += "; " + figures
			n.detail += ": " + figures
		}
		return n, true
	case result.AuditByBoundClientTime:
		n := note{kind: kindClientTime, where: key, detail: key,
			text: fmt.Sprintf("%s: its replies carry no server time, so it was judged by its bound only, on the client's clock: each decision lies within half its round trip of the midpoint", key)}
		if t := a.Timing; t != nil {
			figures := fmt.Sprintf("(median %s, at most %s); most admissions of one identity certainly in one window: %d, possibly: %d",
				FormatMicros(t.UncertaintyP50Us), FormatMicros(t.UncertaintyMaxUs), a.MaxWindowAdmitted, t.MaxWindowAdmittedPossible)
			n.text += " " + figures
			n.detail += ": round trip " + figures
		}
		return n, true
	}
	return note{}, false
}

// tickUnit names the unit a caller's clock reached the script in.
func tickUnit(tickUs int64) string {
	switch tickUs {
	case 1_000_000:
		return "whole seconds"
	case 1000:
		return "whole milliseconds"
	case 1:
		return "microseconds"
	}
	return "steps of " + FormatMicros(tickUs)
}

// windowNote says how a boundary run found its windows' ends, when it was
// not by the limiter's own formula or key: read from the replies, found
// from the decisions, or not found for some identities.
func windowNote(run *result.Run) string {
	w := run.WindowLocation
	if w == nil || w.Identities == 0 {
		return ""
	}
	var text string
	switch w.Method {
	case "reply":
		text = fmt.Sprintf("%s: each identity's window end was read from the prime's reply, known within %s", run.Key(), FormatMicros(w.UncertaintyMaxUs))
	case "behaviour":
		text = fmt.Sprintf("%s: its replies do not say where its windows end, so each identity's was found from its decisions (the window exhausted right after the prime, then probed until a request was admitted again), known within %s",
			run.Key(), FormatMicros(w.UncertaintyMaxUs))
	}
	if w.ReplyRefused > 0 {
		if text == "" {
			text = run.Key() + ": "
		} else {
			text += "; "
		}
		instead := "found from its decisions instead"
		if w.ByBehaviour == 0 {
			instead = "not found: their bursts went a window after the prime"
		}
		text += fmt.Sprintf("%d of %d identities' replies gave %s: refused, the end %s", w.ReplyRefused, w.Identities, w.ReplyRefusedExample, instead)
	}
	if w.Method != "after_prime" && w.AfterPrime > 0 {
		if text == "" {
			text = run.Key() + ": "
		} else {
			text += "; "
		}
		text += fmt.Sprintf("%d of %d identities' window ends could not be found (never denied, or never admitted again within two windows): their bursts went a window after the prime", w.AfterPrime, w.Identities)
	}
	return text
}
