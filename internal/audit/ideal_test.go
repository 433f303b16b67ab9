package audit

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/result"
)

// modelled records, for each identity, n arrivals at random instants
// (gaps of 0 to 3ms, on a fake server clock) decided by the limiter's own
// reference model: the decisions a limiter that keeps to its algorithm
// makes.
func modelled(t *testing.T, a *Auditor, lim algorithms.Limiter, identities, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	for id := range uint64(identities) {
		m := lim.(algorithms.Auditable).Model()
		at := int64(1_764_000_000_000_000)
		for range n {
			at += rng.Int64N(3_000)
			record(a, id, decided(algorithms.Decision{Allowed: m.Allow(at), ServerNowMicros: at}))
		}
	}
}

// TestIdealAgreesWithTheSlidingLog: the sliding log decides exactly as the
// ideal sliding window of its policy, so on any arrivals its decisions
// and the ideal's are the same, every one.
func TestIdealAgreesWithTheSlidingLog(t *testing.T) {
	p := algorithms.Policy{Limit: 5, Window: 10 * time.Millisecond}
	lim := algorithms.NewSlidingLog(nil, p)
	a := New(Config{Limiter: lim, Identities: 3, Sample: 10, Seed: 1})
	modelled(t, a, lim, 3, 400, 7)
	rep := a.Finish(nil, nil)
	got := rep.Accuracy
	if got == nil {
		t.Fatal("no accuracy")
	}
	if got.Ideal != result.IdealSlidingWindow || got.Identities != 3 || got.Decisions != 1200 || !got.ExactTimes || got.Sampled {
		t.Errorf("accuracy %+v: want 1200 decisions of 3 identities beside the sliding window, at exact times", *got)
	}
	if got.FalseAdmits != 0 || got.FalseDenies != 0 || got.WrongShare != 0 || got.WorstIdentity != nil {
		t.Errorf("sliding log beside its ideal: %d false admits, %d false denies (share %v), worst %+v; want none",
			got.FalseAdmits, got.FalseDenies, got.WrongShare, got.WorstIdentity)
	}
	// Arrivals every 1.5ms on average against 5 per 10ms: each identity
	// was limited, and the ideal limits it too.
	if got.AboveThresholdIdentities != 3 || got.UnlimitedAboveThreshold != 0 || got.LimitedBelowThreshold != 0 {
		t.Errorf("thresholds %+v: want all 3 above it and limited", *got)
	}
}

