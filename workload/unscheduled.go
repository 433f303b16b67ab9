package workload

import (
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/probe"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// scheduledReach is how long after a scheduled fault's end what the watch
// sees is still that fault's doing: the reading after it, and a server
// that comes back.
const scheduledReach = time.Second

// unscheduled keeps what the watch saw that no scheduled fault explains:
// a happening, or a reset, that meets a fault's span (from a glance before
// its start to scheduledReach after its end) is that fault's, reported
// with it; so is one that explained says a switch of primary (Sentinel's
// failover) explains.
func unscheduled(seen probe.WatchReport, faults plan.Faults, start time.Time, offset event.Offset, explained func(from, to time.Time) bool) probe.WatchReport {
	if len(faults) == 0 && explained == nil {
		return seen
	}
	scheduled := func(from, to time.Time) bool {
		if explained != nil && explained(from, to) {
			return true
		}
		for _, f := range faults {
			a, b := start.Add(f.At-time.Second/10), start.Add(f.End()+scheduledReach)
			if !to.Before(a) && !from.After(b) {
				return true
			}
		}
		return false
	}
	var out probe.WatchReport
	for _, h := range seen.Happenings {
		if !scheduled(h.From, h.To) {
			out.Happenings = append(out.Happenings, h)
		}
	}
	for _, r := range seen.Resets {
		if !scheduled(offset.LocalTime(r.FromUs), offset.LocalTime(r.ToUs)) {
			out.Resets = append(out.Resets, r)
		}
	}
	return out
}

// unscheduledWindow is what the watch saw, as the faults section records
// it, with the decisions of the run's timeline from its start to a call's
// timeout after its end (the window), and from there up to the first bin
// without errors (the recovery: a connection pool that failed its dials
// waits before it dials again).
func unscheduledWindow(h probe.Happening, start time.Time, timeout time.Duration, tl *result.Timeline) result.FaultWindow {
	// The first glance comes right before the traffic's start.
	from, to := max(h.From.Sub(start).Milliseconds(), 0), max(h.To.Sub(start).Milliseconds(), 0)
	w := result.FaultWindow{Kind: h.Kind, Unscheduled: true, Server: h.Detail, ObservedStartMs: from, ObservedEndMs: to}
	end := to + timeout.Milliseconds()
	w.Window = result.FaultFigures{StartMs: from, EndMs: end}
	w.Recovery = result.FaultFigures{StartMs: end, EndMs: end}
	if tl == nil || tl.BinMs <= 0 {
		return w
	}
	recovering := true
	for _, b := range tl.Bins {
		switch {
		case b.TMs+tl.BinMs <= from:
		case b.TMs <= end:
			addBin(&w.Window, b)
		case recovering && b.Errors > 0 && b.TMs-end < maxRecovery.Milliseconds():
			addBin(&w.Recovery, b)
			w.Recovery.EndMs = b.TMs + tl.BinMs
		default:
			recovering = false
		}
	}
	w.Recovered = !recovering || w.Recovery.Errors == 0
	w.RecoveryMs = w.Recovery.EndMs - w.Recovery.StartMs
	return w
}

// maxRecovery bounds how long after what the watch saw its errors are
// still its doing.
const maxRecovery = 10 * time.Second

// addBin adds a timeline bin's decisions to f.
func addBin(f *result.FaultFigures, b result.Bin) {
	f.Allowed += b.Allowed
	f.Denied += b.Denied
	f.Errors += b.Errors
	f.Decisions = f.Allowed + f.Denied + f.Errors
}

// connectionErrors counts the failures of the connection among errs: calls
// that timed out, were refused, or whose connection was closed or reset.
func connectionErrors(errs []result.ErrorCount) int64 { return result.NoAnswerErrors(errs) }
