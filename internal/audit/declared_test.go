package audit

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// decided is the outcome of a call that came back with d.
func decided(d algorithms.Decision) *event.Outcome { return &event.Outcome{Decision: d} }

// record hands a the outcome o as identity's.
func record(a *Auditor, identity uint64, o *event.Outcome) {
	o.Identity = identity
	a.Record(o)
}

// clientTimed is the outcome of a call sent at sentUs (client clock,
// microseconds) and answered rttUs later, whose reply carried no server
// time.
func clientTimed(allowed bool, sentUs, rttUs int64) *event.Outcome {
	sent := time.UnixMicro(sentUs)
	return &event.Outcome{Decision: algorithms.Decision{Allowed: allowed}, Sent: sent, Done: sent.Add(time.Duration(rttUs) * time.Microsecond)}
}

// declare binds a declared limiter with no Redis behind it, for audits.
func declare(t *testing.T, semantics algorithms.Semantics, reply algorithms.ReplyLayout, promise algorithms.Promise, p algorithms.Policy) algorithms.Limiter {
	t.Helper()
	key, err := algorithms.ParseTemplate("${identity}", algorithms.KeyVariables)
	if err != nil {
		t.Fatal(err)
	}
	d := &algorithms.Declaration{Name: "mine", Script: "return 1", Keys: []algorithms.Template{key}, Reply: reply, Semantics: semantics, Promise: promise}
	l, err := d.Bind(nil, p, "s")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSpanMaxInWindow(t *testing.T) {
	for _, tc := range []struct {
		why               string
		spans             []span
		window            int64
		certain, possible int64
	}{
		{"nothing", nil, 10, 0, 0},
		{"exact times are maxInWindow", []span{{0, 0, 1}, {9, 9, 1}, {10, 10, 1}}, 10, 2, 2},
		{"wholly inside one window", []span{{0, 3, 1}, {5, 9, 1}}, 10, 2, 2},
		{"together they need more than a window: only possibly", []span{{0, 3, 1}, {5, 10, 1}}, 10, 1, 2},
		{"a span as long as the window is never certainly in one", []span{{0, 10, 1}}, 10, 0, 1},
		{"far apart either way", []span{{0, 2, 1}, {30, 32, 1}}, 10, 1, 1},
	} {
		c, p, _, _ := spanMaxInWindow(tc.spans, tc.window, nil)
		if c != tc.certain || p != tc.possible {
			t.Errorf("%s: certain %d, possible %d; want %d, %d", tc.why, c, p, tc.certain, tc.possible)
		}
	}
}

// TestSpanMaxInWindowByBruteForce checks the sweep against the definition
// on random spans: certain is the most spans inside one window [a, a+w),
// possible the most touching one, over every window start that matters.
func TestSpanMaxInWindowByBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, w := 1+rng.IntN(12), int64(1+rng.IntN(20))
		spans := make([]span, n)
		for i := range spans {
			lo := rng.Int64N(60)
			spans[i] = span{lo, lo + rng.Int64N(15), 1}
		}
		var certain, possible int64
		for a := int64(-40); a <= 80; a++ {
			var in, touch int64
			for _, s := range spans {
				if s.lo >= a && s.hi < a+w {
					in++
				}
				if s.hi >= a && s.lo < a+w {
					touch++
				}
			}
			certain, possible = max(certain, in), max(possible, touch)
		}
		c, p, at, _ := spanMaxInWindow(spans, w, nil)
		if c != certain || p != possible {
			t.Fatalf("spans %v, window %d: sweep says %d certain, %d possible; brute force %d, %d", spans, w, c, p, certain, possible)
		}
		// The window it names holds the certain count.
		var in int64
		for _, s := range spans {
			if s.lo >= at && s.hi < at+w {
				in++
			}
		}
		if in != c {
			t.Fatalf("spans %v, window %d: the window from %d holds %d, the sweep says %d", spans, w, at, in, c)
		}
	}
}

