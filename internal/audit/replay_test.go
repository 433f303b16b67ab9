package audit

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// replayOf judges what the helpers above recorded, with resets seen on
// the server, and returns the audit and its fault figures.
func replayOf(a *Auditor, resets ...event.Reset) (*result.Audit, *result.Faults) {
	a.setStateLosses(nil, resets)
	res, _ := a.result()
	f := &result.Faults{}
	a.faults.fig.Apply(f)
	return res, f
}

// TestUnseenCallsDoNotExcuseABrokenLimiter: a call whose outcome is
// unknown explains one admission fewer, never one more: a limiter that
// admits past its limit while such a call is in doubt is still caught,
// in every state the model may have been in.
func TestUnseenCallsDoNotExcuseABrokenLimiter(t *testing.T) {
	a, start := faultAuditor(t, nil)
	a.RecordUnseen(0, start.Add(150*time.Millisecond).UnixMicro(), start.Add(200*time.Millisecond).UnixMicro(), 1, 0)
	// 12 admitted in one window of a limit of 10, the doubtful call
	// besides.
	for i := range 12 {
		decide(a, start, 0, float64(300+10*i), true)
	}
	res, f := replayOf(a)
	if res.ModelMismatches != 2 || res.UnderAdmitted != 0 {
		t.Errorf("mismatches %d, under-admitted %d; want the 11th and 12th admissions, no under-admission", res.ModelMismatches, res.UnderAdmitted)
	}
	if f.Uncertain == nil || f.Uncertain.Identities != 1 {
		t.Errorf("uncertain %+v: want the identity with its unseen call", f.Uncertain)
	}
}

// TestResetOfEveryKey: a FLUSHALL seen on the server between two readings
// took every identity's count at an instant within them: a fresh window
// after it is the reset's doing, placed wherever the replies put it. The
// same admissions without a reset seen are a broken limiter's.
func TestResetOfEveryKey(t *testing.T) {
	us := func(start time.Time, ms int) int64 {
		return start.Add(time.Duration(ms) * time.Millisecond).UnixMicro()
	}
	for _, seen := range []bool{true, false} {
		a, start := faultAuditor(t, nil)
		// Identity 0 fills its window before the flush and is admitted
		// afresh after it, within the same second; identity 1 meets the
		// flush within the span, between two of its requests.
		for i := range 10 {
			decide(a, start, 0, float64(10+i), true)
		}
		for i := range 5 {
			decide(a, start, 0, float64(500+i), true)
		}
		for i := range 10 {
			decide(a, start, 1, float64(10+i), true)
		}
		decide(a, start, 1, 300, false) // before the flush: still full
		decide(a, start, 1, 350, true)  // after it, inside the span
		var resets []event.Reset
		if seen {
			resets = []event.Reset{{Kind: "flushall", FromUs: us(start, 320), ToUs: us(start, 400), AllKeys: true}}
		}
		res, _ := replayOf(a, resets...)
		switch {
		case seen && res.ModelMismatches != 0:
			t.Errorf("with the flush seen: %d mismatches, want none", res.ModelMismatches)
		case !seen && res.ModelMismatches != 6:
			t.Errorf("without it: %d mismatches, want identity 0's 5 and identity 1's 1", res.ModelMismatches)
		}
	}
}

// TestResetOfSomeKeys: keys deleted or evicted by another client may be
// any identity's: an identity whose replies show a fresh state is
// explained, one whose replies do not is judged as before.
func TestResetOfSomeKeys(t *testing.T) {
	a, start := faultAuditor(t, nil)
	for i := range 10 {
		decide(a, start, 0, float64(10+i), true)
		decide(a, start, 1, float64(10+i), true)
	}
	decide(a, start, 0, 500, true)  // its key was deleted
	decide(a, start, 1, 500, false) // its was not
	span := event.Reset{Kind: "del", FromUs: start.Add(100 * time.Millisecond).UnixMicro(), ToUs: start.Add(200 * time.Millisecond).UnixMicro()}
	if res, _ := replayOf(a, span); res.ModelMismatches != 0 {
		t.Errorf("%d mismatches, want none", res.ModelMismatches)
	}
}

