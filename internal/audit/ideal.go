package audit

import (
	"cmp"
	"math"
	"slices"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/result"
)

// idealAudit sets each audited identity's decisions beside the ideal
// limiter of the run's policy (algorithms.Ideal), fed the same arrivals at
// the times the limiter's calls ran on the true clock: the server's time
// when the reply carries it, else the middle of the call's round trip (the
// span the audit judges such a decision in). The ideal decides on the
// arrivals, never on what the limiter admitted, and never loses its
// state: a call whose outcome is unknown is an arrival it decides, and a
// decision a fault may explain (within the ideal's memory after a loss of
// the limiter's state, a reset seen on the server, or such a call) is
// counted apart, as the fault's.
type idealAudit struct {
	ideal  algorithms.Ideal
	policy algorithms.Policy
	// memoryUs is how far back the ideal looks (Ideal.Memory).
	memoryUs int64
	res      result.Accuracy
	// worst is the identity with the most units falsely admitted, and its
	// number in the run.
	worst         *result.WorstIdentity
	nearDiffTotal float64
	// arrivals, spans and offered are scratch space, reused from one
	// identity to the next.
	arrivals []arrival
	spans    []excusedSpan
	offered  tally
}

// excusedSpan is an interval [from, to) of instants (server microseconds)
// within which a fault may explain an identity's decisions.
type excusedSpan struct{ from, to int64 }

// newIdealAudit prepares the comparison of a run's decisions with ideal
// (empty: the one policy p describes).
func newIdealAudit(ideal algorithms.Ideal, p algorithms.Policy, sampled bool) *idealAudit {
	if ideal == "" {
		ideal = algorithms.DefaultIdeal(p)
	}
	return &idealAudit{ideal: ideal, policy: p, memoryUs: ideal.Memory(p).Microseconds(),
		res: result.Accuracy{Ideal: string(ideal), Sampled: sampled, ExactTimes: true}}
}

// idealAt is the instant at which r's call ran on the true clock, as the
// ideal is fed it: the server's time, when the decision carries it; else
// the middle of the span within which the audit places it (between its
// send and its reply).
func idealAt(r auditRecord) int64 {
	switch {
	case r.callerTimed && !r.seen:
		return r.at() + int64(r.sentUs) + int64(r.roundTripUs)/2
	case r.timed():
		return r.at() + r.width()/2
	}
	return r.at()
}

// exactTime says r's instant on the true clock is the server's time it
// carried.
func exactTime(r auditRecord) bool { return !r.timed() && !(r.callerTimed && !r.seen) }

// identity compares one identity's decisions (decs, in time order) with
// the ideal's on the same arrivals, with the calls whose outcome is
// unknown (unseen) among them; af places the losses of state and the
// resets that excuse decisions. identity is the identity's number in the
// run.
func (ia *idealAudit) identity(identity int64, decs []auditRecord, unseen []unseenCall, af *auditFaults) {
	arr := ia.arrivals[:0]
	for _, r := range decs {
		arr = append(arr, arrival{at: idealAt(r), units: unitsOf(r.units), allowed: r.allowed(), judged: true})
		if !exactTime(r) {
			ia.res.ExactTimes = false
		}
	}
	for _, u := range unseen {
		arr = append(arr, arrival{at: u.sentUs, units: unitsOf(u.units)})
	}
	ia.res.UnknownOutcomes += int64(len(unseen))
	sortArrivals(arr)
	ia.excuse(arr, unseen, af)
	var b beside
	b.feed(ia.ideal.Model(ia.policy), arr)
	ia.arrivals = arr

	ia.res.FaultDecisions += b.excused
	ia.res.FaultWrong += b.excusedWrong
	if b.decisions == 0 {
		return
	}
	r := &ia.res
	r.Identities++
	r.Decisions += b.decisions
	r.FalseAdmits += b.falseAdmits
	r.FalseDenies += b.falseDenies
	r.FalseAdmitUnits += b.falseAdmitUnits
	r.FalseDenyUnits += b.falseDenyUnits
	if b.otherDenied == 0 {
		r.BelowThresholdIdentities++
		r.LimitedBelowThreshold += b2i(b.denied > 0)
	} else {
		r.AboveThresholdIdentities++
		r.UnlimitedAboveThreshold += b2i(b.denied == 0)
	}
	// Near the threshold: the most units it offered within one window of
	// the policy, every arrival counted, lies from half the limit to twice
	// it.
	ia.offered.reset()
	for _, x := range arr {
		ia.offered.add(x.at, x.units)
	}
	peak, limit := ia.offered.maxIn(ia.policy.WindowMicros()), ia.policy.Limit
	if 2*peak >= limit && peak <= 2*limit && b.otherAdmittedUnits > 0 {
		r.NearThresholdIdentities++
		ia.nearDiffTotal += math.Abs(float64(b.admittedUnits-b.otherAdmittedUnits)) / float64(b.otherAdmittedUnits)
	}
	if b.falseAdmitUnits > 0 && (ia.worst == nil || b.falseAdmitUnits > ia.worst.FalseAdmitUnits ||
		b.falseAdmitUnits == ia.worst.FalseAdmitUnits && identity < ia.worst.Identity) {
		w := &result.WorstIdentity{Identity: identity, Decisions: b.decisions, FalseAdmits: b.falseAdmits, FalseDenies: b.falseDenies,
			FalseAdmitUnits: b.falseAdmitUnits, AdmittedUnits: b.admittedUnits, IdealAdmittedUnits: b.otherAdmittedUnits}
		if b.otherAdmittedUnits > 0 {
			w.ExcessShare = float64(b.admittedUnits-b.otherAdmittedUnits) / float64(b.otherAdmittedUnits)
		}
		ia.worst = w
	}
}

// excuse marks the decisions among arr (in time order) that a fault may
// explain: within the ideal's memory after the resumption of each loss of
// the limiter's state, after the span of each reset seen on the server,
// and after each call of the identity whose outcome is unknown (from its
// send, for as long as it may have run and the ideal's memory after).
func (ia *idealAudit) excuse(arr []arrival, unseen []unseenCall, af *auditFaults) {
	spans := ia.spans[:0]
	if af != nil {
		for _, e := range af.events {
			spans = append(spans, excusedSpan{e.ResumeUs, e.ResumeUs + ia.memoryUs})
		}
		for _, r := range af.resets {
			spans = append(spans, excusedSpan{r.FromUs, r.ToUs + ia.memoryUs})
		}
	}
	for _, u := range unseen {
		spans = append(spans, excusedSpan{u.sentUs, u.settledUs() + ia.memoryUs})
	}
	ia.spans = spans
	if len(spans) == 0 {
		return
	}
	slices.SortFunc(spans, func(x, y excusedSpan) int { return cmp.Compare(x.from, y.from) })
	// One pass: the spans begun by an arrival's instant, and the furthest
	// any of them reaches.
	k, reach := 0, int64(math.MinInt64)
	for i := range arr {
		for k < len(spans) && spans[k].from <= arr[i].at {
			reach = max(reach, spans[k].to)
			k++
		}
		if arr[i].at < reach {
			arr[i].excused = true
		}
	}
}

// result is the run's comparison with the ideal; nil when no identity was
// compared.
func (ia *idealAudit) result() *result.Accuracy {
	if ia == nil || ia.res.Identities == 0 && ia.res.FaultDecisions == 0 {
		return nil
	}
	out := ia.res
	if out.NearThresholdIdentities > 0 {
		out.NearThresholdRateDiff = ia.nearDiffTotal / float64(out.NearThresholdIdentities)
	}
	out.WorstIdentity = ia.worst
	out.SetShares()
	return &out
}
