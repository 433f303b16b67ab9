package algorithms_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// costFamilies are the built-in limiters whose models decide requests of
// any cost.
func costFamilies(p algorithms.Policy) []algorithms.Auditable {
	return []algorithms.Auditable{
		algorithms.NewFixedWindow(nil, p), algorithms.NewSlidingLog(nil, p), algorithms.NewTokenBucket(nil, p),
		algorithms.NewLeakyBucket(nil, p), algorithms.NewGCRA(nil, p), algorithms.NewSlidingCounter(nil, p),
		algorithms.NewSlidingBuckets(nil, p),
	}
}

// randomArrivals are n server times at today's epoch, bunched and spread
// so that every model admits some and denies some, each with a cost drawn
// from 1 to maxCost.
func randomArrivals(rng *rand.Rand, p algorithms.Policy, n int, maxCost int64) (at, cost []int64) {
	now := int64(1_764_000_000_123_456)
	for range n {
		switch rng.IntN(4) {
		case 0:
			now += rng.Int64N(p.WindowMicros()*3/2 + 1)
		case 1:
			now += rng.Int64N(p.WindowMicros()/int64(p.Limit) + 1)
		}
		at = append(at, now)
		cost = append(cost, 1+rng.Int64N(maxCost))
	}
	return at, cost
}

// TestAllowNOfOneIsAllow: for every model, a request of one unit decides
// as Allow does, with the same remaining and retry hint, so costs change
// nothing for the limiters that take none.
func TestAllowNOfOneIsAllow(t *testing.T) {
	for _, p := range []algorithms.Policy{
		{Limit: 3, Window: 20 * time.Millisecond},
		{Limit: 10, Window: 50 * time.Millisecond, Burst: 4},
		{Limit: 6, Window: 60 * time.Millisecond, Bucket: 15 * time.Millisecond},
	} {
		for _, l := range costFamilies(p) {
			at, _ := randomArrivals(rand.New(rand.NewPCG(uint64(p.Limit), 1)), p, 400, 1)
			plain, costed := l.Model().(algorithms.ReplyModel), l.Model().(algorithms.CostModel)
			for i, now := range at {
				a, b := plain.Allow(now), costed.AllowN(now, 1)
				rm := costed.(algorithms.ReplyModel)
				if a != b || plain.Remaining() != rm.Remaining() || plain.NextAdmitMicros() != rm.NextAdmitMicros() {
					t.Fatalf("%s %s: request %d at %d: Allow %v (remaining %g, next %d), AllowN(1) %v (remaining %g, next %d)",
						l.Name(), p, i, now, a, plain.Remaining(), plain.NextAdmitMicros(), b, rm.Remaining(), rm.NextAdmitMicros())
				}
			}
		}
	}
}

