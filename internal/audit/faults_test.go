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

func TestExcessBeyond(t *testing.T) {
	const w, limit = 1000, 3
	for _, tc := range []struct {
		why          string
		redis, extra []int64
		want         int64
	}{
		{"no admission on error, no excess", []int64{1, 2, 3, 4}, nil, 0},
		{"on error, under the limit", nil, []int64{1, 2}, 0},
		{"on error past the limit", []int64{1}, []int64{2, 3, 4, 5}, 2},
		// The limiter itself let 5 through in that window (a fixed
		// window's straddle): only what came on top of its own counts.
		{"beyond the limiter's own excess", []int64{1, 2, 3, 4, 5}, []int64{6}, 1},
		{"in another window", []int64{1, 2, 3}, []int64{2000, 2001}, 0},
	} {
		for _, units := range []int64{1, 2} {
			// Requests of two units each: the limit of 3 is then 3 units,
			// and every admission counts twice.
			var redis, extra tally
			for _, s := range tc.redis {
				redis.add(s, units)
			}
			for _, s := range tc.extra {
				extra.add(s, units)
			}
			want := tc.want
			if units == 2 {
				want = max(0, 2*int64(len(tc.redis)+len(tc.extra))-max(limit, 2*int64(len(tc.redis))))
				if tc.why == "in another window" {
					want = 1 // 2 + 2 in the next window, past a limit of 3 units
				}
				if tc.extra == nil {
					want = 0
				}
			}
			if got := excessBeyond(&redis, &extra, w, limit); got != want {
				t.Errorf("%s, %d units each: %d, want %d", tc.why, units, got, want)
			}
		}
	}
}

func TestMaxInWindowAt(t *testing.T) {
	stamps := []int64{100, 200, 900, 1100, 1200, 1300, 2500}
	for _, tc := range []struct {
		why  string
		at   int64
		want int64
	}{
		// [301, 1301) holds 900, 1100, 1200 and 1300.
		{"the window that holds 1000", 1000, 4},
		{"only windows that hold the instant count", 2400, 1},
		{"before everything", -5000, 0},
	} {
		var tl tally
		for _, s := range stamps {
			tl.add(s, 1)
		}
		if got := tl.maxInAt(tc.at, 1000); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.why, got, tc.want)
		}
	}
}

// faultAuditor is an auditor of a fixed window of 10 per second over two
// identities, watching the given faults from a run that starts at epoch.
func faultAuditor(t *testing.T, faults []plan.Fault) (*Auditor, time.Time) {
	t.Helper()
	return faultAuditorOf(t, algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 10, Window: time.Second}), faults)
}

// faultAuditorOf is faultAuditor for limiter lim.
func faultAuditorOf(t *testing.T, lim algorithms.Limiter, faults []plan.Fault) (*Auditor, time.Time) {
	t.Helper()
	a := New(Config{Limiter: lim, Identities: 2, Sample: 10, Seed: 1})
	start := time.UnixMicro(1_700_000_000_000_000)
	a.watchFaults(Timeline{Faults: faults, Start: start})
	return a, start
}

// decide records Redis's decision for identity at start+ms.
func decide(a *Auditor, start time.Time, identity uint64, ms float64, allowed bool) {
	at := start.Add(time.Duration(ms * float64(time.Millisecond)))
	d := algorithms.Decision{Allowed: allowed, Remaining: "x", ServerNowMicros: at.UnixMicro()}
	if !allowed {
		// Long enough for any window of these tests to have closed.
		d.RetryAfter = 2 * time.Second
	}
	record(a, identity, &event.Outcome{Sent: at, Done: at, Decision: d})
}

// TestAuditAcrossARestart: a restart takes the fixed window's count away;
// the new server admits a fresh window at once. The audit measures windows
// within each lifetime of the state (no overshoot, no mismatch), and
// reports what the loss let through: one identity came back fresh, ten
// admissions a limiter that kept its state would have denied, twenty in
// the one window that spans the restart.
func TestAuditAcrossARestart(t *testing.T) {
	a, start := faultAuditor(t, []plan.Fault{{Kind: plan.FaultRestart, At: 400 * time.Millisecond}})
	for i := range 12 {
		decide(a, start, 0, float64(10+10*i), i < 10)
	}
	// Identity 1 sent nothing before: it lost nothing.
	for i := range 12 {
		decide(a, start, 0, float64(500+10*i), i < 10)
		decide(a, start, 1, float64(500+10*i), i < 10)
	}
	a.setStateLosses([]event.StateLoss{{Fault: 0, CutUs: math.MinInt64, ResumeUs: start.Add(450 * time.Millisecond).UnixMicro()}}, nil)
	res, _ := a.result()
	if res.ModelMismatches != 0 || res.Overshoot != 0 || res.MaxWindowAdmitted != 10 {
		t.Errorf("audit %+v: want no mismatch and no overshoot, 10 at most in a window of one lifetime", res)
	}
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	l := f.Windows[0].StateLost
	if l == nil || l.Identities != 1 || l.Admitted != 10 || l.MaxWindowAdmitted != 20 {
		t.Errorf("state lost %+v, want 1 identity, 10 admitted, 20 in the window that spans it", l)
	}
	if f.StateLostIdentities != 1 || f.StateLostAdmitted != 10 {
		t.Errorf("run totals %d, %d", f.StateLostIdentities, f.StateLostAdmitted)
	}
}

