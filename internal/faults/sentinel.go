package faults

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// A primary that Sentinel manages may be failed over during a run by
// whoever runs the Sentinels. The run's client follows it (go-redis's
// failover client), and the session takes the switch as it takes its own
// failover fault: the switch and the readings of both servers around it
// (so that counters are added up on either side), a loss of state from
// the switch on, and a window with its failed calls and recovery. Unlike
// the failover fault, nobody paused the old primary's writes while the
// replica caught up: the new primary's state is a copy of the old one's up
// to an instant nobody knows, so the loss is Unknown, and the audit holds
// each identity's decisions to the bound until its state is known again.

// primarySwitch is what the session saw of one switch of primary.
type primarySwitch struct {
	sw redisenv.PrimarySwitch
	// old and nu are the servers read right after the switch: the old
	// primary, which took its last call before it, and the new one.
	old, nu redisenv.Reading
	// answer watches for the first decision the new primary made.
	answer *answerWatch
	// fault is the index of the scheduled failover fault that asked
	// Sentinel for the switch, -1 when nobody rlbench knows of did.
	fault int
}

// answerWatch finds the first decision made after an instant (unix
// nanos), among the run's outcomes.
type answerWatch struct {
	after int64
	first atomic.Int64
}

// saw notes a decision made at done (unix nanos).
func (w *answerWatch) saw(done int64) {
	if done < w.after {
		return
	}
	for {
		f := w.first.Load()
		if f != 0 && f <= done || w.first.CompareAndSwap(f, done) {
			return
		}
	}
}

// watchPrimary starts following the run's primary, when Sentinel manages
// it: each switch from now on is read and recorded.
func (s *Session) watchPrimary() {
	p := s.env.Primaries
	if p == nil {
		return
	}
	s.switchesBefore = len(p.Switches())
	s.stopPrimary = p.OnSwitch(s.primarySwitched)
}

// primarySwitched records switch sw: both servers read, a loss of state
// from the instant the client dialled the new primary, and a watch for
// its first answer.
func (s *Session) primarySwitched(sw redisenv.PrimarySwitch) {
	w := &answerWatch{after: sw.At.UnixNano()}
	s.rec.answers.Store(w)
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	p := s.env.Primaries
	old, nu := p.Direct(s.single, sw.Old), p.Direct(s.single, sw.New)
	defer old.Close()
	defer nu.Close()
	ps := primarySwitch{sw: sw, answer: w,
		old: redisenv.ReadServer(ctx, old, s.command, s.clock.Now()),
		nu:  redisenv.ReadServer(ctx, nu, s.command, s.clock.Now())}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A switch that a scheduled failover asked for is that fault's; any
	// other gets a window of its own, after the scheduled faults'.
	ps.fault = s.askedBy - 1
	s.askedBy = 0
	index := ps.fault
	if index < 0 {
		index = len(s.run.Faults) + s.unscheduledSwitches()
	}
	s.primaries = append(s.primaries, ps)
	s.switches = append(s.switches, redisenv.Switch{Old: ps.old, New: ps.nu})
	// Every decision the old primary made came before the client dialled
	// the new one, and every one of the new primary's after.
	s.events = append(s.events, event.StateLoss{Fault: index, CutUs: math.MinInt64,
		ResumeUs: s.offset.ServerMicros(sw.At), Unknown: true})
}

// unscheduledSwitches counts the switches seen so far that no scheduled
// fault asked for. The caller holds s.mu.
func (s *Session) unscheduledSwitches() int {
	n := 0
	for _, ps := range s.primaries {
		if ps.fault < 0 {
			n++
		}
	}
	return n
}

