// Package verdict decides whether a result passes. From the contract's
// values alone, never from the text a summary prints about them, it says
// pass or fail, why (most serious first), which negative controls were
// caught, and what it found in each run: whether the run could be judged,
// each finding as a value, and whether the run's limiter kept its promise.
// The summary, the page and the decision table render what it decided;
// none of them decides again.
package verdict

import (
	"fmt"
	"github.com/rlbench/rlbench/internal/numfmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// Judgement is a verdict with what it rests on.
type Judgement struct {
	// Verdict is result.Pass or result.Fail.
	Verdict string
	// Failures are what fails the result, most serious first; none on a
	// pass. Their texts are the verdict's reasons.
	Failures []Finding
	// Caught lists the negative controls (expect_broken) the audit caught,
	// as the profile expected, each with what caught it.
	Caught []string
	// Runs says what was found in each of the result's runs, in the
	// result's order: Runs[i] is about r.Runs[i].
	Runs []Run
}

// Reasons are the texts of the failures: why the verdict is fail, most
// serious first; empty on a pass.
func (j Judgement) Reasons() []string {
	out := make([]string, len(j.Failures))
	for i, f := range j.Failures {
		out[i] = f.Text
	}
	return out
}

// Run is what the verdict found in one run.
type Run struct {
	Algorithm, Scenario string
	// Judged is false when the server reset the run's limiter state
	// behind its back (it evicted keys or restarted): the run's audit then
	// says nothing about the limiter, and its overshoot and mismatches are
	// not blamed on it.
	Judged bool
	// NegativeControl says the profile runs this limiter as a negative
	// control (expect_broken): what is found wrong with it catches it
	// rather than fails the result.
	NegativeControl bool
	// Promise says whether the limiter kept its own bound and agreed with
	// its reference model in this run.
	Promise Promise
	// Findings are what was found wrong in this run, most serious first,
	// whether or not they fail the result (a negative control's do not).
	Findings []Finding
}

// Finding returns the run's finding of kind k, if it has one.
func (r Run) Finding(k Kind) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Kind == k {
			return f, true
		}
	}
	return Finding{}, false
}

// Has reports whether the run has a finding of kind k.
func (r Run) Has(k Kind) bool {
	_, ok := r.Finding(k)
	return ok
}

// Finding is one thing the verdict found wrong.
type Finding struct {
	Kind Kind
	// Run is the key (algorithm/scenario) of the run it was found in; for
	// a failed threshold the first run it failed on; empty for a finding
	// about the result as a whole.
	Run string
	// Count is how much: admissions beyond the bound, decisions that
	// differ from the model, keys, calls without a decision, evicted keys,
	// runs a threshold failed on; 0 where nothing is counted (an
	// incomplete result, a restart, a negative control not caught).
	Count int64
	// Text says it in one line, as the verdict's reasons do.
	Text string
}

// short names a limiter finding briefly: "OVERSHOOT 12".
func (f Finding) short() string { return f.Kind.String() + " " + numfmt.Count(f.Count) }

// Kind is what a finding is about. The kinds are declared most serious
// first.
type Kind int

const (
	// Incomplete: the run did not complete (interrupted, aborted, or its
	// server went away).
	Incomplete Kind = iota + 1
	// StateReset: Redis evicted keys or restarted during a run, so that
	// run's audit cannot judge its limiter.
	StateReset
	// ErrorsOverBudget: a run's calls that got no decision exceed the
	// error budget.
	ErrorsOverBudget
	// Overshoot: the limiter admitted more than its own bound allows.
	Overshoot
	// ModelMismatch: the limiter decided otherwise than its reference
	// model.
	ModelMismatch
	// KeyWithoutTTL: the limiter left keys that never expire.
	KeyWithoutTTL
	// WindowNoTTL: right after the request that opened a window, the
	// limiter's window key had no TTL, so the window never ends: found
	// while the run went on.
	WindowNoTTL
	// KeyOutsidePrefix: the limiter's script wrote keys outside the run
	// prefix it was given.
	KeyOutsidePrefix
	// ControlNotCaught: a limiter the profile declares broken
	// (expect_broken) got through every run of it.
	ControlNotCaught
	// ThresholdFailed: a threshold of the profile failed.
	ThresholdFailed
)

var kindNames = [...]string{
	Incomplete:       "INCOMPLETE",
	StateReset:       "STATE RESET",
	ErrorsOverBudget: "ERRORS",
	Overshoot:        "OVERSHOOT",
	ModelMismatch:    "MISMATCH",
	KeyWithoutTTL:    "NO TTL",
	WindowNoTTL:      "WINDOW WITHOUT TTL",
	KeyOutsidePrefix: "OUTSIDE PREFIX",
	ControlNotCaught: "NOT CAUGHT",
	ThresholdFailed:  "THRESHOLD",
}

// String is the kind's short name, as the summary marks it: OVERSHOOT,
// MISMATCH, NO TTL.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// limiter reports whether a finding of this kind blames the limiter: it
// catches a negative control, and fails any other limiter.
func (k Kind) limiter() bool {
	return k == Overshoot || k == ModelMismatch || k == KeyWithoutTTL || k == WindowNoTTL || k == KeyOutsidePrefix
}

