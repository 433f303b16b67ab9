package audit

import (
	"cmp"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

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
	halfRTT  *hdrhistogram.Histogram
	possible int64
	spans    []span
	events   []spanEvent
}

func newTimingAudit() *timingAudit {
	return &timingAudit{halfRTT: result.NewHistogram()}
}

// identity measures one identity's decisions (in time order) and their
// admissions: the most admissions certainly within one interval of window
// microseconds, and within one of policyWindow.
func (t *timingAudit) identity(decs, admitted []auditRecord, window, policyWindow int64) (busiest, policyBusiest int64) {
	for _, r := range decs {
		_ = t.halfRTT.RecordValue(min(max(r.width()/2, result.HistLowestMicros), result.HistHighestMicros))
	}
	t.spans = t.spans[:0]
	for _, r := range admitted {
		t.spans = append(t.spans, span{lo: r.at(), hi: r.at() + r.width(), units: unitsOf(r.units)})
	}
	var possible int64
	busiest, possible, t.events = spanMaxInWindow(t.spans, window, t.events)
	t.possible = max(t.possible, possible)
	policyBusiest = busiest
	if policyWindow != window {
		policyBusiest, _, t.events = spanMaxInWindow(t.spans, policyWindow, t.events)
	}
	return busiest, policyBusiest
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
// maxInWindow. events is scratch space, returned for reuse.
func spanMaxInWindow(spans []span, window int64, events []spanEvent) (certain, possible int64, _ []spanEvent) {
	deepest := func(from, to func(s span) int64) int64 {
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
		var depth, most int64
		for _, e := range events {
			depth += e.delta
			most = max(most, depth)
		}
		return most
	}
	certain = deepest(func(s span) int64 { return s.hi - window + 1 }, func(s span) int64 { return s.lo })
	possible = deepest(func(s span) int64 { return s.lo - window + 1 }, func(s span) int64 { return s.hi })
	return certain, possible, events
}
