package audit

import (
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
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
	a.RecordUnseen(0, start.Add(150*time.Millisecond).UnixMicro(), start.Add(200*time.Millisecond).UnixMicro(), 1)
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

// TestReplayGivesUpPastItsBranches: an identity with more calls in doubt
// than the replay can keep states for is held to the bound from there,
// and says so.
func TestReplayGivesUpPastItsBranches(t *testing.T) {
	a, start := faultAuditor(t, nil)
	for i := range 20 {
		at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
		a.RecordUnseen(0, at, at+500, 1)
	}
	for i := range 10 {
		decide(a, start, 0, float64(130+i), i%2 == 0)
	}
	res, f := replayOf(a)
	if f.Uncertain == nil || f.Uncertain.GaveUp != 1 || f.Unjudged == 0 || res.ModelMismatches != 0 {
		t.Errorf("uncertain %+v, unjudged %d, mismatches %d: want the identity given up on, its decisions unjudged", f.Uncertain, f.Unjudged, res.ModelMismatches)
	}
}

// TestPowerAfterTheReplayGaveUp: decisions held to the bound after the
// replay gave up on their identity could catch an excess exactly where
// more than the bound was offered within one window.
func TestPowerAfterTheReplayGaveUp(t *testing.T) {
	for _, n := range []int{10, 25} {
		a, start := faultAuditor(t, nil)
		for i := range 20 {
			at := start.Add(time.Duration(100+i) * time.Millisecond).UnixMicro()
			a.RecordUnseen(0, at, at+500, 1)
		}
		for i := range n {
			decide(a, start, 0, float64(130+10*i), i < 10)
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
		{"a call still pending on one is another state", []*branch{{model: model(3)}, {model: model(3), pending: pending}}, 2},
		{"a reset placed on one is another state", []*branch{{model: model(3)}, {model: model(3), resets: 1}}, 2},
		{"three branches, two alike", []*branch{{model: model(2)}, {model: model(5)}, {model: model(2)}}, 2},
	} {
		first := tc.branches[0]
		got := dedup(tc.branches)
		if len(got) != tc.want || got[0] != first {
			t.Errorf("%s: %d branches kept (the first first: %v), want %d", tc.why, len(got), got[0] == first, tc.want)
		}
	}
}