// TestAuditAcrossAFailover: the replica has what was written before the
// promotion (cut); the old primary's admissions after it are lost when the
// clients move (resume). Those are judged on the old primary's state,
// and the decisions after the move on what the replica had.
func TestAuditAcrossAFailover(t *testing.T) {
	a, start := faultAuditor(t, []plan.Fault{{Kind: plan.FaultFailover, At: 300 * time.Millisecond}})
	for i := range 6 {
		decide(a, start, 0, float64(10+10*i), true) // 6 before the promotion
	}
	for i := range 4 {
		decide(a, start, 0, float64(310+10*i), true) // 4 on the old primary, lost
	}
	// The new primary has 6: it admits 4 more, then denies.
	for i := range 6 {
		decide(a, start, 0, float64(500+10*i), i < 4)
	}
	a.setStateLosses([]event.StateLoss{{Fault: 0, CutUs: start.Add(300 * time.Millisecond).UnixMicro(), ResumeUs: start.Add(400 * time.Millisecond).UnixMicro()}}, nil)
	res, _ := a.result()
	if res.ModelMismatches != 0 {
		t.Errorf("%d mismatches: the model did not follow the failover", res.ModelMismatches)
	}
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	if l := f.Windows[0].StateLost; l == nil || l.Identities != 1 || l.Admitted != 4 {
		t.Errorf("state lost %+v, want 1 identity and the 4 the lost writes let through", l)
	}
}

// TestAuditBranchesOnUnseenCalls: a call that failed but may have run (a
// stall, a slow reply) charged its identity where the model cannot see
// it. The replay keeps both states, the one where it ran and the one where
// it did not, and the identity's later replies tell them apart: its
// denied 10th request is explained, not blamed on the limiter; another
// identity is judged as strictly as ever.
func TestAuditBranchesOnUnseenCalls(t *testing.T) {
	a, start := faultAuditor(t, []plan.Fault{{Kind: plan.FaultStall, At: 100 * time.Millisecond, For: 100 * time.Millisecond}})
	a.RecordUnseen(0, start.Add(150*time.Millisecond).UnixMicro(), start.Add(200*time.Millisecond).UnixMicro(), 1, 0)
	// Identity 0: the unseen call took the 10th admission.
	for i := range 10 {
		decide(a, start, 0, float64(300+10*i), i < 9)
	}
	// Identity 1 is denied its 10th admission with nothing unseen: the
	// limiter's mismatch.
	for i := range 10 {
		decide(a, start, 1, float64(300+10*i), i < 9)
	}
	res, _ := a.result()
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	wantUncertain(t, res, f, 1)
}

// TestAuditTellsWhatThePolicyDecided: fail-open admissions past the limit
// are the policy's excess and admissions the limiter would have denied;
// fail-closed denials of requests the limiter would have admitted are
// traffic lost only to the fault.
func TestAuditTellsWhatThePolicyDecided(t *testing.T) {
	a, start := faultAuditor(t, []plan.Fault{{Kind: plan.FaultPause, At: 100 * time.Millisecond, For: 200 * time.Millisecond}})
	for i := range 5 {
		decide(a, start, 0, float64(10+10*i), true)
		decide(a, start, 1, float64(10+10*i), true)
	}
	// Identity 0 gets 8 admitted on error: 3 past the limit of 10.
	for i := range 8 {
		a.recordOnError(0, start.Add(time.Duration(150+10*i)*time.Millisecond).UnixMicro(), true, 1)
	}
	// Identity 1 gets 3 denied on error that the limiter would have let in.
	for i := range 3 {
		a.recordOnError(1, start.Add(time.Duration(150+10*i)*time.Millisecond).UnixMicro(), false, 1)
	}
	a.result()
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	if f.PolicyExcess != 3 || f.AdmittedByFault == nil || *f.AdmittedByFault != 3 || *f.DeniedByFault != 3 {
		t.Errorf("policy excess %d, admitted by the fault %v, denied by it %v; want 3, 3, 3", f.PolicyExcess, *f.AdmittedByFault, *f.DeniedByFault)
	}
}