// TestIdealCountsTheFixedWindowsBoundaryExcess: a fixed window of 4 per
// 10ms opened by a prime, a burst of 6 late in that window and another 6
// just after it ends. The window admits 3 of the first burst and 4 of the
// second; the ideal sliding window still holds the first 3 at the second
// burst and admits 1 of it: 3 false admits per identity, no false deny.
func TestIdealCountsTheFixedWindowsBoundaryExcess(t *testing.T) {
	p := algorithms.Policy{Limit: 4, Window: 10 * time.Millisecond}
	lim := algorithms.NewFixedWindow(nil, p)
	a := New(Config{Limiter: lim, Identities: 2, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000) // on a millisecond
	for id := range uint64(2) {
		m := lim.Model()
		// Identity 1 starts a window later: its figures are identity 0's.
		start := t0 + int64(id)*50_000
		arrivals := []int64{start}
		for i := range int64(6) {
			arrivals = append(arrivals, start+9_000+i) // the window opened at start lasts to start+10_999
		}
		for i := range int64(6) {
			arrivals = append(arrivals, start+11_000+i)
		}
		for _, at := range arrivals {
			record(a, id, decided(algorithms.Decision{Allowed: m.Allow(at), ServerNowMicros: at}))
		}
	}
	got := a.Finish(nil, nil).Accuracy
	if got == nil {
		t.Fatal("no accuracy")
	}
	want := result.Accuracy{
		Ideal: result.IdealSlidingWindow, Identities: 2, ExactTimes: true, Decisions: 26,
		FalseAdmits: 6, FalseAdmitUnits: 6,
		AboveThresholdIdentities: 2,
		// 12 offered within 10ms: more than twice the limit, not near it.
		WorstIdentity: &result.WorstIdentity{Identity: 0, Decisions: 13, FalseAdmits: 3, FalseAdmitUnits: 3,
			AdmittedUnits: 8, IdealAdmittedUnits: 5, ExcessShare: 3.0 / 5},
	}
	want.SetShares()
	if *got.WorstIdentity != *want.WorstIdentity {
		t.Errorf("worst identity %+v, want %+v", *got.WorstIdentity, *want.WorstIdentity)
	}
	got.WorstIdentity, want.WorstIdentity = nil, nil
	if *got != want {
		t.Errorf("accuracy\n got %+v\nwant %+v", *got, want)
	}
}

// TestIdealFiguresCloudflares: hand-made decisions of 4 identities against
// a policy of 4 per 10ms, for every figure: one limited while below the
// threshold, one let past it, one far below it, and one whose decisions
// follow a call whose outcome is unknown.
func TestIdealFiguresCloudflares(t *testing.T) {
	p := algorithms.Policy{Limit: 4, Window: 10 * time.Millisecond}
	a := New(Config{Limiter: algorithms.NewSlidingLog(nil, p), Identities: 4, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000)
	dec := func(id uint64, at int64, allowed bool) {
		record(a, id, decided(algorithms.Decision{Allowed: allowed, ServerNowMicros: at}))
	}
	// Identity 0: 3 in 2ms, the third denied; the ideal admits all 3.
	dec(0, t0, true)
	dec(0, t0+1_000, true)
	dec(0, t0+2_000, false)
	// Identity 1: 6 in 5µs, all admitted; the ideal admits 4.
	for i := range int64(6) {
		dec(1, t0+i, true)
	}
	// Identity 2: one, admitted.
	dec(2, t0, true)
	// Identity 3: a call sent at t0 whose outcome is unknown, then 4
	// admitted within the ideal's memory after it (the ideal, fed the
	// unknown call, denies the 4th): excused; and one long after, judged.
	a.RecordUnseen(3, t0, t0+500, 1, 0)
	for i := range int64(4) {
		dec(3, t0+1_000*(i+1), true)
	}
	dec(3, t0+100_000, true)

	got := a.Finish(nil, nil).Accuracy
	if got == nil {
		t.Fatal("no accuracy")
	}
	want := result.Accuracy{
		Ideal: result.IdealSlidingWindow, Identities: 4, ExactTimes: true,
		Decisions: 3 + 6 + 1 + 1, FalseAdmits: 2, FalseDenies: 1, FalseAdmitUnits: 2, FalseDenyUnits: 1,
		// Near the threshold (2 to 8 offered within 10ms): identity 0 (3:
		// 2 admitted of the ideal's 3), 1 (6: 6 of 4) and 3 (5, the unknown
		// call among them: 1 of 1).
		NearThresholdIdentities: 3, NearThresholdRateDiff: (1.0/3 + 2.0/4 + 0) / 3,
		BelowThresholdIdentities: 3, LimitedBelowThreshold: 1,
		AboveThresholdIdentities: 1, UnlimitedAboveThreshold: 1,
		FaultDecisions: 4, FaultWrong: 1, UnknownOutcomes: 1,
	}
	want.SetShares()
	w := got.WorstIdentity
	wantWorst := result.WorstIdentity{Identity: 1, Decisions: 6, FalseAdmits: 2, FalseAdmitUnits: 2, AdmittedUnits: 6, IdealAdmittedUnits: 4, ExcessShare: 0.5}
	if w == nil || *w != wantWorst {
		t.Errorf("worst identity %+v, want %+v", w, wantWorst)
	}
	if math.Abs(got.NearThresholdRateDiff-want.NearThresholdRateDiff) > 1e-12 {
		t.Errorf("near-threshold rate difference %v, want %v", got.NearThresholdRateDiff, want.NearThresholdRateDiff)
	}
	got.WorstIdentity, got.NearThresholdRateDiff, want.NearThresholdRateDiff = nil, 0, 0
	if *got != want {
		t.Errorf("accuracy\n got %+v\nwant %+v", *got, want)
	}
}

// TestIdealOfABurst: a policy with a burst is read as the token bucket of
// that capacity, and a profile may choose the sliding window instead. A
// token bucket's decisions are the bucket ideal's exactly; beside the
// sliding window, the burst it admits at once is past the policy.
func TestIdealOfABurst(t *testing.T) {
	p := algorithms.Policy{Limit: 4, Window: 10 * time.Millisecond, Burst: 8}
	lim := algorithms.NewTokenBucket(nil, p)
	for _, tc := range []struct {
		ideal      algorithms.Ideal
		want       string
		wrongAtAll bool
	}{
		{"", result.IdealTokenBucket, false},
		{algorithms.IdealSlidingWindow, result.IdealSlidingWindow, true},
	} {
		a := New(Config{Limiter: lim, Identities: 2, Sample: 10, Seed: 1, Ideal: tc.ideal})
		modelled(t, a, lim, 2, 300, 3)
		got := a.Finish(nil, nil).Accuracy
		if got == nil || got.Ideal != tc.want || got.Decisions != 600 {
			t.Fatalf("ideal %q: accuracy %+v, want 600 decisions beside %s", tc.ideal, got, tc.want)
		}
		if !tc.wrongAtAll && got.Wrong() != 0 {
			t.Errorf("ideal %q: %d false admits, %d false denies; want none", tc.ideal, got.FalseAdmits, got.FalseDenies)
		}
		if tc.wrongAtAll && got.FalseAdmits == 0 {
			t.Errorf("beside the sliding window the bucket's burst of 8 is never past 4 per 10ms")
		}
	}
}
