package audit

import (
	"cmp"
	"math"
	"slices"

	"github.com/rlbench/rlbench/result"
)

// timingAudit judges a bound on client times. Without the server's TIME in
// the reply, a decision is known only to have been made between the
// request's send and its reply: within half the round trip of their
// midpoint. Admissions count against the bound only when they fall in one
// window wherever in its round trip each was decided, so a violation it
// reports holds for every placement of the decisions.
type timingAudit struct {
	// halfRTT holds each audited decision's uncertainty, in microseconds.
	halfRTT  *result.Histogram
	possible int64
	spans    []span
	events   []spanEvent
}

func newTimingAudit() *timingAudit {
	return &timingAudit{halfRTT: result.NewHistogram()}
}

// identity measures one identity's decisions (in time order) and their
// admissions: the most admissions certainly within one interval of window
// microseconds, the start of the first such interval, and the most within
// one of policyWindow.
func (t *timingAudit) identity(decs, admitted []auditRecord, window, policyWindow int64) (busiest, policyBusiest, busiestAt int64) {
	for _, r := range decs {
		t.halfRTT.Record(min(max(r.width()/2, result.HistLowestMicros), result.HistHighestMicros))
	}
	t.spans = t.spans[:0]
	for _, r := range admitted {
		t.spans = append(t.spans, span{lo: r.at(), hi: r.at() + r.width(), units: unitsOf(r.units)})
	}
	var possible int64
	busiest, possible, busiestAt, t.events = spanMaxInWindow(t.spans, window, t.events)
	t.possible = max(t.possible, possible)
	policyBusiest = busiest
	if policyWindow != window {
		policyBusiest, _, _, t.events = spanMaxInWindow(t.spans, policyWindow, t.events)
	}
	return busiest, policyBusiest, busiestAt
}

func (t *timingAudit) result() *result.AuditTiming {
	return &result.AuditTiming{
		UncertaintyP50Us:          t.halfRTT.ValueAtQuantile(50),
		UncertaintyMaxUs:          t.halfRTT.Max(),
		MaxWindowAdmittedPossible: t.possible,
	}
}

// span is the interval [lo, hi], in microseconds, within which one
// decision was made, and the units it admitted.
type span struct{ lo, hi, units int64 }

// spanEvent is where a span's units start (+) or stop (-) covering the
// start of a window.
type spanEvent struct {
	at    int64
	delta int64
}

// spanMaxInWindow is, over every half-open window [a, a+window), the most
// units of spans lying wholly inside it (certain: they are in it wherever in its
// span each decision was made) and the most touching it (possible: some
// placement puts them in it). A span [lo, hi] lies inside the window
// starting at a for a in [hi-window+1, lo], and touches it for a in
// [lo-window+1, hi]: both counts are the deepest overlap of those ranges of
// a, found with one sorted sweep each. For exact times (lo = hi) both are
// maxInWindow. certainAt is the start of the first window that holds the
// certain count. events is scratch space, returned for reuse.
func spanMaxInWindow(spans []span, window int64, events []spanEvent) (certain, possible, certainAt int64, _ []spanEvent) {
	deepest := func(from, to func(s span) int64) (most, mostAt int64) {
		events = events[:0]
		for _, s := range spans {
			if f, t := from(s), to(s); f <= t {
				events = append(events, spanEvent{f, s.units}, spanEvent{t + 1, -s.units})
			}
		}
		// At one instant, ranges that end go before ranges that begin:
		// [f, t] covers t but not t+1.
		slices.SortFunc(events, func(x, y spanEvent) int {
			if c := cmp.Compare(x.at, y.at); c != 0 {
				return c
			}
			return cmp.Compare(x.delta, y.delta)
		})
		var depth int64
		for _, e := range events {
			depth += e.delta
			if depth > most {
				most, mostAt = depth, e.at
			}
		}
		return most, mostAt
	}
	certain, certainAt = deepest(func(s span) int64 { return s.hi - window + 1 }, func(s span) int64 { return s.lo })
	possible, _ = deepest(func(s span) int64 { return s.lo - window + 1 }, func(s span) int64 { return s.hi })
	return certain, possible, certainAt, events
}

