package audit

import (
	"cmp"
	"math"
	"slices"
	"time"

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

// atTrueTimes is decs — in the server's order, decided by the caller's
// clock, each reply with the server's time (seen) — at the true times
// their requests carried: the time the limiter saw less the skew of the
// instance that sent it (its offset when the server ran it), on the
// server's clock, in time order. They are judged as decisions by the times
// their arguments carried (argsTime): requests the server ran before one
// may carry later times, which its width (how much later, at most) says.
func (a *Auditor) atTrueTimes(decs []auditRecord) []auditRecord {
	out := make([]auditRecord, len(decs))
	latest := int64(math.MinInt64)
	for i, r := range decs {
		t := a.trueAt(r)
		c := r
		c.seen, c.argsTime = false, true
		c.key = uint64(t)<<1 | r.key&1
		c.widthUs = uint32(min(max(latest-t, 0), math.MaxUint32))
		latest = max(latest, t)
		out[i] = c
	}
	slices.SortFunc(out, func(x, y auditRecord) int { return cmp.Compare(x.key, y.key) })
	return out
}

// trueAt is the true time, on the server's clock, of the request of a
// seen decision r: the time the limiter saw less the skew its instance's
// clock had when the server ran it (none without a fleet).
func (a *Auditor) trueAt(r auditRecord) int64 {
	offset := a.faults.offset
	var skew int64
	if a.fleet != nil && int(r.instance) < a.fleet.Instances() {
		local := time.UnixMicro(r.at()).Add(-offset.Offset)
		skew = a.fleet.OffsetAt(int(r.instance), local.Sub(a.fleetStart)).Microseconds()
	}
	return offset.ServerMicros(time.UnixMicro(r.modelAt() - skew))
}
