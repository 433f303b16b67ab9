package audit

import (
	"math"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// decideUnsaid records Redis's decision for identity at start+ms, whose
// reply says nothing of what remains.
func decideUnsaid(a *Auditor, start time.Time, identity uint64, ms float64, allowed bool) {
	at := start.Add(time.Duration(ms * float64(time.Millisecond)))
	d := algorithms.Decision{Allowed: allowed, Remaining: "x", ServerNowMicros: at.UnixMicro()}
	if !allowed {
		d.RetryAfter = 2 * time.Second
	}
	record(a, identity, &event.Outcome{Sent: at, Done: at, Decision: d})
}

// unknownSwitch is a switch of primary at start+ms after which the new
// server's state is not known (a Sentinel promoted a replica), the first
// after a schedule of no faults.
func unknownSwitch(start time.Time, ms int) []event.StateLoss {
	return []event.StateLoss{{Fault: 0, CutUs: math.MinInt64, ResumeUs: start.Add(time.Duration(ms) * time.Millisecond).UnixMicro(), Unknown: true}}
}

// TestAuditFixedWindowAcrossAnUnknownSwitch: the new primary's replica
// had lost the fixed window's key, so it opened a fresh window at once:
// the limiter's doing is right, but a model that went on from the old
// state (or from none) would call it wrong. Held to the bound until a
// reply shows a window's first admission, then judged from there: a
// correct limiter has no mismatch; one that admits an eleventh request
// (before the switch on identity 1, after it on identity 0) is caught.
func TestAuditFixedWindowAcrossAnUnknownSwitch(t *testing.T) {
	for _, broken := range []bool{false, true} {
		a, start := faultAuditor(t, nil)
		// Before the switch: ten admitted, then denied; identity 1's
		// limiter admits an eleventh when broken.
		for i := range 12 {
			decideLeft(a, start, 0, float64(10+10*i), i < 10, max(9-i, 0))
			decideLeft(a, start, 1, float64(10+10*i), i < 10 || broken && i == 10, max(9-i, 0))
		}
		// The new primary has no key: a window from 510ms.
		for i := range 12 {
			decideLeft(a, start, 0, float64(510+10*i), i < 10 || broken && i == 10, max(9-i, 0))
		}
		a.setStateLosses(unknownSwitch(start, 500), nil)
		res, _ := a.result()
		want := int64(0)
		if broken {
			want = 2
		}
		if res.ModelMismatches != want || res.UnderAdmitted != 0 {
			t.Errorf("broken %v: %d mismatches, %d under-admitted; want %d, 0", broken, res.ModelMismatches, res.UnderAdmitted, want)
		}
		f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
		a.faults.fig.Apply(f)
		if f.Unjudged != 1 || f.Windows[0].StateLost == nil || f.Windows[0].StateLost.Identities != 1 {
			t.Errorf("broken %v: unjudged %d (want the switch's first decision only: a window's first admission, the state known again), state lost %+v (want identity 0's)",
				broken, f.Unjudged, f.Windows[0].StateLost)
		}
	}
}

// TestAuditFixedWindowHeldUntilAWindowOpens: the new primary kept the key
// with 7 of the 10 admissions: the replies after the switch say 2, 1, 0
// left, which no state the model can know explains. They are held to the
// bound (unjudged, the switch's) until the key expires and a reply shows
// a new window's first admission (held too, and the state known from
// it); from there an eleventh admission is the limiter's.
func TestAuditFixedWindowHeldUntilAWindowOpens(t *testing.T) {
	a, start := faultAuditor(t, nil)
	for i := range 10 {
		decideLeft(a, start, 0, float64(10+10*i), true, 9-i)
	}
	for i := range 5 {
		decideLeft(a, start, 0, float64(510+10*i), i < 3, max(2-i, 0))
	}
	for i := range 11 {
		decideLeft(a, start, 0, float64(1100+10*i), true, max(9-i, 0))
	}
	a.setStateLosses(unknownSwitch(start, 500), nil)
	res, _ := a.result()
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	if res.ModelMismatches != 1 || f.Unjudged != 6 || f.UnjudgedMismatches != 6 {
		t.Errorf("%d mismatches (want the eleventh admission), %d unjudged with %d disagreeing (want the 5 before the window opened and its first admission, each against a state the switch left unknown)",
			res.ModelMismatches, f.Unjudged, f.UnjudgedMismatches)
	}
}

// TestAuditSlidingLogAcrossAnUnknownSwitch: the new primary's log kept 7
// of the 10 stamps; the limiter admits 3 more at once. A log is known
// again once the window before a decision lies wholly after the switch:
// until then its decisions are held to the bound, and from then on it is
// rebuilt from what the limiter admitted, so an eleventh admission within
// a window is the limiter's.
func TestAuditSlidingLogAcrossAnUnknownSwitch(t *testing.T) {
	lim := algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 10, Window: time.Second})
	a, start := faultAuditorOf(t, lim, nil)
	for i := range 10 {
		decideUnsaid(a, start, 0, float64(10+10*i), true)
	}
	decideUnsaid(a, start, 0, 400, false)
	for i := range 3 {
		decideUnsaid(a, start, 0, float64(510+10*i), true)
	}
	decideUnsaid(a, start, 0, 600, false)
	// The 7 stamps the replica kept (10..70ms) leave the log.
	for i := range 7 {
		decideUnsaid(a, start, 0, float64(1015+10*i), true)
	}
	// From 1600ms the log holds the 7 from 1015ms: 3 more, then the
	// eleventh is admitted by a broken limiter.
	for i := range 4 {
		decideUnsaid(a, start, 0, float64(1600+10*i), true)
	}
	a.setStateLosses(unknownSwitch(start, 500), nil)
	res, _ := a.result()
	if res.ModelMismatches != 1 || res.Overshoot != 1 {
		t.Errorf("%d mismatches, overshoot %d: want the eleventh admission's, and nothing before it", res.ModelMismatches, res.Overshoot)
	}
}
