package audit

import "github.com/rlbench/rlbench/plan"

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