// manyStates is an auditor of a sliding log of a limit of 100 a second
// and identity 0's 60 calls in doubt, sent a millisecond apart: each
// number of them that ran, and each one alone, leaves another log, more
// states than the replay keeps.
func manyStates(t *testing.T) (*Auditor, time.Time) {
	a, start := faultAuditorOf(t, algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 100, Window: time.Second}), nil)
	for i := range 60 {
		at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
		a.RecordUnseen(0, at, at+500, 1, 0)
	}
	return a, start
}

// TestReplayGivesUpPastItsBranches: an identity with more calls in doubt
// than the replay can keep states for is held to the bound from there,
// and says so.
func TestReplayGivesUpPastItsBranches(t *testing.T) {
	a, start := manyStates(t)
	for i := range 10 {
		decide(a, start, 0, float64(170+i), true)
	}
	res, f := replayOf(a)
	if f.Uncertain == nil || f.Uncertain.GaveUp != 1 || f.Unjudged == 0 || res.ModelMismatches != 0 {
		t.Errorf("uncertain %+v, unjudged %d, mismatches %d: want the identity given up on, its decisions unjudged", f.Uncertain, f.Unjudged, res.ModelMismatches)
	}
}

// TestReplayResumesAfterARestartThatKeptNothing: once a restart took
// every state, the identity given up on is judged again: a limiter that
// admits past its limit on the new server is caught. (The first decision
// after the calls in doubt is judged in every state they left; the replay
// gives up after it.)
func TestReplayResumesAfterARestartThatKeptNothing(t *testing.T) {
	for _, broken := range []bool{false, true} {
		lim := algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 100, Window: time.Second})
		a, start := faultAuditorOf(t, lim, []plan.Fault{{Kind: plan.FaultRestart, At: 300 * time.Millisecond}})
		for i := range 60 {
			at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+500, 1, 0)
		}
		for i := range 10 {
			decide(a, start, 0, float64(170+i), true)
		}
		resume := start.Add(400 * time.Millisecond).UnixMicro()
		a.setStateLosses([]event.StateLoss{{Fault: 0, CutUs: math.MinInt64, ResumeUs: resume}}, nil)
		admitted := 100
		if broken {
			admitted = 105
		}
		for i := range 110 {
			decide(a, start, 0, 500+float64(i), i < admitted)
		}
		res, _ := a.result()
		f := &result.Faults{}
		a.faults.fig.Apply(f)
		want := int64(0)
		if broken {
			want = 5
		}
		if f.Uncertain == nil || f.Uncertain.GaveUp != 1 || f.Unjudged != 9 || res.ModelMismatches != want {
			t.Errorf("broken %v: uncertain %+v, unjudged %d, mismatches %d: want the 9 decisions before the restart that came after the first unjudged, %d mismatches after it",
				broken, f.Uncertain, f.Unjudged, res.ModelMismatches, want)
		}
	}
}

// TestPowerAfterTheReplayGaveUp: decisions held to the bound after the
// replay gave up on their identity could catch an excess exactly where
// more than the bound was offered within one window.
func TestPowerAfterTheReplayGaveUp(t *testing.T) {
	for _, n := range []int{90, 130} {
		a, start := manyStates(t)
		for i := range n {
			decide(a, start, 0, float64(170+2*i), i < 40)
		}
		res, f := replayOf(a)
		if f.Uncertain == nil || f.Uncertain.GaveUp != 1 || res.Power == nil {
			t.Fatalf("%d offered: uncertain %+v, power %+v", n, f.Uncertain, res.Power)
		}
		if want := int64(n) > res.BoundWindow; res.Power.Excess != want {
			t.Errorf("%d offered against a bound of %d: power to show an excess %v, want %v", n, res.BoundWindow, res.Power.Excess, want)
		}
	}
}

