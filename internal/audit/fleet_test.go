package audit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
)

// fleetRequest is one request of a test fleet: the true time it was sent
// at (the server's, in microseconds) and the instance that sent it.
type fleetRequest struct {
	atUs     int64
	instance int
}

// fleetDecider decides a test fleet's requests for the client-time fixed
// window, each request from its instance at the true time the test sets.
type fleetDecider func(t *testing.T, r fleetRequest, skew time.Duration) algorithms.Decision

// modelDecider decides as the client-time fixed window does, through its
// model fed each instance's skewed time (the script decides exactly so:
// TestClientTimeBuiltinsAgreeWithTheirModels), with the reply the script
// makes. The server runs each request 300us after it was sent: the audit
// judges the time it was sent at, the true time the request carried.
func modelDecider(lim *algorithms.FixedWindowClientTime) fleetDecider {
	m := lim.Model().(algorithms.ReplyModel)
	return func(_ *testing.T, r fleetRequest, skew time.Duration) algorithms.Decision {
		seen := r.atUs + skew.Microseconds()
		d := algorithms.Decision{Allowed: m.Allow(seen), ServerNowMicros: r.atUs + 300, ClientNowMicros: seen, ClientSkewMicros: skew.Microseconds()}
		d.Remaining = strconv.FormatFloat(m.Remaining(), 'f', -1, 64)
		if !d.Allowed {
			d.RetryAfter = time.Duration((m.NextAdmitMicros()-seen+999)/1000) * time.Millisecond
		}
		return d
	}
}

// redisDecider decides by the client-time fixed window's script on a real
// redis-server, called from each instance as a fleet calls it (OnClock):
// the true time is the test's, each instance's clock that plus its skew;
// the server's time in the reply is the server's own.
func redisDecider(lim algorithms.CallerTimed, key string) fleetDecider {
	var now time.Time
	views := map[time.Duration]algorithms.Limiter{}
	return func(t *testing.T, r fleetRequest, skew time.Duration) algorithms.Decision {
		t.Helper()
		if views[skew] == nil {
			views[skew] = lim.OnClock(algorithms.CallerClock{
				Now:  func() time.Time { return now },
				Skew: func(time.Time) time.Duration { return skew },
			})
		}
		now = time.UnixMicro(r.atUs)
		d, err := views[skew].Allow(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if d.ClientNowMicros != r.atUs+skew.Microseconds() || d.ServerNowMicros <= 0 {
			t.Fatalf("the request at %d from a clock %s off carried %d, the server's time %d", r.atUs, skew, d.ClientNowMicros, d.ServerNowMicros)
		}
		return d
	}
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
// past the bound. The decisions come from the limiter's model, and then
// from its script on a real redis-server under the test's clock, with the
// same figures.
func TestSkewExcessByHand(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: time.Second}
	rdb := redistest.Client(t)
	for _, source := range []string{"model", "redis"} {
		// A whole second of today's epoch, so that the server's time in a
		// reply is within seconds of the time the request carried.
		T := (time.Now().Unix() + 2) * 1_000_000
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
			t.Run(source+"/"+tc.why, func(t *testing.T) {
				var lim algorithms.Limiter
				var decide fleetDecider
				if source == "model" {
					l := algorithms.NewFixedWindowClientTime(nil, p)
					lim, decide = l, modelDecider(l)
				} else {
					l, err := algorithms.New(algorithms.FixedWindowClientTimeName, rdb, p)
					if err != nil {
						t.Fatal(err)
					}
					if err := l.Load(context.Background()); err != nil {
						t.Fatal(err)
					}
					lim, decide = l, redisDecider(l.(algorithms.CallerTimed), "rlbench:test:skew:"+tc.why)
				}
				a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Fleet: &plan.Fleet{Offsets: tc.skews}})
				for _, r := range reqs {
					record(a, 0, &event.Outcome{Instance: r.instance, Decision: decide(t, r, tc.skews[r.instance])})
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
