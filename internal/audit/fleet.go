package audit

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// attribute counts, for one identity whose admissions went past the bound,
// each application instance's admissions (in units) within that
// identity's busiest window: which instances took part in the excess.
// Windows are measured within each lifetime of the state (cuts), as the
// bound is.
func (a *Auditor) attribute(decs []auditRecord, cuts []int64) {
	if a.instances == 0 {
		return
	}
	var counts [plan.MaxFleetInstances]int64
	best := int64(-1)
	var stamps tally
	var admitted []auditRecord
	for _, epoch := range a.faults.epochs(decs, cuts) {
		admitted = admitted[:0]
		for _, r := range epoch {
			if r.allowed() {
				admitted = append(admitted, r)
			}
		}
		units, lo, hi := tallyOf(&stamps, admitted).busiest(a.window)
		if units <= best {
			continue
		}
		best = units
		clear(counts[:])
		for _, r := range admitted[lo:hi] {
			counts[r.instance] += unitsOf(r.units)
		}
	}
	for i := range a.instances {
		a.inExcess[i] += counts[i]
	}
}

// excessByInstance is, per application instance of the run's fleet, its
// admissions within the busiest windows that went past the bound; nil
// without a fleet.
func (a *Auditor) excessByInstance() []int64 {
	if a.instances == 0 {
		return nil
	}
	return append([]int64(nil), a.inExcess[:a.instances]...)
}

// onTrueClock is decs — one identity's decisions by the caller's clock —
// placed on the true clock, in time order: each somewhere from its
// request's send to its reply on the server's clock, a span the bound is
// judged on as a client's time is (only what lies in one window wherever
// in its span each decision was made counts). Whatever time the request
// carried (rounded to the tick the caller's clock reached the script in,
// skewed by its fleet instance's clock), its decision was made within that
// span: the true time. Each keeps, as carried(), the time its request
// carried.
func onTrueClock(decs []auditRecord) []auditRecord {
	out := make([]auditRecord, len(decs))
	for i, r := range decs {
		lo := r.at() + int64(r.sentUs)
		carried := r.modelAt() - lo
		c := auditRecord{key: uint64(max(lo, 0))<<1 | r.key&1, remaining: math.NaN(), retryMs: noRetry,
			units: r.units, instance: r.instance, widthUs: max(r.roundTripUs, 1),
			sentUs: int32(min(max(carried, math.MinInt32), math.MaxInt32))}
		out[i] = c
	}
	slices.SortFunc(out, func(x, y auditRecord) int { return cmp.Compare(x.key, y.key) })
	return out
}

// carried is, for a decision placed on the true clock (onTrueClock), the
// time its request carried, on the server's clock.
func (r auditRecord) carried() int64 { return r.at() + int64(r.sentUs) }

// placeOnTrueClock notes, on r, a decision by the caller's clock at at
// (the server's time, or the one its request carried), where its request
// was sent and its reply came on the server's clock: the span the decision
// was truly made in. An outcome without a send (a caller that did not time
// its call) is placed at the time its request carried, its skew taken off.
func (a *Auditor) placeOnTrueClock(r *auditRecord, at int64, o *event.Outcome) {
	offset := a.faults.offset
	lo, hi := offset.ServerMicros(o.Sent), offset.ServerMicros(o.Done)
	if o.Sent.IsZero() {
		lo = offset.ServerMicros(time.UnixMicro(o.Decision.ClientNowMicros - o.Decision.ClientSkewMicros))
		hi = lo
	}
	r.callerTimed = true
	r.sentUs = int32(min(max(lo-at, math.MinInt32), math.MaxInt32))
	r.roundTripUs = uint32(min(max(hi-lo, 0), math.MaxUint32))
}
