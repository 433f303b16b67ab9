package audit

import (
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// fleetRequest is one request of a test fleet: the true time it was sent
// at (the server's, in microseconds) and the instance that sent it.
type fleetRequest struct {
	atUs     int64
	instance int
}

// fleetOutcomes decides requests as the client-time fixed window does,
// through its model fed each instance's skewed time (the script decides
// exactly so: TestClientTimeBuiltinsAgreeWithTheirModels), in order, and
// returns the outcomes the limiter's replies make, each with the server's
// time, the caller's skewed time and the skew.
func fleetOutcomes(lim *algorithms.FixedWindowClientTime, reqs []fleetRequest, skews []time.Duration) []*event.Outcome {
	m := lim.Model().(algorithms.ReplyModel)
	var out []*event.Outcome
	for _, r := range reqs {
		skew := skews[r.instance].Microseconds()
		seen := r.atUs + skew
		// The server runs it 300us after it was sent: the audit judges
		// the time it was sent at, the true time the request carried.
		d := algorithms.Decision{Allowed: m.Allow(seen), ServerNowMicros: r.atUs + 300, ClientNowMicros: seen, ClientSkewMicros: skew}
		d.Remaining = strconv.FormatFloat(m.Remaining(), 'f', -1, 64)
		if !d.Allowed {
			d.RetryAfter = time.Duration((m.NextAdmitMicros()-seen+999)/1000) * time.Millisecond
		}
		out = append(out, &event.Outcome{Instance: r.instance, Decision: d})
	}
	return out
}

// TestSkewExcessByHand: the client-time fixed window (2 per 1s, so at most
// 4 in any second) on two instances whose clocks are 100ms ahead and
// 100ms behind, judged on the true clock. Eight requests a millisecond
// apart, 50ms before a whole second T, alternate between the instances:
// the one ahead is in the next window, the one behind in this one, and
// each switch starts the window anew, so all eight are admitted; at
// T+500ms the instance behind (now in the next window too, which it has
// not kept) is admitted twice more and denied once. The busiest second,
// [T-50ms, T+950ms), holds 10: 6 past the bound of 4, instance 0 took
// part with 4 admissions and instance 1 with 6. The model, fed the times
// the limiter saw, agrees with every decision: the excess is the skew's.
// The same requests on one clock admit 2 before T and 2 after: 4, none
// past the bound.
func TestSkewExcessByHand(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: time.Second}
	const T = int64(1_764_000_001_000_000)
	var reqs []fleetRequest
	for i := range 8 {
		reqs = append(reqs, fleetRequest{T - 50_000 + int64(i)*1000, i % 2})
	}
	for i := range 3 {
		reqs = append(reqs, fleetRequest{T + 500_000 + int64(i)*1000, 1})
	}
	for _, tc := range []struct {
		why                             string
		skews                           []time.Duration
		allowed, maxInWindow, overshoot int64
		inExcess                        []int64
	}{
		{"clocks 100ms ahead and behind", []time.Duration{100 * time.Millisecond, -100 * time.Millisecond}, 10, 10, 6, []int64{4, 6}},
		{"one clock", []time.Duration{0, 0}, 4, 4, 0, []int64{0, 0}},
		// 600ms ahead and behind: the first eight alike, then at T+500ms
		// the instance behind is still in the first window, whose count
		// it started anew at T-43ms: one more admitted, two denied. By
		// the times the limiter saw, 1.2s apart, no second would hold
		// more than 5: the skew is taken off.
		{"clocks 600ms ahead and behind", []time.Duration{600 * time.Millisecond, -600 * time.Millisecond}, 9, 9, 5, []int64{4, 5}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			lim := algorithms.NewFixedWindowClientTime(nil, p)
			a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Fleet: &plan.Fleet{Offsets: tc.skews}})
			for _, o := range fleetOutcomes(lim, reqs, tc.skews) {
				record(a, 0, o)
			}
			rep := a.Finish(nil, nil)
			got := rep.Audit
			if got.Allowed != tc.allowed || got.MaxWindowAdmitted != tc.maxInWindow || got.BoundWindow != 4 || got.Overshoot != tc.overshoot {
				t.Errorf("allowed %d, busiest second %d (bound %d), overshoot %d; want %d, %d (4), %d",
					got.Allowed, got.MaxWindowAdmitted, got.BoundWindow, got.Overshoot, tc.allowed, tc.maxInWindow, tc.overshoot)
			}
			if got.ModelMismatches != 0 || got.ExpectedAllowed != got.Allowed || got.UnderAdmitted != 0 || !got.HasModel() {
				t.Errorf("the model fed the times the limiter saw: %d mismatches, %d expected of %d admitted, %d under-admitted (basis %q)",
					got.ModelMismatches, got.ExpectedAllowed, got.Allowed, got.UnderAdmitted, got.Basis)
			}
			if len(rep.InExcess) != 2 || rep.InExcess[0] != tc.inExcess[0] || rep.InExcess[1] != tc.inExcess[1] {
				t.Errorf("admissions in the windows past the bound, by instance: %v, want %v", rep.InExcess, tc.inExcess)
			}
		})
	}
}

// TestCallerTimeJudgedAtTheTrueTime: a declared limiter that takes its
// time from its arguments and whose reply carries no server time is judged
// at the true time its requests carried, the instance's skew taken off:
// three requests 1ms apart from instances 600ms ahead and behind carry
// times 1.2s apart, yet lie within 2ms, past a promise of 2 per second by
// one.
func TestCallerTimeJudgedAtTheTrueTime(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: time.Second}
	lim := declareNow(t, algorithms.Promise{Admitted: 2, Per: time.Second}, p)
	a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Fleet: &plan.Fleet{Offsets: []time.Duration{600 * time.Millisecond, -600 * time.Millisecond}}})
	const t0 = int64(1_764_000_000_000_000)
	skews := []int64{600_000, -600_000}
	for i := range 3 {
		at := t0 + int64(i)*1000
		inst := i % 2
		sent := time.UnixMicro(at)
		record(a, 0, &event.Outcome{Instance: inst, Sent: sent, Done: sent.Add(100 * time.Microsecond),
			Decision: algorithms.Decision{Allowed: true, ClientNowMicros: at + skews[inst], ClientSkewMicros: skews[inst]}})
	}
	got := a.Finish(nil, nil).Audit
	if got.MaxWindowAdmitted != 3 || got.Overshoot != 1 {
		t.Errorf("busiest second %d, overshoot %d; want 3 and 1 (the true times lie within 2ms)", got.MaxWindowAdmitted, got.Overshoot)
	}
}

// declareNow binds a declared limiter whose one argument is ${now_us} and
// whose reply is the answer alone, promising promise.
func declareNow(t *testing.T, promise algorithms.Promise, p algorithms.Policy) algorithms.Limiter {
	t.Helper()
	d := &algorithms.Declaration{Name: "mine", Script: "return 1", Semantics: algorithms.SemanticsBound, Promise: promise,
		Reply: algorithms.ReplyLayout{Allowed: 1},
		Keys:  []algorithms.Template{algorithms.MustParseTemplate("${identity}", algorithms.KeyVariables)},
		Args:  []algorithms.Template{algorithms.MustParseTemplate("${now_us}", algorithms.ArgVariables)}}
	l, err := d.Bind(nil, p, "s")
	if err != nil {
		t.Fatal(err)
	}
	return l
}