// ownBusiest is the most units of admitted (decisions placed on the true
// clock, onTrueClock) within one window on the limiter's own clock: at the
// times their requests carried.
func (a *Auditor) ownBusiest(admitted []auditRecord) int64 {
	var own tally
	carried := make([]auditRecord, len(admitted))
	for i, r := range admitted {
		carried[i] = r
		carried[i].key = uint64(max(r.carried(), 0)) << 1
	}
	slices.SortFunc(carried, func(x, y auditRecord) int { return cmp.Compare(x.key, y.key) })
	return tallyOf(&own, carried).maxIn(a.window)
}

// burstAt is what the window starting at at holds of admitted (decisions
// placed on the true clock, in time order), units of them certainly: the
// shortest stretch of them that holds more than bound units (from the
// earliest send to the latest reply), the stretch that holds all of them,
// and whether the times the requests of the shortest carried fall in more
// than one tick of the caller's clock.
func (a *Auditor) burstAt(admitted []auditRecord, at, units, bound int64) *result.CallerClockBurst {
	var in []auditRecord
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range admitted {
		if r.at() >= at && r.at()+r.width() < at+a.window {
			in = append(in, r)
			first, last = min(first, r.at()), max(last, r.at()+r.width())
		}
	}
	// Two pointers: for each first admission i, the fewest that follow it
	// to pass the bound, and the latest reply among them (a queue of the
	// latest replies, decreasing).
	best, bestI, bestJ := int64(math.MaxInt64), -1, -1
	var queue []int
	var sum int64
	j := 0
	for i := range in {
		for j < len(in) && sum <= bound {
			sum += unitsOf(in[j].units)
			for len(queue) > 0 && in[queue[len(queue)-1]].at()+in[queue[len(queue)-1]].width() <= in[j].at()+in[j].width() {
				queue = queue[:len(queue)-1]
			}
			queue = append(queue, j)
			j++
		}
		if sum <= bound {
			break
		}
		if d := in[queue[0]].at() + in[queue[0]].width() - in[i].at(); d < best {
			best, bestI, bestJ = d, i, j
		}
		sum -= unitsOf(in[i].units)
		if queue[0] == i {
			queue = queue[1:]
		}
	}
	if bestI < 0 {
		return nil
	}
	ticks := map[int64]bool{}
	for _, r := range in[bestI:bestJ] {
		ticks[floorDivMicros(r.carried(), a.tickUs)] = true
	}
	return &result.CallerClockBurst{Admitted: units, WithinMs: float64(best) / 1000, AdmittedWithinMs: float64(last-first) / 1000, AcrossTicks: len(ticks) > 1}
}

// callerClock adds one identity's figures to the run's: the busiest
// window on the limiter's own clock, and the biggest burst past the bound
// on the true clock.
func (a *Auditor) callerClock(cc *result.AuditCallerClock, own int64, burst *result.CallerClockBurst) *result.AuditCallerClock {
	if cc == nil {
		cc = &result.AuditCallerClock{TickUs: a.tickUs}
	}
	cc.MaxWindowAdmittedOwn = max(cc.MaxWindowAdmittedOwn, own)
	if burst != nil && (cc.Burst == nil || burst.Admitted > cc.Burst.Admitted ||
		burst.Admitted == cc.Burst.Admitted && burst.WithinMs < cc.Burst.WithinMs) {
		cc.Burst = burst
	}
	return cc
}

// floorDivMicros is t / unit rounded down.
func floorDivMicros(t, unit int64) int64 {
	q := t / unit
	if t%unit != 0 && t < 0 {
		q--
	}
	return q
}
