// Package verdict decides whether a result passes. From the contract's
// values alone, never from the text a summary prints about them, it says
// pass, fail or inconclusive, why (most serious first), which negative
// controls were caught, and what it found in each run: whether the run
// could be judged, each finding as a value, and whether the run's limiter
// kept its promise.
// The summary, the page and the decision table render what it decided;
// none of them decides again.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/internal/numfmt"
	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// Judgement is a verdict with what it rests on.
type Judgement struct {
	// Verdict is result.Pass, result.Fail, or result.Inconclusive when
	// nothing failed but a run could not judge what it set out to.
	Verdict string
	// Failures are what fails the result, most serious first; none on a
	// pass. Their texts are the verdict's reasons.
	Failures []Finding
	// Inconclusive are why runs could not judge what they set out to, in
	// the result's order, besides those their scenario accepts
	// (Accepted); on a result that did not fail, their texts are the
	// verdict's reasons.
	Inconclusive, Accepted []Finding
	// Caught lists the negative controls (expect_broken) the audit caught,
	// as the profile expected, each with what caught it.
	Caught []string
	// Runs says what was found in each of the result's runs, in the
	// result's order: Runs[i] is about r.Runs[i].
	Runs []Run
}

// Reasons say why the verdict is what it is: the failures' texts, most
// serious first, or on an inconclusive result why it could not judge;
// empty on a pass.
func (j Judgement) Reasons() []string {
	from := j.Failures
	if j.Verdict == result.Inconclusive {
		from = j.Inconclusive
	}
	out := make([]string, len(from))
	for i, f := range from {
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
	// Inconclusive are why the run could not judge what it set out to;
	// Accepted says its scenario accepts that (accept_inconclusive).
	Inconclusive []Finding
	Accepted     bool
}

// Finding returns the run's finding of kind k, if it has one, among what
// was found wrong and why it could not judge.
func (r Run) Finding(k Kind) (Finding, bool) {
	for _, f := range append(slices.Clone(r.Inconclusive), r.Findings...) {
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
	// UnderAdmission: the limiter denied requests its semantics promise to
	// admit.
	UnderAdmission
	// KeyWithoutTTL: the limiter left keys that never expire.
	KeyWithoutTTL
	// WindowNoTTL: right after the request that opened a window, the
	// limiter's window key had no TTL, so the window never ends: found
	// while the run went on.
	WindowNoTTL
	// KeyOutsidePrefix: the limiter's script wrote keys outside the run
	// prefix it was given.
	KeyOutsidePrefix
	// KeyOtherDatabase: the limiter's script wrote keys in another logical
	// database than the run's (it SELECTed one).
	KeyOtherDatabase
	// ControlNotCaught: a limiter the profile declares broken
	// (expect_broken) got through every run of it.
	ControlNotCaught
	// ThresholdFailed: a threshold of the profile failed.
	ThresholdFailed

	// The kinds that make a run inconclusive rather than failed.

	// NoPower: the run's traffic could not have shown an admission beyond
	// what the limiter promises (no identity reached its limit, or none
	// offered more than the bound).
	NoPower
	// FewSent: the run sent under 95% of the requests its schedule held.
	FewSent
	// NoBoundary: a boundary run placed no burst around any identity's
	// window boundary.
	NoBoundary
	// ErrorsNotLimiter: a run's calls that got no decision exceed the
	// error budget, but they got no answer at all (timeouts, lost
	// connections) while something other than the limiter held them:
	// rlbench itself waited for a CPU, and the server's own time per call
	// was well within the timeout.
	ErrorsNotLimiter
)

var kindNames = [...]string{
	Incomplete:       "INCOMPLETE",
	StateReset:       "STATE RESET",
	ErrorsOverBudget: "ERRORS",
	Overshoot:        "OVERSHOOT",
	ModelMismatch:    "MISMATCH",
	UnderAdmission:   "UNDER-ADMISSION",
	KeyWithoutTTL:    "NO TTL",
	WindowNoTTL:      "WINDOW WITHOUT TTL",
	KeyOutsidePrefix: "OUTSIDE PREFIX",
	KeyOtherDatabase: "OTHER DATABASE",
	ControlNotCaught: "NOT CAUGHT",
	ThresholdFailed:  "THRESHOLD",
	NoPower:          "NO POWER",
	FewSent:          "FEW SENT",
	NoBoundary:       "NO BOUNDARY",
	ErrorsNotLimiter: "ERRORS NOT THE LIMITER'S",
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
	return k == Overshoot || k == ModelMismatch || k == UnderAdmission || k == KeyWithoutTTL || k == WindowNoTTL || k == KeyOutsidePrefix || k == KeyOtherDatabase
}

// inconclusive reports whether a finding of this kind leaves a run unable
// to judge rather than failing it: the limiter is not to blame.
func (k Kind) inconclusive() bool {
	return k == StateReset || k == NoPower || k == FewSent || k == NoBoundary || k == ErrorsNotLimiter
}

// Promise is whether a limiter kept what its algorithm promises: never to
// admit beyond its own bound, and to decide as its reference model does.
type Promise int

const (
	// NotAudited: no audit judged the limiter (none ran, or the server
	// reset its state).
	NotAudited Promise = iota
	// Untested: the audit judged it on traffic that could not have shown
	// an excess, and found nothing.
	Untested
	// Kept: the audit judged it, on traffic that could have shown an
	// excess, and found no overshoot, mismatch or under-admission.
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
	case Untested:
		return "untested"
	}
	return "not audited"
}

// Limiter is the verdict on one algorithm's limiter over every run of it.
type Limiter struct {
	// Promise is Broken when some run found it broken, Kept when some run
	// with the power to catch it judged it and none found it broken,
	// Untested when the runs that judged it had no such power, else
	// NotAudited.
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
		case Kept, Untested:
			l.Promise = max(l.Promise, run.Promise)
		}
	}
	return l
}