// TestAuditUnseenCallsAcrossARestart: a call sent before the restart
// that failed only once the new server was there may have waited for a
// connection that reached the new server and run on it: the replay keeps
// the state in which it did, and the identity's decisions are judged, not
// blamed on the limiter. A call given up before the old server went ran
// nowhere the new state holds.
func TestAuditUnseenCallsAcrossARestart(t *testing.T) {
	a, start := faultAuditor(t, []plan.Fault{{Kind: plan.FaultRestart, At: 400 * time.Millisecond}})
	us := func(ms int) int64 { return start.Add(time.Duration(ms) * time.Millisecond).UnixMicro() }
	a.RecordUnseen(0, us(420), us(520), 1, 0) // given up after the new server came
	a.RecordUnseen(1, us(380), us(420), 1, 0) // given up before the old one went
	// On the new server, identity 0's unseen call took the 10th admission;
	// identity 1 is denied its 10th with nothing unseen: a mismatch.
	for i := range 10 {
		decide(a, start, 0, float64(600+10*i), i < 9)
		decide(a, start, 1, float64(600+10*i), i < 9)
	}
	a.setStateLosses([]event.StateLoss{{Fault: 0, CutUs: math.MinInt64, ResumeUs: us(450)}}, nil)
	res, _ := a.result()
	f := &result.Faults{Windows: make([]result.FaultWindow, 1)}
	a.faults.fig.Apply(f)
	// Identity 1's call was given up before the old server went: it ran
	// nowhere the new state holds, and leaves nothing to branch on.
	wantUncertain(t, res, f, 2)
}

// wantUncertain checks what the two tests above share: identity 0's
// unseen call explains its denied 10th request (the replay kept the state
// in which it ran), identity 1's denial has no such explanation, and
// nothing was left unjudged.
func wantUncertain(t *testing.T, res *result.Audit, f *result.Faults, withUnseen int64) {
	t.Helper()
	if res.ModelMismatches != 1 || res.UnderAdmitted != 1 || f.Unjudged != 0 {
		t.Errorf("mismatches %d and under-admitted %d (want identity 1's one), unjudged %d (want none)",
			res.ModelMismatches, res.UnderAdmitted, f.Unjudged)
	}
	if u := f.Uncertain; u == nil || *u != (result.Uncertain{Identities: withUnseen, Branched: 1}) {
		t.Errorf("uncertain %+v, want %d with unseen calls, identity 0's branched", u, withUnseen)
	}
}

// TestCallerClockFailoverCutAtTheServersTime: a failover's new primary
// kept what the old one ran before the cut, on the server's clock. A
// limiter that decides by its caller's clock (the client-time fixed
// window, 10 per second) is fed the times its requests carried, which
// differ from the server's by each call's own delay: the history the new
// primary kept is what the server ran before the cut, whatever times the
// requests carried. The first decision after the failover was held 30ms
// (its request carried a time 30ms before the server ran it): read on its
// clock, the cut would drop the last three admissions the replica kept.
func TestCallerClockFailoverCutAtTheServersTime(t *testing.T) {
	lim := algorithms.NewFixedWindowClientTime(nil, algorithms.Policy{Limit: 10, Window: time.Second})
	a, start := faultAuditorOf(t, lim, []plan.Fault{{Kind: plan.FaultFailover, At: 300 * time.Millisecond}})
	left := 10
	// seen records a decision whose request carried start+carriedMs and
	// which the server ran at start+serverMs.
	seen := func(carriedMs, serverMs float64, allowed bool) {
		if allowed {
			left--
		}
		d := algorithms.Decision{Allowed: allowed, Remaining: strconv.Itoa(left),
			ClientNowMicros: start.Add(time.Duration(carriedMs * float64(time.Millisecond))).UnixMicro(),
			ServerNowMicros: start.Add(time.Duration(serverMs * float64(time.Millisecond))).UnixMicro()}
		if !allowed {
			d.RetryAfter = time.Duration(1000-carriedMs) * time.Millisecond
		}
		sent := time.UnixMicro(d.ClientNowMicros)
		record(a, 0, &event.Outcome{Sent: sent, Done: time.UnixMicro(d.ServerNowMicros + 100), Decision: d})
	}
	for i := range 6 {
		seen(245+10*float64(i), 245.3+10*float64(i), true) // kept by the replica
	}
	for i := range 4 {
		seen(305+10*float64(i), 305.3+10*float64(i), true) // on the old primary, lost
	}
	left = 4 // the new primary has the 6 before the cut
	seen(420, 450, true)
	for i := range 3 {
		seen(455+10*float64(i), 455.3+10*float64(i), true)
	}
	seen(485, 485.3, false)
	a.setStateLosses([]event.StateLoss{{Fault: 0, CutUs: start.Add(300 * time.Millisecond).UnixMicro(), ResumeUs: start.Add(400 * time.Millisecond).UnixMicro()}}, nil)
	res, _ := a.result()
	if res.ModelMismatches != 0 || res.UnderAdmitted != 0 {
		t.Errorf("%d mismatches, %d under-admitted: the replica's history was cut on the caller's clock", res.ModelMismatches, res.UnderAdmitted)
	}
}
