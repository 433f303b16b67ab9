package faults

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// outcomeAt is an outcome decided ms after start, latencyUs after it was
// due: allowed, denied, or (with failed set) an error the policy decided.
func outcomeAt(start time.Time, ms int, allowed bool, failed bool, latencyUs int64) *event.Outcome {
	at := start.Add(time.Duration(ms) * time.Millisecond)
	o := &event.Outcome{Due: at.Add(-time.Duration(latencyUs) * time.Microsecond), Sent: at, Done: at}
	o.Decision.Allowed = allowed
	if failed {
		o.Err = &event.PolicyDecision{Err: errors.New("i/o timeout"), Attempts: 2, Decided: true, Allowed: allowed, Policy: plan.FailOpen}
	}
	return o
}

// TestFaultSpansMeetWithoutOverlap: a fault's window and its recovery,
// and the next fault's window, share no bin, so the errors they excuse
// never add up to more than the run had.
func TestFaultSpansMeetWithoutOverlap(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	f := newRecorder(start, 10*time.Second, nil, nil, event.Offset{})
	for ms := 0; ms < 1000; ms += 5 {
		f.Record(outcomeAt(start, ms, true, ms >= 300 && ms < 700, 500))
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// Boundaries inside a bin (10ms wide): 452 and 688.
	window, recovery, rest := f.span(at(300), at(452)), f.span(at(452), at(688)), f.span(at(688), at(1000))
	total := f.span(at(0), at(1000))
	if window.Errors+recovery.Errors+rest.Errors != 80 || total.Errors != 80 || total.Decisions != 200 {
		t.Errorf("errors %d + %d + %d of %d (decisions %d): the spans overlap or leave a bin out",
			window.Errors, recovery.Errors, rest.Errors, total.Errors, total.Decisions)
	}
	if window.AllowedOnError != window.Errors {
		t.Errorf("fail_open admitted %d of the window's %d errors", window.AllowedOnError, window.Errors)
	}
}

// TestRecovery: decisions are normal again at the first 100ms bin with
// decisions, no error, and a p99 near the one before the first fault.
func TestRecovery(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	faults := []plan.Fault{{Kind: plan.FaultPause, At: time.Second, For: 500 * time.Millisecond}}
	f := newRecorder(start, 10*time.Second, faults, nil, event.Offset{})
	for ms := 0; ms < 3000; ms += 2 {
		lat := int64(400)
		switch {
		case ms < 1000:
		case ms < 1500:
			continue // nothing decided while paused
		case ms < 1700:
			lat = 300_000 // the backlog
		case ms < 1900:
			lat = 1500 // 400us + 1.1ms: still within 2ms of the baseline
		}
		f.Record(outcomeAt(start, ms, true, ms >= 1500 && ms < 1600, lat))
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	end, ok := f.recovered(at(1500), at(3000))
	if !ok || !end.Equal(at(1700)) {
		t.Errorf("recovered at %s (%v), want 1.7s: the first bin without errors and with a p99 back near 400us", end.Sub(start), ok)
	}
	if _, ok := f.recovered(at(1500), at(1650)); ok {
		t.Error("recovered before the limit, when no bin before it was normal")
	}
	tl := f.timeline(3 * time.Second)
	if len(tl.Bins) != 30 || tl.BinMs != 100 || tl.Bins[15].Errors != 50 || tl.Bins[15].AllowedOnError != 50 || tl.Bins[12].Allowed != 0 {
		t.Errorf("timeline: %d bins of %dms, bin 1.5s %+v, bin 1.2s %+v", len(tl.Bins), tl.BinMs, tl.Bins[15], tl.Bins[12])
	}
}

// TestAffectedProbes: the probe's samples place a network fault: from the
// first slow or failed one to the end of the last, up to the first normal
// one sent after the fault was removed.
func TestAffectedProbes(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	b := func(sentMs, rttMs int, ok bool) beat {
		s := base.Add(time.Duration(sentMs) * time.Millisecond)
		return beat{sent: s, recv: s.Add(time.Duration(rttMs) * time.Millisecond), ok: ok}
	}
	beats := []beat{b(0, 0, true), b(5, 0, true), b(100, 50, true), b(155, 50, true), b(205, 0, false), b(260, 52, true), b(320, 0, true), b(325, 0, true)}
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	normal := normalRTT(beats, at(50))
	if normal != 2*time.Millisecond {
		t.Errorf("normal round trip %s, want the 2ms floor", normal)
	}
	start, end, ok := affected(beats, at(90), at(300), normal)
	if !ok || !start.Equal(at(100)) || !end.Equal(at(312)) {
		t.Errorf("affected from %s to %s (%v), want 100ms to 312ms", start.Sub(base), end.Sub(base), ok)
	}
	if _, ok := firstAnsweredAfter(beats, at(201)); !ok {
		t.Error("no answer after a failed sample")
	}
	if last, _ := lastAnsweredBefore(beats, at(250)); !last.sent.Equal(at(155)) {
		t.Errorf("last answered before 250ms was sent at %s", last.sent.Sub(base))
	}
}

// TestPauseHeldCallsFromTheServersClock: a call that timed out during a
// pause was held and dropped by the server only if it was sent once the
// pause had taken, by the server's clock: a pause injected late leaves the
// calls sent after its scheduled start but before it took free to run, so
// they stay calls that may have run unseen.
func TestPauseHeldCallsFromTheServersClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	pause := []plan.Fault{{Kind: plan.FaultPause, At: time.Second, For: 500 * time.Millisecond}}
	f := newRecorder(start, 3*time.Second, pause, nil, event.Offset{})
	timeout := context.DeadlineExceeded
	// Before the pause was answered nothing is known to be held.
	f.failedCall(1, at(1050), at(1100), algorithms.Decision{}, timeout)
	// It took 200ms late.
	f.pauseHeld(0, at(1200), at(1700))
	for _, c := range []struct {
		why        string
		sent, done int
		held       bool
	}{
		{"sent after the scheduled start, before the pause took: it ran", 1100, 1250, false},
		{"sent and given up while paused: held and dropped", 1250, 1300, true},
		{"given up after the pause ended: it ran", 1650, 1750, false},
	} {
		before := f.unseenCalls.Load()
		f.failedCall(1, at(c.sent), at(c.done), algorithms.Decision{}, timeout)
		if got := f.unseenCalls.Load() == before; got != c.held {
			t.Errorf("%s: held %v, want %v", c.why, got, c.held)
		}
	}
	if n := f.unseenCalls.Load(); n != 3 {
		t.Errorf("%d calls that may have run, want 3", n)
	}
}

// TestResetDroppedRequestsNeverRan: while the proxy resets every
// connection a request arrives on, the request goes no further: a call
// whose connection it reset never reached the server. A call that timed
// out meanwhile, or whose connection was reset outside that span (a server
// going away resets connections too), may have run.
func TestResetDroppedRequestsNeverRan(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	reset := []plan.Fault{{Kind: plan.FaultReset, At: time.Second, For: 500 * time.Millisecond}}
	f := newRecorder(start, 3*time.Second, reset, nil, event.Offset{})
	byPeer := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	f.requestsDropped(0, at(1010))
	f.failedCall(1, at(1050), at(1051), algorithms.Decision{}, byPeer) // while it lasts
	if f.unseenCalls.Load() != 0 {
		t.Error("a call the proxy reset, while it still resets them, may have run")
	}
	f.requestsPass(0, at(1500))
	for _, c := range []struct {
		why        string
		sent, done int
		err        error
		ran        bool
	}{
		{"reset while the proxy dropped requests", 1100, 1101, byPeer, false},
		{"sent before the proxy dropped requests", 1005, 1011, byPeer, true},
		{"reset once the proxy let requests through again", 1600, 1601, byPeer, true},
		{"timed out while the proxy dropped requests", 1100, 1200, context.DeadlineExceeded, true},
	} {
		before := f.unseenCalls.Load()
		f.failedCall(1, at(c.sent), at(c.done), algorithms.Decision{}, c.err)
		if got := f.unseenCalls.Load() > before; got != c.ran {
			t.Errorf("%s: may have run %v, want %v", c.why, got, c.ran)
		}
	}
}

// TestBlackHoleDroppedRequestsNeverRan: a black hole drops every request
// sent once it is in place, whatever the caller's error (a timeout, or the
// connection it closes as it goes); a call sent before it took may have
// run, its reply the one lost.
func TestBlackHoleDroppedRequestsNeverRan(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	hole := []plan.Fault{{Kind: plan.FaultTimeout, At: time.Second, For: 500 * time.Millisecond}}
	f := newRecorder(start, 3*time.Second, hole, nil, event.Offset{})
	f.requestsDropped(0, at(1010))
	f.requestsPass(0, at(1500))
	for _, c := range []struct {
		why        string
		sent, done int
		err        error
		ran        bool
	}{
		{"sent into the black hole, timed out there", 1100, 1200, context.DeadlineExceeded, false},
		{"sent into the black hole, closed as it went", 1400, 1501, io.EOF, false},
		{"sent before the black hole took: its reply lost", 1005, 1105, context.DeadlineExceeded, true},
		{"sent as it went", 1500, 1600, context.DeadlineExceeded, true},
	} {
		before := f.unseenCalls.Load()
		f.failedCall(1, at(c.sent), at(c.done), algorithms.Decision{}, c.err)
		if got := f.unseenCalls.Load() > before; got != c.ran {
			t.Errorf("%s: may have run %v, want %v", c.why, got, c.ran)
		}
	}
}

// TestFaultSpansCountLateSends: a request sent more than 1ms after it was
// due counts as late in the span it was decided in (the run's
// requests.late counts it the same way), so the lateness a fault caused
// can be told from the generator's.
func TestFaultSpansCountLateSends(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	f := newRecorder(start, 10*time.Second, nil, nil, event.Offset{})
	for ms := 0; ms < 1000; ms += 5 {
		lag := int64(500) // on time: half a millisecond after its due time
		if ms >= 300 && ms < 500 {
			lag = 40_000 // held back by the fault: 40ms late
		}
		o := outcomeAt(start, ms, true, false, 0)
		o.Due = o.Sent.Add(-time.Duration(lag) * time.Microsecond)
		f.Record(o)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	if in, out := f.span(at(300), at(500)), f.span(at(500), at(1000)); in.Late != 40 || out.Late != 0 {
		t.Errorf("late sends: %d in the fault's span, %d after it; want 40 and 0", in.Late, out.Late)
	}
}