// Assess judges a result from its contract values alone, never from the
// text a summary prints about them. By default a result fails when:
//
//   - it is incomplete (interrupted, aborted, or its server went away);
//   - a run's calls that got no decision exceed the error budget (a
//     fraction of its decisions; errors inside fault windows the profile
//     scheduled, or the server's watch saw, do not count), and the
//     limiter is to blame for them: Redis answered them with an error
//     (the script failed), or they got no answer while the server spent
//     as long as a call's timeout on each call of the limiter, or while
//     nothing else is known to have held them;
//   - a limiter broke its own bound (overshoot), disagreed with its
//     reference model (mismatches), denied what its semantics promise to
//     admit (under-admission), opened a window whose key had no TTL, left
//     a key without a TTL or wrote one outside its prefix, unless the
//     profile runs it as a negative control (expect_broken);
//   - a negative control was not caught by any of its runs;
//   - a threshold failed.
//
// A result that did not fail is inconclusive when a run could not judge
// what it set out to, and its scenario does not accept that:
//
//   - Redis evicted keys or restarted during the run: the limiter's state
//     was reset behind its back (its overshoot or mismatches are not
//     blamed on it);
//   - the run had no power: no identity reached its limit (the model
//     denied none) and none offered more than the bound in one interval,
//     so an admission beyond the promise could not show;
//   - it sent under 95% of the requests its schedule held;
//   - a boundary run placed no burst around any window boundary;
//   - its calls that got no decision exceed the error budget, but got no
//     answer at all (timeouts, lost connections) while rlbench waited for
//     a CPU at least result.CPUWaitStarved of the traffic's time, and the
//     server's time per call was within the call's timeout: the machine,
//     not the limiter.
func Assess(r *result.Result) Judgement {
	j := Judgement{Runs: make([]Run, len(r.Runs))}
	if !r.Complete {
		text := "the run did not complete"
		if r.IncompleteReason != "" {
			text += ": " + r.IncompleteReason
		}
		j.Failures = append(j.Failures, Finding{Kind: Incomplete, Text: text})
	}
	var errs, broken []Finding
	evidence := map[string][]string{}
	for i := range r.Runs {
		run := assessRun(r, &r.Runs[i])
		j.Runs[i] = run
		var caught []string
		if run.Accepted {
			j.Accepted = append(j.Accepted, run.Inconclusive...)
		} else {
			j.Inconclusive = append(j.Inconclusive, run.Inconclusive...)
		}
		for _, f := range run.Findings {
			switch {
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
	switch {
	case len(j.Failures) > 0:
		j.Verdict = result.Fail
	case len(j.Inconclusive) > 0:
		j.Verdict = result.Inconclusive
	default:
		j.Verdict = result.Pass
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

// assessRun finds what is wrong in one run, most serious first, and why
// it could not judge.
func assessRun(r *result.Result, run *result.Run) Run {
	out := Run{
		Algorithm:       run.Algorithm,
		Scenario:        run.Scenario,
		Judged:          !run.Eviction.ResetState(),
		NegativeControl: slices.Contains(r.Profile.ExpectBroken, run.Algorithm),
		Accepted:        run.Params.AcceptInconclusive,
	}
	// A clean factor between what the limiter admitted and what its
	// policy allows is said beside its first finding.
	hint := unitHint(r, run)
	add := func(k Kind, count int64, text string) {
		if k.limiter() && hint != "" {
			text, hint = text+hint, ""
		}
		f := Finding{Kind: k, Run: run.Key(), Count: count, Text: text}
		if k.inconclusive() {
			out.Inconclusive = append(out.Inconclusive, f)
			return
		}
		out.Findings = append(out.Findings, f)
	}
	if !out.Judged {
		add(StateReset, run.Eviction.EvictedKeys, resetText(run))
	}
	// An incomplete run's errors are what stopped it (the server gone, or
	// refusing its calls for a reason of its own), which the result's
	// incompleteness says: they are not the limiter's to budget.
	if k, errs, text, over := overBudget(run, r.Profile.Budget()); over && !run.Incomplete {
		add(k, errs, text)
	}
	// A fault (scheduled, or seen by the server's watch) holds the
	// generator's workers in timeouts and a stalled server: what it kept
	// from being sent is the fault's, and the faults section counts it.
	if q := run.Requests; q.Planned > 0 && float64(q.Sent) < 0.95*float64(q.Planned) && (run.Faults == nil || len(run.Faults.Windows) == 0) {
		add(FewSent, q.Planned-q.Sent, fmt.Sprintf("%s: inconclusive: it sent %s of the %s requests its schedule held (%s): it did not do what its scenario planned",
			run.Key(), numfmt.Count(q.Sent), numfmt.Count(q.Planned), numfmt.Share(float64(q.Sent)/float64(q.Planned))))
	}
	if a := run.Audit; a != nil && run.Shape == "boundary" && (run.Edge == nil || run.Edge.Identities == 0) {
		add(NoBoundary, 0, fmt.Sprintf("%s: inconclusive: no burst was placed around any identity's window boundary, so the edge was never straddled", run.Key()))
	} else if w := run.WindowLocation; a != nil && w != nil && w.Method != "after_prime" && w.Identities > 0 && w.AfterPrime == w.Identities {
		add(NoBoundary, 0, fmt.Sprintf("%s: inconclusive: no identity's window end could be found (by %s), so the bursts went a window after each prime and may not straddle a boundary", run.Key(), w.Method))
	}
	if a := run.Audit; a != nil && out.Judged {
		out.Promise = Kept
		if p := a.Power; p != nil && !p.Excess {
			out.Promise = Untested
			add(NoPower, 0, noPowerText(r, run, p))
		}
		if a.Overshoot > 0 {
			out.Promise = Broken
			add(Overshoot, a.Overshoot, fmt.Sprintf("%s: OVERSHOOT: %s %s more than the algorithm's own bound of %s within one %s (%s %s beyond it)%s",
				run.Key(), numfmt.Count(a.Violations), plural.Noun(a.Violations, "identity got", "identities got"), numfmt.Count(a.BoundWindow),
				numfmt.Millis(r.AuditWindowMs(run)), numfmt.Count(a.Overshoot), plural.Noun(a.Overshoot, "admission", "admissions"), callerClockCost(r, run)))
		}
		if a.ModelMismatches > 0 {
			out.Promise = Broken
			text := fmt.Sprintf("%s: MISMATCH: %s of %s %s from the reference model", run.Key(), numfmt.Count(a.ModelMismatches), numfmt.Count(a.Decisions),
				plural.Noun(a.ModelMismatches, "decision differs", "decisions differ"))
			if run.Requests.Errors > 0 {
				text += fmt.Sprintf(" in every state it may have been in after the %s %s whose outcome is unknown", numfmt.Count(run.Requests.Errors), plural.Noun(run.Requests.Errors, "call", "calls"))
			}
			add(ModelMismatch, a.ModelMismatches, text)
		}
		if a.UnderAdmitted > 0 {
			out.Promise = Broken
			add(UnderAdmission, a.UnderAdmitted, underText(run, a))
		}
	}
	if w := run.WindowLocation; w != nil && w.WithoutTTL > 0 {
		add(WindowNoTTL, w.WithoutTTL, fmt.Sprintf("%s: WINDOW WITHOUT TTL: right after the request that opened its window, the key of %s of %s identities had no TTL (e.g. %s): the window never ends, where a fixed window's key must expire when its window does",
			run.Key(), numfmt.Count(w.WithoutTTL), numfmt.Count(w.Identities), w.Example))
	}
	if m := run.Memory; m != nil && m.KeysWithoutTTL > 0 {
		add(KeyWithoutTTL, m.KeysWithoutTTL, fmt.Sprintf("%s: %s %s left without a TTL and never %s (a leak)", run.Key(), numfmt.Count(m.KeysWithoutTTL),
			plural.Noun(m.KeysWithoutTTL, "key was", "keys were"), plural.Noun(m.KeysWithoutTTL, "expires", "expire")))
	}
	if m := run.Memory; m != nil && m.KeysOtherDatabases > 0 {
		add(KeyOtherDatabase, m.KeysOtherDatabases, fmt.Sprintf("%s: the limiter's script wrote %s keys in other logical databases than the run's, %s of them without a TTL (e.g. %s): a script that SELECTs another database escapes the run's prefix, its census and its cleanup",
			run.Key(), numfmt.Count(m.KeysOtherDatabases), numfmt.Count(m.KeysOtherDatabasesWithoutTTL), strings.Join(m.OtherDatabaseExamples, ", ")))
	}
	if m := run.Memory; m != nil && m.KeysOutsidePrefix > 0 {
		add(KeyOutsidePrefix, m.KeysOutsidePrefix, fmt.Sprintf("%s: the limiter's script wrote %s %s outside the run prefix it was given (e.g. %s)",
			run.Key(), numfmt.Count(m.KeysOutsidePrefix), plural.Noun(m.KeysOutsidePrefix, "key", "keys"), strings.Join(m.OutsidePrefixExamples, ", ")))
	}
	return out
}

// noPowerText says why a run could not have shown an excess.
func noPowerText(r *result.Result, run *result.Run, p *result.Power) string {
	a := run.Audit
	offered := fmt.Sprintf("its identities offered at most %s within one %s against a bound of %s",
		numfmt.Count(p.OfferedMaxInWindow), numfmt.Millis(r.AuditWindowMs(run)), numfmt.Count(a.BoundWindow))
	text := run.Key() + ": inconclusive: " + offered
	switch causes := uncertainty(run); {
	case causes != "" && p.Replayed && p.ExpectedDenied == 0:
		text = fmt.Sprintf("%s: inconclusive: the reference model denied none of its requests in every state %s may have left the limiter in (%s, within one lifetime of their state)",
			run.Key(), causes, offered)
	case causes != "":
		text += ", within one lifetime of their state (" + causes + " may have reset it)"
	case p.Replayed && p.ExpectedDenied == 0:
		text += ", and the reference model denied none of its requests"
	}
	return text + ": an admission beyond what the limiter promises could not show (offer more, or accept_inconclusive)"
}

// uncertainty names what left a run's limiter in more than one possible
// state: resets the server's watch saw, faults that lost state, and calls
// whose outcome is unknown; "" when nothing did.
func uncertainty(run *result.Run) string {
	var causes []string
	seen := map[string]bool{}
	if f := run.Faults; f != nil {
		for _, w := range f.Windows {
			what := resetCause(w)
			if what == "" || seen[what] {
				continue
			}
			seen[what] = true
			causes = append(causes, fmt.Sprintf("%s at %s", what, numfmt.Millis(w.ObservedStartMs)))
		}
		if u := f.Uncertain; u != nil && u.Identities > 0 {
			causes = append(causes, fmt.Sprintf("the calls of %s %s whose outcome is unknown", numfmt.Count(u.Identities), plural.Noun(u.Identities, "identity", "identities")))
		}
	}
	if e := run.Eviction; e != nil && e.EvictedKeys > 0 && !seen["Redis evictions"] {
		causes = append(causes, fmt.Sprintf("Redis evicting %s %s", numfmt.Count(e.EvictedKeys), plural.Noun(e.EvictedKeys, "key", "keys")))
	}
	return strings.Join(causes, ", ")
}

// resetCause names the party that reset limiter state in a fault window,
// "" when the window reset none.
func resetCause(w result.FaultWindow) string {
	switch w.Kind {
	case "evicted":
		return "Redis evictions"
	case "flushall", "flushdb":
		return "another client's " + strings.ToUpper(w.Kind)
	case "deleted":
		return "another client's deletes"
	case "restart":
		if w.Unscheduled {
			return "an unscheduled restart"
		}
		return "the scheduled restart"
	case "failover":
		if w.Unscheduled {
			return "a Sentinel failover"
		}
	}
	if !w.Unscheduled && w.StateLost != nil {
		return "the " + w.Kind
	}
	return ""
}

// callerClockCost says, for a limiter that takes its time from its caller
// and went past its bound on the true clock, what that looked like there
// and on its own clock; for one whose own clock saw no excess, that its
// caller's clock is what let it through: a clock coarser than the window
// can bear takes requests milliseconds apart across a tick for a tick
// apart. "" when there is nothing to say.
func callerClockCost(r *result.Result, run *result.Run) string {
	a := run.Audit
	cc := a.CallerClock
	if cc == nil || cc.Burst == nil {
		return ""
	}
	b := cc.Burst
	within := numfmt.Micros(int64(b.WithinMs * 1000))
	window := numfmt.Millis(r.AuditWindowMs(run))
	inWindow := fmt.Sprintf("%s in one %s window on the true clock", numfmt.Count(b.Admitted), window)
	if limit := run.Params.Limit; limit > 0 {
		inWindow += fmt.Sprintf(" (%s the limit of %s)", timesOf(float64(b.Admitted)/float64(limit)), numfmt.Count(limit))
	}
	own := fmt.Sprintf("on its own clock (the times its requests carried) %s", numfmt.Count(cc.MaxWindowAdmittedOwn))
	if cc.MaxWindowAdmittedOwn > a.BoundWindow {
		return fmt.Sprintf("; %s, more than its bound within %s; %s", inWindow, within, own)
	}
	tick, ok := tickName(cc.TickUs)
	if !ok || !b.AcrossTicks {
		return fmt.Sprintf("; more than its bound went through within %s, %s, where %s at most: its callers' clocks, not its own, let them through",
			within, inWindow, own)
	}
	if b.AdmittedWithinMs <= 0 {
		return fmt.Sprintf("; its caller's whole-%s clock let more than its bound through within %s across a %s boundary, requests it took for a %s apart: %s, %s at most",
			tick, within, tick, tick, inWindow, own)
	}
	// What the coarse clock cost: all the window held, and how quickly.
	cost := numfmt.Count(b.Admitted)
	if limit := run.Params.Limit; limit > 0 {
		cost = fmt.Sprintf("%s the limit (%s)", timesOf(float64(b.Admitted)/float64(limit)), cost)
	}
	return fmt.Sprintf("; its caller's whole-%s clock let %s through within %s across a %s boundary (more than its bound of %s within %s), requests it took for a %s apart; %s at most in one %s window",
		tick, cost, numfmt.Micros(int64(b.AdmittedWithinMs*1000)), tick, numfmt.Count(a.BoundWindow), within, tick, own, window)
}

// tickName names a caller's clock tick of tickUs microseconds as a unit
// ("second"), when it is a whole unit coarser than a microsecond.
func tickName(tickUs int64) (string, bool) {
	switch tickUs {
	case 1_000_000:
		return "second", true
	case 1000:
		return "millisecond", true
	case 60_000_000:
		return "minute", true
	}
	return "", false
}

// timesOf writes a ratio as "2x" or "1.8x".
func timesOf(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0fx", f)
	}
	return fmt.Sprintf("%.1fx", f)
}

// underText says how the limiter denied what its semantics promise.
func underText(run *result.Run, a *result.Audit) string {
	text := fmt.Sprintf("%s: UNDER-ADMISSION: it denied %s %s its semantics promise to admit", run.Key(), numfmt.Count(a.UnderAdmitted), plural.Noun(a.UnderAdmitted, "request", "requests"))
	switch p := a.Power; {
	case a.HasModel():
		text += " (the reference model admits each of them in every state it may have been in)"
	case p != nil && p.PromiseAdmits > 0:
		text += fmt.Sprintf(" (fewer than %s admissions lay within the %s before each, wherever in its round trip each was decided)",
			numfmt.Count(p.PromiseAdmits), numfmt.Millis(int64(p.PromiseWithinMs)))
	}
	return text
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
	return fmt.Sprintf("%s: Redis evicted %s %s (maxmemory-policy %s): limiter state was reset, the audit cannot judge this run",
		run.Key(), numfmt.Count(e.EvictedKeys), plural.Noun(e.EvictedKeys, "key", "keys"), policy)
}

// overBudget says whether the run's failed calls exceed budget (a fraction
// of its decisions) and, if so, whose they are (ErrorsOverBudget when the
// limiter's, ErrorsNotLimiter when the machine's), how many, and how.
//
// An error Redis answered is the limiter's: its script or command failed.
// A call that got no answer (it timed out, its connection broke) is the
// limiter's when the server's own time per call of it reached the call's
// timeout (the script alone was slow enough to time out), and when nothing
// else is known to have held it; it is the machine's when rlbench waited
// for a CPU result.CPUWaitStarved of the traffic's time or more. Failures
// inside faults the profile scheduled, or the server's watch saw (a stall,
// a restart), are already left out of the budget.
func overBudget(run *result.Run, budget float64) (Kind, int64, string, bool) {
	q := run.Requests
	errs := q.BudgetedErrors()
	allowed := budget * float64(q.Decisions())
	if errs <= 0 || float64(errs) <= allowed {
		return 0, 0, "", false
	}
	common := ""
	if len(run.Errors) > 0 {
		common = fmt.Sprintf(" (most common: %q x%s)", run.Errors[0].Message, numfmt.Count(run.Errors[0].Count))
	}
	excused := ""
	if q.FaultErrors > 0 {
		excused = fmt.Sprintf(", besides %s inside fault windows", numfmt.Count(q.FaultErrors))
	}
	text := fmt.Sprintf("%s: %s of %s %s no decision%s%s, past the error budget of %s of decisions",
		run.Key(), numfmt.Count(errs), numfmt.Count(q.Sent), plural.Noun(errs, "call got", "calls got"), common, excused, numfmt.Fraction(budget))

	// The calls that got no answer, outside the faults: those the faults
	// excused are taken to be such calls first, as the faults section
	// excuses only those.
	unanswered := min(max(result.NoAnswerErrors(run.Errors)-q.FaultErrors, 0), errs)
	answered := errs - unanswered
	switch {
	case float64(answered) > allowed:
		return ErrorsOverBudget, errs, fmt.Sprintf("%s: Redis answered %s of them with an error: the limiter's script or command failed", text, numfmt.Count(answered)), true
	case unanswered == 0:
		return ErrorsOverBudget, errs, text, true
	}
	perCall, timeoutMs := serverPerCall(run), run.Params.CallTimeoutMs
	if perCall > 0 && timeoutMs > 0 && perCall >= timeoutMs*1000 {
		return ErrorsOverBudget, errs, fmt.Sprintf("%s: the server spent %s on each call of the limiter, as long as the %s a call was given: the limiter is too slow",
			text, numfmt.Micros(int64(perCall)), numfmt.Micros(int64(timeoutMs*1000))), true
	}
	if g := run.Generator; g != nil && g.CPUWaitShare >= result.CPUWaitStarved {
		server := ""
		if perCall > 0 && timeoutMs > 0 {
			server = fmt.Sprintf(", where the server spent %s on each call of the limiter, within the %s a call was given", numfmt.Micros(int64(perCall)), numfmt.Micros(int64(timeoutMs*1000)))
		}
		return ErrorsNotLimiter, unanswered, fmt.Sprintf("%s: inconclusive: %s %s no answer (%s) while rlbench waited for a CPU %.0f%% of the traffic's time%s: the machine, not the limiter, failed them",
			run.Key(), numfmt.Count(unanswered), plural.Noun(unanswered, "call got", "calls got"), unansweredKinds(run.Errors), 100*g.CPUWaitShare, server), true
	}
	return ErrorsOverBudget, errs, text, true
}

// serverPerCall is the server's own time per call of the run's limiter, in
// microseconds; 0 when it was not measured.
func serverPerCall(run *result.Run) float64 {
	if s := run.Server; s != nil && s.Calls > 0 {
		return s.UsecPerCall
	}
	return 0
}

// unansweredKinds names the kinds of the calls that got no answer, most
// frequent first: "timeout x199, EOF x3".
func unansweredKinds(errs []result.ErrorCount) string {
	var kinds []string
	for _, e := range errs {
		if e.NoAnswer() {
			kinds = append(kinds, e.Kind+" x"+numfmt.Count(e.Count))
		}
	}
	return strings.Join(kinds, ", ")
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
