package audit

import (
	"math"
	"sort"

	"github.com/rlbench/rlbench/algorithms"
)

// Requests of several units: a decision that asks for n units takes n of
// what the limiter allows when it is admitted, and the bound, the offered
// load, the edge curve and the promise to admit all count units. Most
// runs ask for one unit a request, and their instants are counted as
// they are.

// unitsOf is the units a decision asked for, as a record keeps them
// (zero is one).
func unitsOf(units uint32) int64 {
	if units == 0 {
		return 1
	}
	return int64(units)
}

// recordUnits is what a record keeps of a request's units: up to
// math.MaxUint32 (far past any limit a policy states).
func recordUnits(n int64) uint32 {
	if n <= 1 {
		return 0
	}
	return uint32(min(n, math.MaxUint32))
}

// allowN decides a request of units at t on m: Allow for one unit, else
// the model's AllowN (the built-in families' models all have one).
func allowN(m algorithms.Model, t, units int64) bool {
	if units != 1 {
		if c, ok := m.(algorithms.CostModel); ok {
			return c.AllowN(t, units)
		}
	}
	return m.Allow(t)
}

// tally is a sorted list of instants, each with its units: cum, once some
// instant has more than one, holds the running sum (cum[i] is the units
// of at[:i]); nil while every instant has one.
type tally struct {
	at  []int64
	cum []int64
}

// reset empties t, keeping its storage.
func (t *tally) reset() { t.at, t.cum = t.at[:0], nil }

// add appends instant at of units.
func (t *tally) add(at, units int64) {
	if units != 1 && t.cum == nil {
		t.cum = make([]int64, len(t.at)+1, cap(t.at)+1)
		for i := range t.cum {
			t.cum[i] = int64(i)
		}
	}
	t.at = append(t.at, at)
	if t.cum != nil {
		t.cum = append(t.cum, t.cum[len(t.cum)-1]+units)
	}
}

// units is the units of at[lo:hi].
func (t *tally) units(lo, hi int) int64 {
	if t.cum == nil {
		return int64(hi - lo)
	}
	return t.cum[hi] - t.cum[lo]
}

// unitsOfOne is the units of at[i].
func (t *tally) unitsOfOne(i int) int64 { return t.units(i, i+1) }

// maxIn is the most units within any interval of window microseconds.
func (t *tally) maxIn(window int64) int64 {
	best, _, _ := t.busiest(window)
	return best
}

// busiest is the most units within any interval of window microseconds,
// and the instants at[lo:hi] that hold them (the earliest such interval).
func (t *tally) busiest(window int64) (units int64, lo, hi int) {
	i := 0
	for j := range t.at {
		for t.at[j]-t.at[i] >= window {
			i++
		}
		if u := t.units(i, j+1); u > units {
			units, lo, hi = u, i, j+1
		}
	}
	return units, lo, hi
}

// maxInAt is the most units within one interval [s, s+window) that holds
// instant at: s runs from at-window+1 to at, and the count changes only
// where an instant enters on the right (s = instant-window+1) or leaves on
// the left (just past s = instant), so those starts, and the two ends, are
// all there is to try.
func (t *tally) maxInAt(at, window int64) int64 {
	count := func(from int64) int64 {
		lo := sort.Search(len(t.at), func(i int) bool { return t.at[i] >= from })
		hi := sort.Search(len(t.at), func(i int) bool { return t.at[i] >= from+window })
		return t.units(lo, hi)
	}
	best := max(count(at-window+1), count(at))
	lo := sort.Search(len(t.at), func(i int) bool { return t.at[i] > at-window })
	for i := lo; i < len(t.at) && t.at[i] < at+window; i++ {
		if s := t.at[i]; s <= at {
			best = max(best, count(s))
		}
		if s := t.at[i] - window + 1; s > at-window && s <= at {
			best = max(best, count(s))
		}
	}
	return best
}

// tallyOf is the instants of recs (in time order) with their units.
func tallyOf(t *tally, recs []auditRecord) *tally {
	t.reset()
	for _, r := range recs {
		t.add(r.at(), unitsOf(r.units))
	}
	return t
}

// linearBeyond is how far admissions t went past a linear bound (capacity
// plus limit per windowUs times the interval) over some interval between
// two of them: the most, over i <= j, of the units of t.at[i..j] less
// capacity + floor(limit*(t.at[j]-t.at[i]+1)/windowUs). Each sum of units
// less the rate times its span is a difference of two running figures, so
// one pass with the least of the earlier ones finds the most.
func linearBeyond(t *tally, capacity, limit, windowUs int64) int64 {
	if len(t.at) == 0 || windowUs <= 0 {
		return 0
	}
	rate := float64(limit) / float64(windowUs)
	t0 := t.at[0]
	least := math.Inf(1)
	var most float64
	for j := range t.at {
		x := rate * float64(t.at[j]-t0)
		// h: the units before j less the rate times j's instant; g: the
		// units through j less the same.
		least = min(least, float64(t.units(0, j))-x)
		g := float64(t.units(0, j+1)) - x
		most = max(most, g-least-rate-float64(capacity))
	}
	// units - capacity - rate*d > 0 is units > capacity + floor(rate*d):
	// by how many admissions is the smallest whole number above it.
	if most <= 1e-9 {
		return 0
	}
	return int64(math.Ceil(most - 1e-9))
}
