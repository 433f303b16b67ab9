package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// Recommendation is which limiter fits a result's policy and traffic best,
// decided from the result's values: among the limiters that kept their
// promise (or, when none was put to the test, every one the audit did not
// find broken), the most accurate; of those as accurate as it, the one with
// the least memory per identity, then the least server time per decision.
// RunnerUp is the next in that order, and what choosing it instead would
// save or cost.
type Recommendation struct {
	// Best and RunnerUp are the two first limiters of the ranking; empty
	// when there is none (RunnerUp also when only one limiter qualifies).
	Best, RunnerUp *Costs
	// Tested says the ranked limiters kept their promise on traffic that
	// could have shown otherwise; false when they were only not found
	// broken by runs without that power, so accuracy could not rank them.
	Tested bool
	// Decided names the figures that set Best before RunnerUp: accuracy,
	// memory, server time, or none when they tie on every one.
	Decided string
	// Identities is the population memory is projected onto.
	Identities int64
	// Excluded are the limiters left out, each with why (broken, not
	// audited).
	Excluded []string
	// ByIdeal says accuracy is the share of decisions decided otherwise
	// than the ideal limiter (every ranked limiter was set beside the same
	// one); otherwise it is the most one identity got past the policy in
	// one window.
	ByIdeal bool
}

// Ranking figures.
const (
	decidedAccuracy = "accuracy"
	decidedMemory   = "memory"
	decidedServer   = "server time"
	decidedNone     = "none"
	// memoryTie and serverTie are how far two limiters' memory per
	// identity and server time per decision may differ and still count as
	// the same: what back-to-back runs move them by (compare's default
	// tolerances for memory, and half its server cost's).
	memoryTie = 0.05
	serverTie = 0.125
)

// Recommend ranks r's limiters for its policy and traffic.
func Recommend(r *result.Result, j verdict.Judgement) Recommendation {
	rec := Recommendation{Identities: ProjectionIdentities(r)}
	costs := AlgorithmCosts(r)
	var kept, untested []*Costs
	for _, alg := range algorithmOrder(r) {
		c := costs[alg]
		switch lim := j.Limiter(alg); lim.Promise {
		case verdict.Kept:
			kept = append(kept, c)
		case verdict.Untested:
			untested = append(untested, c)
		case verdict.Broken:
			rec.Excluded = append(rec.Excluded, alg+" (broke its promise in "+strings.Join(lim.BrokenIn, ", ")+")")
		default:
			rec.Excluded = append(rec.Excluded, alg+" (not audited)")
		}
	}
	ranked := kept
	rec.Tested = len(kept) > 0
	if !rec.Tested {
		ranked = untested
	}
	rec.ByIdeal = len(ranked) > 0
	for _, c := range ranked {
		rec.ByIdeal = rec.ByIdeal && c.HaveWrong && c.IdealDecisions > 0 && c.Ideal == ranked[0].Ideal && c.Ideal != mixedIdeals
	}
	// A stable insertion sort keeps the profile's order among equals.
	for i := 1; i < len(ranked); i++ {
		for k := i; k > 0 && before(ranked[k], ranked[k-1], rec.Tested, rec.ByIdeal) != ""; k-- {
			ranked[k], ranked[k-1] = ranked[k-1], ranked[k]
		}
	}
	if len(ranked) > 0 {
		rec.Best = ranked[0]
	}
	if len(ranked) > 1 {
		rec.RunnerUp = ranked[1]
		rec.Decided = before(ranked[0], ranked[1], rec.Tested, rec.ByIdeal)
		if rec.Decided == "" {
			rec.Decided = decidedNone
		}
	}
	return rec
}

// before says by which figure a ranks before b, or "" when it does not:
// accuracy first (when the limiters were tested), then memory per
// identity, then server time per decision, each compared only when both
// have it and only past what noise moves it by. byIdeal: accuracy is the
// share of decisions wrong beside the ideal limiter.
func before(a, b *Costs, tested, byIdeal bool) string {
	if aa, ok := accuracyOf(a, byIdeal); ok && tested {
		if ab, ok := accuracyOf(b, byIdeal); ok {
			if aa.better(ab) {
				return decidedAccuracy
			}
			if ab.better(aa) {
				return ""
			}
		}
	}
	if a.HaveMemory && b.HaveMemory {
		if a.BytesPerIdentity < b.BytesPerIdentity*(1-memoryTie) {
			return decidedMemory
		}
		if b.BytesPerIdentity < a.BytesPerIdentity*(1-memoryTie) {
			return ""
		}
	}
	if a.HaveServer && b.HaveServer && a.UsecPerCall < b.UsecPerCall*(1-serverTie) {
		return decidedServer
	}
	return ""
}

// accuracy is how far a limiter's admissions strayed from what the policy
// asks, lower being better: the share of its decisions it decided
// otherwise than the ideal limiter of the policy, run on the same arrivals
// (runs[].accuracy), when every ranked limiter was set beside it; else the
// most one identity got past the policy's limit within one window
// (audit.policy_excess, the worst of its runs).
type accuracy struct {
	// loss is the figure, slack how far timing alone moves it.
	loss, slack float64
	// phrase says the figure of one limiter ("13 past the policy in one
	// window"), value the figure alone ("13"); basis what the figure is,
	// for the sentence's last words.
	phrase, value, basis string
}