// TestAuditorOnClientTimes: a fixed window declared without server time is
// judged by its bound (2 x limit within a window) on client times, and an
// excess counts only when it holds wherever in its round trip each
// decision was made.
func TestAuditorOnClientTimes(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond}
	lim := declare(t, algorithms.SemanticsFixedWindow, algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3}, algorithms.Promise{}, p)
	if _, exact := lim.(algorithms.Auditable); exact {
		t.Fatal("a limiter without server time has a model")
	}
	a := New(Config{Limiter: lim, Identities: 2, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000)
	// identity 0: five admissions sent within 8ms, each answered within
	// 200us: certainly five in one 10ms window, where the bound is 4.
	for i := int64(0); i < 5; i++ {
		record(a, 0, clientTimed(true, t0+2000*i, 200))
	}
	record(a, 0, clientTimed(false, t0+8500, 300))
	// identity 1: the same five, but the first and last answered so slowly
	// that they may have been decided 12ms apart: possibly five in one
	// window, certainly only four.
	for i := int64(0); i < 5; i++ {
		rtt := int64(200)
		if i == 0 || i == 4 {
			rtt = 2000
		}
		record(a, 1, clientTimed(true, t0+2000*i-map[bool]int64{true: 1800, false: 0}[i == 0], rtt))
	}
	got, _ := a.result()
	if got.Basis != result.AuditByBoundClientTime || got.Timing == nil {
		t.Fatalf("basis %q, timing %+v", got.Basis, got.Timing)
	}
	if got.Overshoot != 1 || got.Violations != 1 || got.MaxWindowAdmitted != 5 || got.BoundWindow != 4 {
		t.Errorf("overshoot %d over %d identities, max %d against %d; want only identity 0's 5 against 4",
			got.Overshoot, got.Violations, got.MaxWindowAdmitted, got.BoundWindow)
	}
	if got.Timing.MaxWindowAdmittedPossible != 5 || got.Timing.UncertaintyMaxUs != 1000 || got.Timing.UncertaintyP50Us != 100 {
		t.Errorf("timing %+v, want possibly 5, uncertainty up to 1ms, median 100us", *got.Timing)
	}
	if got.ModelMismatches != 0 || got.ExpectedAllowed != 0 || got.Reply != nil || got.HasModel() {
		t.Errorf("a bound-only audit reports model figures: %+v", *got)
	}
	if got.Decisions != 11 || got.Allowed != 10 || got.PolicyExcess != 3 {
		t.Errorf("decisions %d, allowed %d, policy excess %d", got.Decisions, got.Allowed, got.PolicyExcess)
	}
}

// TestAuditorChecksReplies: what a reply tells its caller is checked
// against the model. A remaining that promises a request the bucket does
// not have, and a retry hint after which the request is still denied, are
// each a mismatch though the admission itself was right.
func TestAuditorChecksReplies(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Window: 10 * time.Millisecond, Burst: 2}
	a := New(Config{Limiter: algorithms.NewTokenBucket(nil, p), Identities: 1, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000)
	for _, d := range []algorithms.Decision{
		{Allowed: true, Remaining: "1.000000", ServerNowMicros: t0},                         // right
		{Allowed: true, Remaining: "1", ServerNowMicros: t0 + 1},                            // wrong: 0.0001 tokens left
		{Remaining: "0.000200", RetryAfter: 10 * time.Millisecond, ServerNowMicros: t0 + 2}, // right: a token in 9998us
		{Remaining: "0", RetryAfter: 9 * time.Millisecond, ServerNowMicros: t0 + 3},         // too early, and remaining 0 is right
	} {
		record(a, 0, decided(d))
	}
	got, _ := a.result()
	want := result.ReplyCheck{RemainingChecked: 4, RemainingWrong: 1, RetryAfterChecked: 2, RetryAfterTooEarly: 1}
	if got.Reply == nil || *got.Reply != want || got.ModelMismatches != 2 || got.ExpectedAllowed != 2 {
		t.Errorf("reply %+v, mismatches %d; want %+v and 2", got.Reply, got.ModelMismatches, want)
	}
}

// TestAuditorDeclaredPromise: semantics bound checks the promise over its
// own interval; how far the policy was exceeded is still measured over
// the policy's window.
func TestAuditorDeclaredPromise(t *testing.T) {
	p := algorithms.Policy{Limit: 5, Window: time.Second}
	lim := declare(t, algorithms.SemanticsBound, algorithms.ReplyLayout{Allowed: 1, ServerTimeUs: 2},
		algorithms.Promise{Admitted: 3, Per: 100 * time.Millisecond}, p)
	a := New(Config{Limiter: lim, Identities: 1, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000)
	// Four within 100ms, then three more later in the second.
	for _, at := range []int64{0, 10_000, 20_000, 99_000, 500_000, 600_000, 700_000} {
		record(a, 0, decided(algorithms.Decision{Allowed: true, ServerNowMicros: t0 + at}))
	}
	got, _ := a.result()
	if got.Basis != result.AuditByBound || got.WindowMs != 100 || got.BoundWindow != 3 || got.MaxWindowAdmitted != 4 || got.Overshoot != 1 || got.PolicyExcess != 2 {
		t.Errorf("audit %+v, want the promise of 3 per 100ms broken by one, 7 in the policy's second", *got)
	}
}
