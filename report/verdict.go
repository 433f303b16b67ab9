package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// Judgement is a verdict with what it rests on.
type Judgement struct {
	// Verdict is result.Pass or result.Fail.
	Verdict string
	// Reasons says why the verdict is fail, most serious first; empty on
	// a pass.
	Reasons []string
	// Caught lists the negative controls (expect_broken) the audit caught,
	// as the profile expected, each with what caught it.
	Caught []string
}

// Assess judges a result from its contract values alone, never from the
// text a summary prints about them. By default a result fails when:
//
//   - it is incomplete (interrupted, aborted, or its server went away);
//   - Redis evicted keys or restarted during a run: the limiter's state was
//     reset behind its back, so that run's audit cannot judge it (and its
//     overshoot or mismatches are not blamed on the limiter);
//   - a run's calls that got no decision exceed the error budget (a
//     fraction of its decisions; errors inside fault windows the profile
//     scheduled do not count);
//   - a limiter broke its own bound (overshoot), disagreed with its
//     reference model (mismatches), left a key without a TTL or wrote one
//     outside its prefix, unless the profile runs it as a negative control
//     (expect_broken);
//   - a negative control was not caught by any of its runs;
//   - a threshold failed.
func Assess(r *result.Result) Judgement {
	var j Judgement
	if !r.Complete {
		reason := "the run did not complete"
		if r.IncompleteReason != "" {
			reason += ": " + r.IncompleteReason
		}
		j.Reasons = append(j.Reasons, reason)
	}
	var reset, errs, broken []string
	evidence := map[string][]string{}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Eviction.ResetState() {
			reset = append(reset, resetReason(run))
		}
		if over, ok := overBudget(run, r.Profile.Budget()); ok {
			errs = append(errs, over)
		}
		findings := limiterFindings(run)
		if len(findings) == 0 {
			continue
		}
		if slices.Contains(r.Profile.ExpectBroken, run.Algorithm) {
			if !run.Eviction.ResetState() {
				evidence[run.Algorithm] = append(evidence[run.Algorithm], run.Scenario+": "+strings.Join(findings, ", "))
			}
			continue
		}
		broken = append(broken, brokenReasons(r, run)...)
	}
	j.Reasons = append(j.Reasons, reset...)
	j.Reasons = append(j.Reasons, errs...)
	j.Reasons = append(j.Reasons, broken...)
	for _, alg := range r.Profile.ExpectBroken {
		if ev := evidence[alg]; len(ev) > 0 {
			j.Caught = append(j.Caught, fmt.Sprintf("%s: caught, as expected (%s)", alg, strings.Join(ev, "; ")))
			continue
		}
		j.Reasons = append(j.Reasons, notCaughtReason(r, alg))
	}
	j.Reasons = append(j.Reasons, thresholdReasons(r.Thresholds)...)
	j.Verdict = result.Pass
	if len(j.Reasons) > 0 {
		j.Verdict = result.Fail
	}
	return j
}

// Verdict is Assess(r).Verdict.
func Verdict(r *result.Result) string { return Assess(r).Verdict }

// Judge evaluates the thresholds on r's runs and sets its verdict and the
// reasons for it.
func Judge(r *result.Result, thresholds []*result.Threshold) {
	r.Thresholds = result.Evaluate(r, thresholds)
	j := Assess(r)
	r.Verdict, r.VerdictReasons = j.Verdict, j.Reasons
}

// resetReason says that the server dropped a run's limiter state.
func resetReason(run *result.Run) string {
	e := run.Eviction
	if e.Restarted {
		return fmt.Sprintf("%s: Redis restarted during the run: limiter state was lost, the audit cannot judge this run", run.Key())
	}
	policy := e.PolicyAfter
	if e.PolicyBefore != e.PolicyAfter {
		policy = e.PolicyBefore + " until it was changed to " + e.PolicyAfter
	}
	return fmt.Sprintf("%s: Redis evicted %s keys (maxmemory-policy %s): limiter state was reset, the audit cannot judge this run",
		run.Key(), FormatCount(e.EvictedKeys), policy)
}

// overBudget says whether the run's failed calls exceed budget (a fraction
// of its decisions) and, if so, how.
func overBudget(run *result.Run, budget float64) (string, bool) {
	q := run.Requests
	errs := q.BudgetedErrors()
	if errs <= 0 || float64(errs) <= budget*float64(q.Decisions()) {
		return "", false
	}
	common := ""
	if len(run.Errors) > 0 {
		common = fmt.Sprintf(" (most common: %q x%s)", run.Errors[0].Message, FormatCount(run.Errors[0].Count))
	}
	excused := ""
	if q.FaultErrors > 0 {
		excused = fmt.Sprintf(", besides %s inside scheduled fault windows", FormatCount(q.FaultErrors))
	}
	return fmt.Sprintf("%s: %s of %s calls got no decision%s%s, past the error budget of %s of decisions",
		run.Key(), FormatCount(errs), FormatCount(q.Sent), common, excused, formatFraction(budget)), true
}