// TestDedupKeepsOneBranchOfEachState: branches whose models are in one
// state, with the same calls pending and the same resets placed, are one;
// a branch that differs in any of the three is kept. Each row says why.
func TestDedupKeepsOneBranchOfEachState(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixMicro()
	policy := algorithms.Policy{Limit: 10, Window: time.Minute}
	model := func(admitted int) algorithms.Model {
		m := algorithms.NewFixedWindow(nil, policy).Model()
		for i := range admitted {
			m.Allow(now + int64(i))
		}
		return m
	}
	pending := []pendingCall{{unseenCall: unseenCall{sentUs: now, doneUs: now + 500}}}
	for _, tc := range []struct {
		why      string
		branches []*branch
		want     int
	}{
		{"one branch is kept as it is", []*branch{{model: model(3)}}, 1},
		{"two branches in one state are one", []*branch{{model: model(3)}, {model: model(3)}}, 1},
		{"a count of one more is another state", []*branch{{model: model(3)}, {model: model(4)}}, 2},
		{"a call still pending on one is one state, the call pending on it", []*branch{{model: model(3)}, {model: model(3), pending: pending}}, 1},
		{"a reset placed on one is another state", []*branch{{model: model(3)}, {model: model(3), resets: 1}}, 2},
		{"three branches, two alike", []*branch{{model: model(2)}, {model: model(5)}, {model: model(2)}}, 2},
	} {
		first := tc.branches[0]
		var calls int
		for _, b := range tc.branches {
			calls += len(b.pending)
		}
		got := dedup(tc.branches)
		if len(got) != tc.want || got[0] != first {
			t.Errorf("%s: %d branches kept (the first first: %v), want %d", tc.why, len(got), got[0] == first, tc.want)
		}
		kept := 0
		for _, b := range got {
			kept += len(b.pending)
		}
		if kept != calls {
			t.Errorf("%s: %d calls pending on the branches kept, want the %d pending before", tc.why, kept, calls)
		}
	}
}

// TestReplayResumesAtAReplyThatStatesTheState: a bucket's reply states
// its whole state when it carries the fraction: the identity given up on
// is judged again from the decision after it, and a limiter that admits
// what that state cannot is caught.
func TestReplayResumesAtAReplyThatStatesTheState(t *testing.T) {
	for _, broken := range []bool{false, true} {
		// A token a second: the bucket barely refills within the test.
		lim := algorithms.NewTokenBucket(nil, algorithms.Policy{Limit: 200, Window: 200 * time.Second})
		a, start := faultAuditorOf(t, lim, nil)
		for i := range 150 {
			at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+500, 1, 0)
		}
		// No remaining in these replies: the calls in doubt leave more
		// states than the replay keeps.
		for i := range 10 {
			decide(a, start, 0, float64(270+i), true)
		}
		// Half a token left: the state, said exactly.
		at := start.Add(300 * time.Millisecond)
		record(a, 0, &event.Outcome{Sent: at, Done: at, Decision: algorithms.Decision{Allowed: true, Remaining: "0.500000", ServerNowMicros: at.UnixMicro()}})
		// A millisecond later the bucket holds 0.501 of a token: a denial,
		// unless the limiter is broken.
		decide(a, start, 0, 301, broken)
		res, f := replayOf(a)
		want := b2i(broken)
		if f.Uncertain == nil || f.Uncertain.GaveUp != 1 || f.Unjudged != 10 || res.ModelMismatches != want {
			t.Errorf("broken %v: uncertain %+v, unjudged %d, mismatches %d: want 9 decisions unjudged and the one that anchored, %d mismatches after it",
				broken, f.Uncertain, f.Unjudged, res.ModelMismatches, want)
		}
	}
}