// endPrimary stops following the primary, once the switches seen during
// the traffic have been read (each within a call's timeout).
func (s *Session) endPrimary() {
	if s.stopPrimary == nil {
		return
	}
	s.stopPrimary()
	want := len(s.env.Primaries.Switches()) - s.switchesBefore
	deadline := time.Now().Add(2*s.timeout + time.Second)
	for {
		s.mu.Lock()
		n := len(s.primaries)
		s.mu.Unlock()
		if n >= want || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// primaryWindows are the windows of the switches of primary the session
// saw that no scheduled fault asked for (see switchWindow); the traffic
// ended at end.
func (s *Session) primaryWindows(end time.Time) []result.FaultWindow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []result.FaultWindow
	for k, ps := range s.primaries {
		if ps.fault >= 0 {
			continue
		}
		w := s.switchWindow(k, ps.sw.At, end)
		w.Unscheduled = true
		out = append(out, w)
	}
	return out
}

// switchWindow is the window of switch k, from its start from (the switch
// itself, or when a scheduled failover asked Sentinel for it) to the new
// primary's first answer (its recovery_ms), and its recovery from there
// to the first 100ms of normal decisions, before the next switch or end.
// The caller holds s.mu.
func (s *Session) switchWindow(k int, from, end time.Time) result.FaultWindow {
	ps := s.primaries[k]
	ms := func(t time.Time) int64 { return t.Sub(s.started).Milliseconds() }
	limit := end
	if k+1 < len(s.primaries) && s.primaries[k+1].sw.At.Before(limit) {
		limit = s.primaries[k+1].sw.At
	}
	answered := time.Time{}
	if ns := ps.answer.first.Load(); ns != 0 {
		answered = time.Unix(0, ns)
	}
	w := result.FaultWindow{Kind: "failover", ObservedStartMs: ms(from)}
	winEnd := limit
	if !answered.IsZero() {
		winEnd = answered
		w.ObservedEndMs = ms(answered)
		w.Server = fmt.Sprintf("Sentinel made %s the primary in place of %s; rlbench's client moved at %s and the new primary's first answer came %s later; run_id %s before, %s after (a replica's copy, asynchronous: what it had not yet received is lost)",
			ps.sw.New, ps.sw.Old, numfmtMs(ms(ps.sw.At)), answered.Sub(ps.sw.At).Round(time.Millisecond), short(ps.old.State.RunID), short(ps.nu.State.RunID))
	} else {
		w.ObservedEndMs = ms(limit)
		w.Error = "the new primary answered no decision before the traffic ended"
		w.Server = fmt.Sprintf("Sentinel made %s the primary in place of %s; rlbench's client moved at %s", ps.sw.New, ps.sw.Old, numfmtMs(ms(ps.sw.At)))
	}
	// The window holds the calls that failed while no primary
	// answered; the recovery time is the new primary's first answer,
	// and the recovery's figures run on until decisions were normal.
	w.Window = s.rec.span(from, winEnd)
	recEnd, _ := s.rec.recovered(winEnd, limit)
	w.Recovered = !answered.IsZero()
	w.RecoveryMs = max(w.ObservedEndMs-w.ObservedStartMs, 0)
	w.Recovery = s.rec.span(winEnd, recEnd)
	calls := s.rec.span(from, recEnd)
	w.ClientCalls = calls.Attempts
	if !s.Caller() {
		// Each request made one call.
		w.ClientCalls = calls.Decisions
	}
	if calls.Decisions > 0 {
		w.ClientCallsPerDecision = float64(w.ClientCalls) / float64(calls.Decisions)
	}
	w.ServerCallsUnavailable = "the servers were read once, right after the switch: the calls during it are not told apart"
	return w
}

// numfmtMs writes ms milliseconds from the start of the traffic.
func numfmtMs(ms int64) string { return fmt.Sprintf("+%dms", ms) }

// switchReach is how far around a switch of primary what the server's
// watch saw is the switch's doing: the watch's connection to the old
// primary closed, a server with another run_id after it.
const switchReach = time.Second

// Explains says whether a switch of primary during the traffic explains
// what the server's watch saw between from and to: it is then the
// switch's, reported with it, and not a reset of its own.
func (s *Session) Explains(from, to time.Time) bool {
	if s == nil || s.env.Primaries == nil {
		return false
	}
	for _, sw := range s.env.Primaries.Switches()[s.switchesBefore:] {
		if !to.Before(sw.At.Add(-switchReach)) && !from.After(sw.At.Add(switchReach)) {
			return true
		}
	}
	return false
}