// limiterFindings are the short names of what the audit and the probes
// found wrong with a run's limiter ("OVERSHOOT 12"); none for a run whose
// state the server reset, since the limiter cannot be blamed for it.
func limiterFindings(run *result.Run) []string {
	var out []string
	if a := run.Audit; a != nil && !run.Eviction.ResetState() {
		if a.Overshoot > 0 {
			out = append(out, "OVERSHOOT "+FormatCount(a.Overshoot))
		}
		if a.ModelMismatches > 0 {
			out = append(out, "MISMATCH "+FormatCount(a.ModelMismatches))
		}
	}
	if m := run.Memory; m != nil && m.KeysWithoutTTL > 0 {
		out = append(out, "NO TTL "+FormatCount(m.KeysWithoutTTL))
	}
	if m := run.Memory; m != nil && m.KeysOutsidePrefix > 0 {
		out = append(out, "OUTSIDE PREFIX "+FormatCount(m.KeysOutsidePrefix))
	}
	return out
}

// brokenReasons says, in full, how a run's limiter broke its promise.
func brokenReasons(r *result.Result, run *result.Run) []string {
	var out []string
	window := FormatMillis(r.AuditWindowMs(run))
	if a := run.Audit; a != nil && !run.Eviction.ResetState() {
		if a.Overshoot > 0 {
			out = append(out, fmt.Sprintf("%s: OVERSHOOT: %s identities got more than the algorithm's own bound of %s within one %s (%s admissions beyond it)",
				run.Key(), FormatCount(a.Violations), FormatCount(a.BoundWindow), window, FormatCount(a.Overshoot)))
		}
		if a.ModelMismatches > 0 {
			msg := fmt.Sprintf("%s: MISMATCH: %s of %s decisions differ from the reference model", run.Key(), FormatCount(a.ModelMismatches), FormatCount(a.Decisions))
			if run.Requests.Errors > 0 {
				msg += fmt.Sprintf(" (%s calls failed; a call that fails after its script ran leaves state the model cannot see)", FormatCount(run.Requests.Errors))
			}
			out = append(out, msg)
		}
	}
	if m := run.Memory; m != nil && m.KeysWithoutTTL > 0 {
		out = append(out, fmt.Sprintf("%s: %s keys were left without a TTL and never expire (a leak)", run.Key(), FormatCount(m.KeysWithoutTTL)))
	}
	if m := run.Memory; m != nil && m.KeysOutsidePrefix > 0 {
		out = append(out, fmt.Sprintf("%s: the limiter's script wrote %s keys outside the run prefix it was given (e.g. %s)",
			run.Key(), FormatCount(m.KeysOutsidePrefix), strings.Join(m.OutsidePrefixExamples, ", ")))
	}
	return out
}

// notCaughtReason says that a negative control got through.
func notCaughtReason(r *result.Result, alg string) string {
	var runs []string
	for i := range r.Runs {
		if r.Runs[i].Algorithm == alg {
			runs = append(runs, r.Runs[i].Scenario)
		}
	}
	if len(runs) == 0 {
		return fmt.Sprintf("%s is declared broken (expect_broken) but never ran, so nothing caught it", alg)
	}
	return fmt.Sprintf("%s is declared broken (expect_broken) but no run caught it: no overshoot, model mismatch or key without a TTL in %s",
		alg, strings.Join(runs, ", "))
}

// thresholdReasons gives one reason per failed threshold expression, with
// the first run it failed on.
func thresholdReasons(ts []result.ThresholdResult) []string {
	var order []string
	failed := map[string][]result.ThresholdResult{}
	for _, t := range ts {
		if t.OK {
			continue
		}
		if _, ok := failed[t.Expression]; !ok {
			order = append(order, t.Expression)
		}
		failed[t.Expression] = append(failed[t.Expression], t)
	}
	out := make([]string, 0, len(order))
	for _, expr := range order {
		first := failed[expr][0]
		what := first.Note
		if what == "" {
			field := result.FieldOf(expr)
			what = fmt.Sprintf("measured %s, against %s", FormatFieldValue(field, first.Value), FormatFieldValue(field, first.Against))
		}
		more := ""
		if n := len(failed[expr]) - 1; n > 0 {
			more = fmt.Sprintf(" and %d more runs", n)
		}
		out = append(out, fmt.Sprintf("threshold %q failed on %s (%s)%s", expr, first.Run, what, more))
	}
	return out
}

// formatFraction renders a fraction as a percentage: 0.001 is "0.1%".
func formatFraction(f float64) string {
	return strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
}