// TestLogCountsPruneStatesOfCallsInDoubt: a sliding log's remaining counts
// its admissions within the window, exact while every call in doubt lies
// inside it: replies that say how many ran keep the one state that
// explains them, where answers alone would keep more states than the
// replay can. A limiter whose count does not move is caught.
func TestLogCountsPruneStatesOfCallsInDoubt(t *testing.T) {
	for _, broken := range []bool{false, true} {
		a, start := faultAuditorOf(t, algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 100, Window: time.Second}), nil)
		for i := range 60 {
			at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+500, 1, 0)
		}
		// Ten of the calls in doubt ran; then ten admissions.
		for i := range 10 {
			left := 100 - 10 - (i + 1)
			if broken {
				left = 89
			}
			at := start.Add(time.Duration(170+i) * time.Millisecond)
			record(a, 0, &event.Outcome{Sent: at, Done: at, Decision: algorithms.Decision{Allowed: true, Remaining: strconv.Itoa(left), ServerNowMicros: at.UnixMicro()}})
		}
		res, f := replayOf(a)
		switch {
		case !broken && (f.Uncertain == nil || f.Uncertain.GaveUp != 0 || f.Unjudged != 0):
			t.Errorf("uncertain %+v, unjudged %d: want every decision judged", f.Uncertain, f.Unjudged)
		case !broken && res.ModelMismatches != 0:
			t.Errorf("%d mismatches, want none", res.ModelMismatches)
		case broken && res.ModelMismatches == 0:
			t.Errorf("a count that does not move: no mismatch")
		}
	}
}

// TestLogHeldWhileCallsInDoubtExpire: a sliding log's calls in doubt were
// placed somewhere between their send and the next decision: while the
// window's trailing edge crosses that span, when they leave the log is
// not known and decisions are held to the bound; once past it, the log is
// what the limiter admitted within the window, and a limiter that admits
// past it is caught.
func TestLogHeldWhileCallsInDoubtExpire(t *testing.T) {
	for _, broken := range []bool{false, true} {
		a, start := faultAuditorOf(t, algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 10, Window: time.Second}), nil)
		for i := range 50 {
			at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+500, 1, 0)
		}
		// Ten of the calls in doubt ran, from 100ms: the log is full.
		decideLeft(a, start, 0, 400, false, 0)
		// They leave the window from 1100ms; ten admissions follow.
		admitted := 0
		for ms := 1050; ms < 1450; ms += 10 {
			ok := ms >= 1110 && admitted < 10
			if ok {
				admitted++
			}
			left := 10 - admitted
			if admitted == 0 {
				left = 0 // still full
			}
			decideLeft(a, start, 0, float64(ms), ok, left)
		}
		// Past the span, and past the last decision the calls in doubt
		// may have come before (the third after they were given up): the
		// log holds the ten admissions from 1110ms.
		decideLeft(a, start, 0, 2080, false, 0)
		decideLeft(a, start, 0, 2090, broken, 0)
		res, f := replayOf(a)
		want := b2i(broken)
		if f.Uncertain == nil || f.Uncertain.GaveUp != 0 || f.Unjudged == 0 || res.ModelMismatches != want {
			t.Errorf("broken %v: uncertain %+v, unjudged %d, mismatches %d: want some decisions held, none given up on, %d mismatches",
				broken, f.Uncertain, f.Unjudged, res.ModelMismatches, want)
		}
	}
}

// decideLeft records Redis's decision for identity at start+ms, with the
// remaining its reply said.
func decideLeft(a *Auditor, start time.Time, identity uint64, ms float64, allowed bool, left int) {
	at := start.Add(time.Duration(ms * float64(time.Millisecond)))
	d := algorithms.Decision{Allowed: allowed, Remaining: strconv.Itoa(left), ServerNowMicros: at.UnixMicro()}
	if !allowed {
		d.RetryAfter = 2 * time.Second
	}
	record(a, identity, &event.Outcome{Sent: at, Done: at, Decision: d})
}

