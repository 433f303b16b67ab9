package audit

import (
	"github.com/rlbench/rlbench/result"
)

// maxEdgeSpanMs bounds the edge curve: a boundary run records at most this
// many milliseconds around the boundary.
const maxEdgeSpanMs = 4000

// edges is what the audit needs to draw how admissions fell around each
// identity's window boundary: where each audited identity's boundary lies
// (server microseconds; 0 while unknown), and the span around it to
// measure, in milliseconds relative to the boundary.
type edges struct {
	at             []int64
	fromMs, toMs   int64
	windowMicros   int64
	sumInWindow    []int64
	maxInWindow    []int64
	identitiesSeen int64
}

// watchEdges makes the audit measure, for every millisecond t from fromMs
// to toMs relative to each identity's window boundary, how many requests
// that identity had admitted in the window ending at t. A nil auditor
// watches nothing.
func (a *Auditor) watchEdges(fromMs, toMs int64) {
	if a == nil {
		return
	}
	if toMs-fromMs+1 > maxEdgeSpanMs {
		fromMs, toMs = -maxEdgeSpanMs/2, maxEdgeSpanMs/2-1
	}
	n := toMs - fromMs + 1
	a.edges = &edges{
		at: make([]int64, a.n), fromMs: fromMs, toMs: toMs,
		windowMicros: a.limiter.Policy().WindowMicros(),
		sumInWindow:  make([]int64, n), maxInWindow: make([]int64, n),
	}
}

// Boundary implements event.BoundarySink: it records where identity's
// window boundary lies, in server microseconds, if the audit watches edges
// and keeps that identity.
func (a *Auditor) Boundary(identity uint64, boundaryMicros int64) {
	if a == nil || a.edges == nil {
		return
	}
	if slot, ok := a.slot(identity); ok {
		a.edges.at[slot] = boundaryMicros
	}
}

// add measures one identity's admissions (sorted, server microseconds,
// with their units) around its boundary, with two pointers over them as
// the window's end moves forward a millisecond at a time.
func (e *edges) add(slot int, admitted *tally) {
	boundary := e.at[slot]
	if boundary == 0 {
		return
	}
	e.identitiesSeen++
	lo, hi := 0, 0 // admitted[lo:hi] lie in (end-window, end]
	for i := range e.sumInWindow {
		end := boundary + (e.fromMs+int64(i))*1000
		for hi < len(admitted.at) && admitted.at[hi] <= end {
			hi++
		}
		for lo < hi && admitted.at[lo] <= end-e.windowMicros {
			lo++
		}
		n := admitted.units(lo, hi)
		e.sumInWindow[i] += n
		e.maxInWindow[i] = max(e.maxInWindow[i], n)
	}
}

// contract is the edge curve as the result records it; nil when no
// audited identity's boundary was known.
func (e *edges) contract() *result.Edge {
	if e == nil || e.identitiesSeen == 0 {
		return nil
	}
	out := &result.Edge{
		WindowMs: e.windowMicros / 1000, FromMs: e.fromMs, Identities: e.identitiesSeen,
		MaxInWindow:  e.maxInWindow,
		MeanInWindow: make([]float64, len(e.sumInWindow)),
	}
	for i, s := range e.sumInWindow {
		out.MeanInWindow[i] = float64(s) / float64(e.identitiesSeen)
	}
	return out
}