// TestModelsAllowNStepByStep: hand-computed traces of requests of several
// units, at today's epoch, one or more per family.
func TestModelsAllowNStepByStep(t *testing.T) {
	const t0 = int64(1_764_000_000_123_456)
	p := algorithms.Policy{Limit: 10, Window: 10 * time.Millisecond}
	type step struct {
		at, cost int64
		want     bool
	}
	for _, tc := range []struct {
		why   string
		l     algorithms.Auditable
		steps []step
	}{
		{"fixed window: units add up to the limit; a denial takes nothing, so a smaller request still fits",
			algorithms.NewFixedWindow(nil, p), []step{
				{t0, 6, true}, {t0 + 1, 5, false}, {t0 + 2, 4, true}, {t0 + 3, 1, false},
				{t0 + 10_999, 1, true}, // the next window: t0's millisecond + 10ms + 1ms
			}},
		{"fixed window: a first request that can never fit opens no window",
			algorithms.NewFixedWindow(nil, p), []step{
				{t0, 11, false}, {t0 + 5_000, 10, true}, {t0 + 10_999, 1, false}, {t0 + 15_999, 1, true},
			}},
		{"sliding log: a request's units leave the window together, W after it",
			algorithms.NewSlidingLog(nil, p), []step{
				{t0, 7, true}, {t0 + 5_000, 3, true}, {t0 + 9_999, 1, false},
				{t0 + 10_000, 7, true}, // t0's seven left
				{t0 + 10_001, 1, false},
			}},
		{"token bucket: starts full; a request of n tokens waits for n",
			algorithms.NewTokenBucket(nil, p), []step{
				{t0, 10, true}, {t0, 1, false},
				{t0 + 2_999, 3, false}, {t0 + 3_000, 3, true}, // one token per ms
				{t0 + 1_000_000, 11, false}, // more than the bucket holds
			}},
		{"leaky bucket: starts empty; n units pour in when they fit",
			algorithms.NewLeakyBucket(nil, p), []step{
				{t0, 4, true}, {t0, 6, true}, {t0, 1, false},
				{t0 + 1_999, 2, false}, {t0 + 2_000, 2, true},
			}},
		{"gcra: the token bucket's decisions for a cost",
			algorithms.NewGCRA(nil, p), []step{
				{t0, 10, true}, {t0, 1, false},
				{t0 + 2_999, 3, false}, {t0 + 3_000, 3, true},
				{t0 + 1_000_000, 11, false},
			}},
		{"sliding counter: admitted while the estimate with all but the last unit is below the limit",
			algorithms.NewSlidingCounter(nil, p), []step{
				{t0, 9, true}, {t0, 2, false}, {t0, 1, true}, {t0, 1, false},
			}},
		{"sliding buckets: units of one bucket leave together",
			algorithms.NewSlidingBuckets(nil, algorithms.Policy{Limit: 10, Window: 10 * time.Millisecond, Bucket: 5 * time.Millisecond}), []step{
				{t0, 8, true}, {t0 + 1, 3, false}, {t0 + 1, 2, true},
				{1_764_000_000_130_000, 10, true}, // t0's bucket [..120_000, ..125_000) left when ..130_000 began
			}},
	} {
		m := tc.l.Model().(algorithms.CostModel)
		for i, s := range tc.steps {
			if got := m.AllowN(s.at, s.cost); got != s.want {
				t.Errorf("%s: step %d (%d units at +%dus): allowed %v, want %v", tc.why, i, s.cost, s.at-t0, got, s.want)
			}
		}
	}
}

// TestBoundsHoldInUnits: on random arrivals of random costs, the units
// each model admits within any interval of length d never exceed its
// Bound(d): a bound states units, and holds for requests of any size.
func TestBoundsHoldInUnits(t *testing.T) {
	for _, p := range []algorithms.Policy{
		{Limit: 10, Window: 20 * time.Millisecond},
		{Limit: 12, Window: 30 * time.Millisecond, Burst: 20},
		{Limit: 8, Window: 40 * time.Millisecond, Bucket: 10 * time.Millisecond},
	} {
		for _, l := range costFamilies(p) {
			for seed := uint64(1); seed <= 3; seed++ {
				at, cost := randomArrivals(rand.New(rand.NewPCG(seed, uint64(p.Limit))), p, 600, 4)
				m := l.Model().(algorithms.CostModel)
				var admittedAt, admittedUnits []int64
				var denied int
				for i := range at {
					if m.AllowN(at[i], cost[i]) {
						admittedAt, admittedUnits = append(admittedAt, at[i]), append(admittedUnits, cost[i])
					} else {
						denied++
					}
				}
				if len(admittedAt) == 0 || denied == 0 {
					t.Fatalf("%s %s: admitted %d, denied %d: the trace does not exercise both", l.Name(), p, len(admittedAt), denied)
				}
				for _, d := range []time.Duration{p.Window / 2, p.Window, 2 * p.Window} {
					if most := mostUnitsWithin(admittedAt, admittedUnits, d.Microseconds()); most > l.Bound(d) {
						t.Errorf("%s %s seed %d: %d units admitted within %s, bound %d", l.Name(), p, seed, most, d, l.Bound(d))
					}
				}
			}
		}
	}
}

// mostUnitsWithin is the most units admitted in any half-open interval of
// d microseconds, for admissions at sorted times.
func mostUnitsWithin(at, units []int64, d int64) int64 {
	var most, sum int64
	j := 0
	for i := range at {
		sum += units[i]
		for at[i]-at[j] >= d {
			sum -= units[j]
			j++
		}
		most = max(most, sum)
	}
	return most
}

// ExampleCostModel decides requests of several units.
func ExampleCostModel() {
	m := algorithms.NewTokenBucket(nil, algorithms.Policy{Limit: 10, Window: time.Second}).Model().(algorithms.CostModel)
	const now = 1_764_000_000_000_000
	fmt.Println(m.AllowN(now, 8), m.AllowN(now, 3), m.AllowN(now, 2))
	// Output: true false true
}
