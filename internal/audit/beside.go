package audit

import (
	"cmp"
	"slices"

	"github.com/rlbench/rlbench/algorithms"
)

// A limiter's decisions are set beside another limiter's on the same
// arrivals in two places: an approximate window beside the exact one it
// approximates (at the times the limiter saw, each algorithm losing its
// state where the limiter did), and every limiter beside the ideal limiter
// of its policy (at the times its calls ran on the true clock, the ideal
// never losing its state). Both feed one identity's arrivals, in time
// order, to the other limiter's model, which keeps its own state and
// decides each on the arrivals alone, never on what the limiter admitted.

// arrival is one request of an identity as a comparison feeds it.
type arrival struct {
	// at is its instant and units what it asked for.
	at, units int64
	// allowed is the limiter's answer.
	allowed bool
	// judged says the limiter's answer is set beside the other's; a call
	// whose outcome is unknown is fed (the other limiter decides it) and
	// never judged.
	judged bool
	// excused says a fault may explain the limiter's answer: it is
	// counted apart.
	excused bool
}

// beside is how one identity's decisions compare with the other
// limiter's.
type beside struct {
	// decisions are the judged decisions not excused; falseAdmits those
	// the limiter admitted and the other denies, falseDenies the reverse,
	// each also in units.
	decisions, falseAdmits, falseDenies int64
	falseAdmitUnits, falseDenyUnits     int64
	// admittedUnits and otherAdmittedUnits are what each admitted of
	// those decisions, in units; denied and otherDenied how many each
	// denied.
	admittedUnits, otherAdmittedUnits int64
	denied, otherDenied               int64
	// excused counts the excused decisions, excusedWrong those of them
	// the two decided otherwise.
	excused, excusedWrong int64
}

// feed decides arrivals (in time order) on other and counts where the
// limiter decided otherwise.
func (b *beside) feed(other algorithms.Model, arrivals []arrival) {
	for _, r := range arrivals {
		would := allowN(other, r.at, r.units)
		switch {
		case !r.judged:
			continue
		case r.excused:
			b.excused++
			b.excusedWrong += b2i(would != r.allowed)
			continue
		}
		b.decisions++
		if r.allowed {
			b.admittedUnits += r.units
		} else {
			b.denied++
		}
		if would {
			b.otherAdmittedUnits += r.units
		} else {
			b.otherDenied++
		}
		switch {
		case r.allowed && !would:
			b.falseAdmits++
			b.falseAdmitUnits += r.units
		case !r.allowed && would:
			b.falseDenies++
			b.falseDenyUnits += r.units
		}
	}
}

// arrivalsOf appends to dst decs (one identity's decisions, in time
// order) as arrivals at the instants at gives, all judged.
func arrivalsOf(dst []arrival, decs []auditRecord, at func(auditRecord) int64) []arrival {
	for _, r := range decs {
		dst = append(dst, arrival{at: at(r), units: unitsOf(r.units), allowed: r.allowed(), judged: true})
	}
	return dst
}

// sortArrivals puts arrivals in time order; within one microsecond,
// admissions before denials (the order every limiter decides in when time
// stands still) and calls whose outcome is unknown last.
func sortArrivals(arrivals []arrival) {
	rank := func(r arrival) int {
		switch {
		case !r.judged:
			return 2
		case r.allowed:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(arrivals, func(x, y arrival) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(rank(x), rank(y))
	})
}