// Promise is whether a limiter kept what its algorithm promises: never to
// admit beyond its own bound, and to decide as its reference model does.
type Promise int

const (
	// NotAudited: no audit judged the limiter (none ran, or the server
	// reset its state).
	NotAudited Promise = iota
	// Kept: the audit judged it and found no overshoot and no mismatch.
	Kept
	// Broken: the audit found an overshoot or a mismatch.
	Broken
)

// String says the promise as the decision table does: "kept", "broken",
// "not audited".
func (p Promise) String() string {
	switch p {
	case Kept:
		return "kept"
	case Broken:
		return "broken"
	}
	return "not audited"
}

// Limiter is the verdict on one algorithm's limiter over every run of it.
type Limiter struct {
	// Promise is Broken when some run found it broken, Kept when some run
	// judged it and none found it broken, else NotAudited.
	Promise Promise
	// BrokenIn names the scenarios whose runs found it broken, in the
	// result's order.
	BrokenIn []string
}

// Limiter is the verdict on algorithm's limiter over all its runs.
func (j Judgement) Limiter(algorithm string) Limiter {
	var l Limiter
	for _, run := range j.Runs {
		if run.Algorithm != algorithm {
			continue
		}
		switch run.Promise {
		case Broken:
			l.Promise = Broken
			if !slices.Contains(l.BrokenIn, run.Scenario) {
				l.BrokenIn = append(l.BrokenIn, run.Scenario)
			}
		case Kept:
			l.Promise = max(l.Promise, Kept)
		}
	}
	return l
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
//     reference model (mismatches), opened a window whose key had no TTL,
//     left a key without a TTL or wrote one outside its prefix, unless the
//     profile runs it as a negative control (expect_broken);
//   - a negative control was not caught by any of its runs;
//   - a threshold failed.
func Assess(r *result.Result) Judgement {
	j := Judgement{Runs: make([]Run, len(r.Runs))}
	if !r.Complete {
		text := "the run did not complete"
		if r.IncompleteReason != "" {
			text += ": " + r.IncompleteReason
		}
		j.Failures = append(j.Failures, Finding{Kind: Incomplete, Text: text})
	}
	var reset, errs, broken []Finding
	evidence := map[string][]string{}
	for i := range r.Runs {
		run := assessRun(r, &r.Runs[i])
		j.Runs[i] = run
		var caught []string
		for _, f := range run.Findings {
			switch {
			case f.Kind == StateReset:
				reset = append(reset, f)
			case f.Kind == ErrorsOverBudget:
				errs = append(errs, f)
			case !run.NegativeControl:
				broken = append(broken, f)
			case run.Judged && f.Kind.limiter():
				// A negative control is caught only by a run that could
				// judge it.
				caught = append(caught, f.short())
			}
		}
		if len(caught) > 0 {
			evidence[run.Algorithm] = append(evidence[run.Algorithm], run.Scenario+": "+strings.Join(caught, ", "))
		}
	}
	j.Failures = append(j.Failures, reset...)
	j.Failures = append(j.Failures, errs...)
	j.Failures = append(j.Failures, broken...)
	for _, alg := range r.Profile.ExpectBroken {
		if ev := evidence[alg]; len(ev) > 0 {
			j.Caught = append(j.Caught, fmt.Sprintf("%s: caught, as expected (%s)", alg, strings.Join(ev, "; ")))
			continue
		}
		j.Failures = append(j.Failures, Finding{Kind: ControlNotCaught, Text: notCaughtText(r, alg)})
	}
	j.Failures = append(j.Failures, thresholdFailures(r.Thresholds)...)
	j.Verdict = result.Pass
	if len(j.Failures) > 0 {
		j.Verdict = result.Fail
	}
	return j
}

// Judge evaluates the thresholds on r's runs and records in r the
// verdict and the reasons for it.
func Judge(r *result.Result, thresholds []*result.Threshold) {
	r.Thresholds = result.Evaluate(r, thresholds)
	j := Assess(r)
	r.Verdict, r.VerdictReasons = j.Verdict, j.Reasons()
}

// assessRun finds what is wrong in one run, most serious first.
func assessRun(r *result.Result, run *result.Run) Run {
	out := Run{
		Algorithm:       run.Algorithm,
		Scenario:        run.Scenario,
		Judged:          !run.Eviction.ResetState(),
		NegativeControl: slices.Contains(r.Profile.ExpectBroken, run.Algorithm),
	}
	add := func(k Kind, count int64, text string) {
		out.Findings = append(out.Findings, Finding{Kind: k, Run: run.Key(), Count: count, Text: text})
	}
	if !out.Judged {
		add(StateReset, run.Eviction.EvictedKeys, resetText(run))
	}
	if errs, text, over := overBudget(run, r.Profile.Budget()); over {
		add(ErrorsOverBudget, errs, text)
	}
	if a := run.Audit; a != nil && out.Judged {
		out.Promise = Kept
		if a.Overshoot > 0 {
			out.Promise = Broken
			add(Overshoot, a.Overshoot, fmt.Sprintf("%s: OVERSHOOT: %s identities got more than the algorithm's own bound of %s within one %s (%s admissions beyond it)",
				run.Key(), numfmt.Count(a.Violations), numfmt.Count(a.BoundWindow), numfmt.Millis(r.AuditWindowMs(run)), numfmt.Count(a.Overshoot)))
		}
		if a.ModelMismatches > 0 {
			out.Promise = Broken
			text := fmt.Sprintf("%s: MISMATCH: %s of %s decisions differ from the reference model", run.Key(), numfmt.Count(a.ModelMismatches), numfmt.Count(a.Decisions))
			if run.Requests.Errors > 0 {
				text += fmt.Sprintf(" (%s calls failed; a call that fails after its script ran leaves state the model cannot see)", numfmt.Count(run.Requests.Errors))
			}
			add(ModelMismatch, a.ModelMismatches, text)
		}
	}
	if w := run.WindowProbe; w != nil && w.WithoutTTL > 0 {
		add(WindowNoTTL, w.WithoutTTL, fmt.Sprintf("%s: WINDOW WITHOUT TTL: right after the request that opened its window, the key of %s of %s identities had no TTL (e.g. %s): the window never ends, where a fixed window's key must expire when its window does",
			run.Key(), numfmt.Count(w.WithoutTTL), numfmt.Count(w.Identities), w.Example))
	}
	if m := run.Memory; m != nil && m.KeysWithoutTTL > 0 {
		add(KeyWithoutTTL, m.KeysWithoutTTL, fmt.Sprintf("%s: %s keys were left without a TTL and never expire (a leak)", run.Key(), numfmt.Count(m.KeysWithoutTTL)))
	}
	if m := run.Memory; m != nil && m.KeysOutsidePrefix > 0 {
		add(KeyOutsidePrefix, m.KeysOutsidePrefix, fmt.Sprintf("%s: the limiter's script wrote %s keys outside the run prefix it was given (e.g. %s)",
			run.Key(), numfmt.Count(m.KeysOutsidePrefix), strings.Join(m.OutsidePrefixExamples, ", ")))
	}
	return out
}

// resetText says that the server dropped a run's limiter state.
func resetText(run *result.Run) string {
	e := run.Eviction
	if e.Restarted {
		return fmt.Sprintf("%s: Redis restarted during the run: limiter state was lost, the audit cannot judge this run", run.Key())
	}
	policy := e.PolicyAfter
	if e.PolicyBefore != e.PolicyAfter {
		policy = e.PolicyBefore + " until it was changed to " + e.PolicyAfter
	}
	return fmt.Sprintf("%s: Redis evicted %s keys (maxmemory-policy %s): limiter state was reset, the audit cannot judge this run",
		run.Key(), numfmt.Count(e.EvictedKeys), policy)
}

// overBudget says whether the run's failed calls exceed budget (a fraction
// of its decisions) and, if so, how many and how.
func overBudget(run *result.Run, budget float64) (int64, string, bool) {
	q := run.Requests
	errs := q.BudgetedErrors()
	if errs <= 0 || float64(errs) <= budget*float64(q.Decisions()) {
		return 0, "", false
	}
	common := ""
	if len(run.Errors) > 0 {
		common = fmt.Sprintf(" (most common: %q x%s)", run.Errors[0].Message, numfmt.Count(run.Errors[0].Count))
	}
	excused := ""
	if q.FaultErrors > 0 {
		excused = fmt.Sprintf(", besides %s inside scheduled fault windows", numfmt.Count(q.FaultErrors))
	}
	return errs, fmt.Sprintf("%s: %s of %s calls got no decision%s%s, past the error budget of %s of decisions",
		run.Key(), numfmt.Count(errs), numfmt.Count(q.Sent), common, excused, numfmt.Fraction(budget)), true
}

// notCaughtText says that a negative control got through.
func notCaughtText(r *result.Result, alg string) string {
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

// thresholdFailures gives one finding per failed threshold expression,
// with the first run it failed on.
func thresholdFailures(ts []result.ThresholdResult) []Finding {
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
	out := make([]Finding, 0, len(order))
	for _, expr := range order {
		first := failed[expr][0]
		what := first.Note
		if what == "" {
			field := result.FieldOf(expr)
			what = fmt.Sprintf("measured %s, against %s", numfmt.FieldValue(field, first.Value), numfmt.FieldValue(field, first.Against))
		}
		more := ""
		if n := len(failed[expr]) - 1; n > 0 {
			more = fmt.Sprintf(" and %d more runs", n)
		}
		out = append(out, Finding{Kind: ThresholdFailed, Run: first.Run, Count: int64(len(failed[expr])),
			Text: fmt.Sprintf("threshold %q failed on %s (%s)%s", expr, first.Run, what, more)})
	}
	return out
}