// TestWindowHeldUntilItReopens: a fixed window that a call in doubt
// opened ends a window after an instant known only within a span: the
// decisions where it may have ended are held to the bound, until a reply
// shows a window's first admission (the limit less one left); from there
// the window is known, and a limiter that admits past it is caught.
func TestWindowHeldUntilItReopens(t *testing.T) {
	for _, broken := range []bool{false, true} {
		a, start := faultAuditor(t, nil)
		for i := range 10 {
			decideLeft(a, start, 0, float64(10+i), true, 9-i) // the window from 10ms is full
		}
		for i := range 10 {
			at := start.Add(time.Duration(1020+10*i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+100_000, 1, 0) // ran from 1020ms: a new window
		}
		decideLeft(a, start, 0, 1500, false, 0)
		decideLeft(a, start, 0, 2030, true, 9) // the first of a window
		for i := range 9 {
			decideLeft(a, start, 0, float64(2040+10*i), true, 8-i)
		}
		decideLeft(a, start, 0, 2130, broken, 0)
		res, f := replayOf(a)
		want := b2i(broken)
		if f.Unjudged != 1 || res.ModelMismatches != want {
			t.Errorf("broken %v: %d unjudged, %d mismatches; want the window's first admission held, %d mismatches", broken, f.Unjudged, res.ModelMismatches, want)
		}
	}
}

// TestCallsHeldByAPauseRanAsItEnded: a call sent during a pause ran, if at
// all, as the pause ended: a window one of them opened cannot end before a
// window after that, and decisions until then are judged. Without the
// pause known, the call may have run from its send, and a decision where
// its window may have ended is held to the bound.
func TestCallsHeldByAPauseRanAsItEnded(t *testing.T) {
	pause := []plan.Fault{{Kind: plan.FaultPause, At: time.Second, For: 500 * time.Millisecond}}
	for _, faults := range [][]plan.Fault{pause, nil} {
		a, start := faultAuditor(t, faults)
		for i := range 10 {
			at := start.Add(time.Duration(1100+10*i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+100_000, 1, 0)
		}
		decideLeft(a, start, 0, 1600, false, 0) // they ran as the pause ended
		decideLeft(a, start, 0, 2200, false, 0) // their window is still full
		res, f := replayOf(a)
		switch {
		case res.ModelMismatches != 0:
			t.Errorf("pause known %v: %d mismatches, want none", faults != nil, res.ModelMismatches)
		case faults != nil && f.Unjudged != 0:
			t.Errorf("with the pause known: %d decisions unjudged, want both judged", f.Unjudged)
		case faults == nil && f.Unjudged != 1:
			t.Errorf("without it: %d decisions unjudged, want the one where the window may have ended", f.Unjudged)
		}
	}
}

// TestNoAnchorOnAWholeNumberLeft: GCRA (10 a second, a burst of 10) whose
// replies say the requests left as a whole number, as many GCRA scripts
// do. A call in doubt ran at 0ms, unseen; the replay places it at 20ms
// (the first decision the server made after it) or at the next
// decision's, 50ms. The reply there says 8 left (8.5, floored): taken as
// the whole state, it would put the identity's TAT 50ms later than it is,
// and the retry hint of the denial that follows the burst would look too
// early. A whole number says only that the state lies within one request
// of it: the replay keeps its placements, judged by their answers, and a
// limiter that admits where every placement denies is still caught.
func TestNoAnchorOnAWholeNumberLeft(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Window: time.Second}
	for _, broken := range []bool{false, true} {
		a, start := faultAuditorOf(t, algorithms.NewGCRA(nil, p), nil)
		truth := algorithms.NewGCRA(nil, p).Model().(algorithms.ReplyModel)
		ms := func(v float64) int64 { return start.Add(time.Duration(v * float64(time.Millisecond))).UnixMicro() }
		truth.Allow(ms(0))
		a.RecordUnseen(0, ms(0), ms(5), 1, 0)
		decide(a, start, 1, 20, true) // the other identity: the server's next decision
		reply := func(atMs float64, forceAllowed bool) {
			at := ms(atMs)
			allowed := truth.Allow(at) || forceAllowed
			d := algorithms.Decision{Allowed: allowed, Remaining: strconv.Itoa(int(math.Floor(truth.Remaining()))), ServerNowMicros: at}
			if !allowed {
				d.RetryAfter = time.Duration((truth.NextAdmitMicros()-at+999)/1000) * time.Millisecond
			}
			record(a, 0, &event.Outcome{Sent: time.UnixMicro(at), Done: time.UnixMicro(at), Decision: d})
		}
		reply(50, false) // 8.5 left
		for i := range 8 {
			reply(51+float64(i), false)
		}
		reply(60, false) // denied: admitted again at 100ms
		reply(61, broken)
		res, _ := replayOf(a)
		if want := b2i(broken); res.ModelMismatches != want || res.UnderAdmitted != 0 {
			t.Errorf("broken %v: %d mismatches, %d under-admitted; want %d and none", broken, res.ModelMismatches, res.UnderAdmitted, want)
		}
	}
}

// TestCallInDoubtDecidesByTheTimeItCarried: a limiter that decides by its
// caller's clock (the client-time sliding log, 2 a second) stamps a call
// with the time its request carried, whenever the server runs it. One
// carried 10ms, was held by a pause and ran as it ended, unanswered: its
// stamp leaves the window at 1010ms, not a second after the pause. The
// limiter admits at 1015ms, as the replay placing the call at the time it
// carried says; placed at the server's instant, it would have been a
// mismatch. A limiter that admits a third within the second is caught.
func TestCallInDoubtDecidesByTheTimeItCarried(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: time.Second}
	for _, broken := range []bool{false, true} {
		lim := algorithms.NewSlidingLogClientTime(nil, p)
		a, start := faultAuditorOf(t, lim, []plan.Fault{{Kind: plan.FaultPause, At: 5 * time.Millisecond, For: 500 * time.Millisecond}})
		truth := lim.Model().(algorithms.ReplyModel)
		ms := func(v float64) int64 { return start.Add(time.Duration(v * float64(time.Millisecond))).UnixMicro() }
		// seen records a decision whose request carried carriedMs, run by
		// the server 100us later.
		seen := func(carriedMs float64, force bool) {
			c := ms(carriedMs)
			allowed := truth.Allow(c) || force
			d := algorithms.Decision{Allowed: allowed, Remaining: strconv.FormatFloat(truth.Remaining(), 'f', -1, 64),
				ClientNowMicros: c, ServerNowMicros: c + 100}
			if !allowed {
				d.RetryAfter = time.Duration((truth.NextAdmitMicros()-c+999)/1000) * time.Millisecond
			}
			record(a, 0, &event.Outcome{Sent: time.UnixMicro(c), Done: time.UnixMicro(c + 200), Decision: d})
		}
		seen(0, false)
		truth.Allow(ms(10)) // the call in doubt, run as the pause ended
		a.RecordUnseen(0, ms(10), ms(110), 1, ms(10))
		seen(600, false)   // denied: two within the second
		seen(1005, false)  // the first left the window
		seen(1015, false)  // the call in doubt left it too
		seen(1020, broken) // two within the second again
		res, f := replayOf(a)
		if want := b2i(broken); res.ModelMismatches != want || res.UnderAdmitted != 0 || f.Unjudged != 0 {
			t.Errorf("broken %v: %d mismatches, %d under-admitted, %d unjudged; want %d, none, none", broken, res.ModelMismatches, res.UnderAdmitted, f.Unjudged, want)
		}
	}
}