// accuracyOf is c's accuracy, beside the ideal when byIdeal; false when
// no audited run measured it.
func accuracyOf(c *Costs, byIdeal bool) (accuracy, bool) {
	if byIdeal {
		if !c.HaveWrong || c.IdealDecisions == 0 {
			return accuracy{}, false
		}
		// As past the policy: when, to the millisecond, a burst is
		// decided moves a request or two, or a tenth.
		wrong := c.FalseAdmits + c.FalseDenies
		value := FormatShare(c.WrongShare())
		return accuracy{
			loss:   c.WrongShare(),
			slack:  timingSlack(float64(wrong)) / float64(c.IdealDecisions),
			phrase: value + " of decisions wrong vs the ideal",
			value:  value,
			basis:  "here the share of decisions decided otherwise than the ideal limiter of the policy, run on the same arrivals",
		}, true
	}
	if !c.HaveExcess {
		return accuracy{}, false
	}
	value := FormatCount(c.PolicyExcess)
	return accuracy{
		loss:   float64(c.PolicyExcess),
		slack:  timingSlack(float64(c.PolicyExcess)),
		phrase: value + " past the policy in one window",
		value:  value,
		basis:  "here the most one identity got past the policy within one window: not every limiter of this result was judged beside one ideal limiter",
	}, true
}

// better reports whether a is more accurate than b by more than timing
// moves a.
func (a accuracy) better(b accuracy) bool { return a.loss+a.slack < b.loss }

// ProjectionIdentities is the population a result's memory is projected
// onto: the profile's report.identities, else the most identities a run
// held (at least one).
func ProjectionIdentities(r *result.Result) int64 {
	if r.Profile.ReportIdentities > 0 {
		return r.Profile.ReportIdentities
	}
	var most int64
	for i := range r.Runs {
		most = max(most, int64(r.Runs[i].Identities))
	}
	return max(most, 1)
}

// Sentence says the recommendation in one sentence: which limiter, by
// which figures, and what the runner-up would save (or cost) instead;
// empty when no limiter qualifies and none was excluded.
func (rec Recommendation) Sentence(policy string) string {
	b := rec.Best
	if b == nil {
		if len(rec.Excluded) == 0 {
			return ""
		}
		return "No limiter to recommend for " + policy + ": " + joinAnd(rec.Excluded) + "."
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Best fit for %s on this traffic: %s", policy, b.Algorithm)
	var why []string
	if acc, ok := accuracyOf(b, rec.ByIdeal); ok && rec.Tested {
		switch {
		case rec.RunnerUp == nil:
			why = append(why, "it kept its promise ("+acc.phrase+")")
		case rec.Decided == decidedAccuracy:
			why = append(why, "the most accurate ("+acc.phrase+")")
		default:
			why = append(why, "as accurate as the runner-up ("+acc.phrase+")")
		}
	}
	if b.HaveMemory {
		phrase := FormatSize(b.BytesPerIdentity) + " per identity in " + b.MemoryScenario
		if rec.Decided == decidedMemory {
			phrase = "the least memory (" + phrase + ")"
		}
		why = append(why, phrase)
	}
	if b.HaveServer {
		phrase := fmt.Sprintf("%.1f µs of Redis time per decision", b.UsecPerCall)
		if rec.Decided == decidedServer {
			phrase = "the least server time (" + phrase + ")"
		}
		why = append(why, phrase)
	}
	if len(why) > 0 {
		s.WriteString(", " + strings.Join(why, ", "))
	}
	if r := rec.RunnerUp; r != nil {
		s.WriteString("; the runner-up, " + r.Algorithm + ", " + rec.trade(b, r))
	}
	s.WriteString(" — " + rec.basis(b) + ".")
	return s.String()
}

// trade says what choosing r over b would save and what it would cost.
func (rec Recommendation) trade(b, r *Costs) string {
	var save, cost []string
	if b.HaveMemory && r.HaveMemory {
		d := b.BytesPerIdentity - r.BytesPerIdentity
		at := fmt.Sprintf(" per identity (%s at %s identities)", FormatSize(math.Abs(d)*float64(rec.Identities)), FormatCountShort(rec.Identities))
		switch {
		case d > b.BytesPerIdentity*memoryTie:
			save = append(save, FormatSize(d)+at)
		case -d > b.BytesPerIdentity*memoryTie:
			cost = append(cost, FormatSize(-d)+" more"+at)
		}
	}
	if b.HaveServer && r.HaveServer {
		d := b.UsecPerCall - r.UsecPerCall
		share := fmt.Sprintf(" (%.0f%%)", 100*math.Abs(d)/b.UsecPerCall)
		switch {
		case d > b.UsecPerCall*serverTie:
			save = append(save, fmt.Sprintf("%.1f µs of Redis time per decision", d)+share)
		case -d > b.UsecPerCall*serverTie:
			cost = append(cost, fmt.Sprintf("%.1f µs more Redis time per decision", -d)+share)
		}
	}
	if ab, ok := accuracyOf(b, rec.ByIdeal); ok && rec.Tested {
		if ar, ok := accuracyOf(r, rec.ByIdeal); ok && ab.better(ar) {
			cost = append(cost, ar.phrase+" instead of "+ab.value)
		}
	}
	switch {
	case len(save) > 0 && len(cost) > 0:
		return "would save " + joinAnd(save) + " but cost " + joinAnd(cost)
	case len(save) > 0:
		return "would save " + joinAnd(save)
	case len(cost) > 0:
		return "would save nothing and cost " + joinAnd(cost)
	}
	return "is as good on every figure measured"
}

// basis says what the ranking rests on.
func (rec Recommendation) basis(b *Costs) string {
	acc, ok := accuracyOf(b, rec.ByIdeal)
	if !rec.Tested || !ok {
		return "ranked by memory per identity, then server time per decision: no run put their promise to the test, so their accuracy is unknown"
	}
	return "ranked by accuracy (" + acc.basis + "), then memory per identity, then server time per decision"
}
