package algorithms_test

import (
	"math"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// TestBounds checks each algorithm's Bound(D) for interval lengths on both
// sides of one, two and three windows, where the formulas step.
func TestBounds(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Window: time.Second, Burst: 150}
	const us = time.Microsecond
	W := p.Window
	fixed := algorithms.NewFixedWindow(nil, p)
	log := algorithms.NewSlidingLog(nil, p)
	token := algorithms.NewTokenBucket(nil, p)
	leaky := algorithms.NewLeakyBucket(nil, p)
	nx := algorithms.NewFixedWindowNXPipelined(nil, p)
	gcra := algorithms.NewGCRA(nil, p)
	counter := algorithms.NewSlidingCounter(nil, p)
	// 1000 per 1ms leaves one microsecond per request.
	denseCounter := algorithms.NewSlidingCounter(nil, algorithms.Policy{Limit: 1000, Window: time.Millisecond})
	const b = 100 * time.Millisecond
	buckets := algorithms.NewSlidingBuckets(nil, algorithms.Policy{Limit: 100, Window: time.Second, Bucket: b})
	oneBucket := algorithms.NewSlidingBuckets(nil, p)
	for _, tc := range []struct {
		why  string
		l    algorithms.Auditable
		d    time.Duration
		want int64
	}{
		{"an empty interval admits nothing", fixed, 0, 0},
		{"a microsecond can still meet two fixed windows", fixed, us, 200},
		{"just under one window: two windows", fixed, W - us, 200},
		{"one window: the boundary-straddling 2x", fixed, W, 200},
		{"just over one window: a third window", fixed, W + us, 300},
		{"two windows: three", fixed, 2 * W, 300},
		{"just over two windows: four", fixed, 2*W + us, 400},
		{"just under three windows: four", fixed, 3*W - us, 400},
		{"three windows: four", fixed, 3 * W, 400},

		{"sliding log: a short interval admits the limit", log, us, 100},
		{"sliding log: exactly one window admits the limit", log, W, 100},
		{"sliding log: just over a window reaches into a second", log, W + us, 200},
		{"sliding log: two windows", log, 2 * W, 200},
		{"sliding log: just over two windows", log, 2*W + us, 300},
		{"sliding log: three windows", log, 3 * W, 300},

		{"token bucket: a microsecond is the capacity", token, us, 150},
		{"token bucket: half a window adds half the limit", token, W / 2, 200},
		{"token bucket: one window adds the limit", token, W, 250},
		{"token bucket: just over one window rounds down", token, W + us, 250},
		{"token bucket: two windows", token, 2 * W, 350},
		{"token bucket: just under three windows rounds down", token, 3*W - us, 449},
		{"token bucket: three windows", token, 3 * W, 450},

		{"leaky bucket mirrors the token bucket: one window", leaky, W, 250},
		{"leaky bucket: just under three windows", leaky, 3*W - us, 449},

		{"fixed window without Lua: the fixed window's 2x", nx, W, 200},
		{"fixed window without Lua: a third window", nx, W + us, 300},

		{"gcra: a microsecond is the burst", gcra, us, 150},
		{"gcra: burst + floor(d/T) over one window", gcra, W, 250},
		{"gcra: the floor of d/T", gcra, W + 9_999*us, 250},
		{"gcra: one more emission interval", gcra, W + 10*time.Millisecond, 251},

		{"sliding counter: one microsecond meets one window", counter, us, 100},
		{"sliding counter: 2us meet two windows, but the second admits nothing in its first", counter, 2 * us, 100},
		{"sliding counter: half a window: the limit, then half of it as the weight shrinks", counter, W / 2, 150},
		{"sliding counter: one window: twice the limit", counter, W, 200},
		{"sliding counter: past a window, three windows' limits", counter, W + us, 300},
		{"sliding counter: two windows", counter, 2 * W, 300},
		{"sliding counter: 1us per request leaves the weight two requests short", denseCounter, time.Millisecond, 1998},

		{"sliding buckets: a microsecond", buckets, us, 100},
		{"sliding buckets: up to n-1 buckets + 1us hold the limit", buckets, 9*b + us, 100},
		{"sliding buckets: n-1 buckets + 2us reach into a bucket n later", buckets, 9*b + 2*us, 200},
		{"sliding buckets: one window: twice the limit", buckets, W, 200},
		{"sliding buckets: 2n-1 buckets + 1us", buckets, 19*b + us, 200},
		{"sliding buckets: 2n-1 buckets + 2us: three", buckets, 19*b + 2*us, 300},
		{"sliding buckets of one bucket per window: the fixed window's 2x", oneBucket, W, 200},
		{"sliding buckets of one bucket per window: a third", oneBucket, W + 2*us, 300},
	} {
		if got := tc.l.Bound(tc.d); got != tc.want {
			t.Errorf("%s: %s.Bound(%s) = %d, want %d", tc.why, tc.l.Name(), tc.d, got, tc.want)
		}
	}
}

// TestBoundsSaturate: a century at a billion per millisecond is more than
// 64 bits; the bound saturates instead of wrapping negative.
func TestBoundsSaturate(t *testing.T) {
	p := algorithms.Policy{Limit: 1_000_000_000, Window: time.Millisecond}
	century := 100 * 365 * 24 * time.Hour
	for _, l := range []algorithms.Auditable{
		algorithms.NewFixedWindow(nil, p), algorithms.NewSlidingLog(nil, p),
		algorithms.NewTokenBucket(nil, p), algorithms.NewLeakyBucket(nil, p),
		algorithms.NewFixedWindowNX(nil, p), algorithms.NewSlidingBuckets(nil, p),
		algorithms.NewGCRA(nil, p), algorithms.NewSlidingCounter(nil, p),
	} {
		if got := l.Bound(century); got != math.MaxInt64 {
			t.Errorf("%s: Bound(a century) = %d, want MaxInt64", l.Name(), got)
		}
	}
}

// TestModelsStepByStep replays hand-computed traces at today's epoch
// (sixteen-digit microseconds), one per model, through the edges each
// algorithm has.
func TestModelsStepByStep(t *testing.T) {
	const t0 = int64(1_764_000_000_123_456)      // millisecond 1764000000123
	const expiry = int64(1_764_000_000_123) + 10 // t0's millisecond + window_ms
	p := algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond}
	bucket := algorithms.Policy{Limit: 1, Window: time.Millisecond, Burst: 2}
	// t0 lies in the clock-aligned 10ms window and 5ms bucket that start at
	// ...120_000us; w1 starts the next window, b1 and b2 the next buckets.
	const w1, b1, b2 = int64(1_764_000_000_130_000), int64(1_764_000_000_125_000), int64(1_764_000_000_130_000)
	type step struct {
		at   int64
		want bool
	}
	for _, tc := range []struct {
		why   string
		l     algorithms.Auditable
		steps []step
	}{
		{"fixed window: the key lives through its expiry millisecond, then a new window opens",
			algorithms.NewFixedWindow(nil, p), []step{
				{t0, true}, {t0 + 1, true}, {t0 + 2, false},
				{expiry*1000 + 999, false}, // last microsecond of the expiry millisecond
				{(expiry + 1) * 1000, true}, {(expiry + 1) * 1000, true}, {(expiry + 1) * 1000, false},
			}},
		{"fixed window: denials count too, and the window is anchored at the first hit, not the clock",
			algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 1, Window: 10 * time.Millisecond}), []step{
				{t0 + 5_000, true}, {t0 + 14_000, false},
				{t0 + 15_543, false}, // millisecond 138: the expiry millisecond of the hit at 128.456
				{t0 + 15_544, true},  // millisecond 139
			}},
		{"sliding log: a stamp leaves the window exactly W later",
			algorithms.NewSlidingLog(nil, p), []step{
				{t0, true}, {t0 + 5_000, true}, {t0 + 9_999, false},
				{t0 + 10_000, true}, // t0 is trimmed (score <= now - W)
				{t0 + 14_999, false}, {t0 + 15_000, true},
			}},
		{"sliding log: denied requests leave no stamp",
			algorithms.NewSlidingLog(nil, algorithms.Policy{Limit: 1, Window: 10 * time.Millisecond}), []step{
				{t0, true}, {t0 + 9_000, false}, {t0 + 10_000, true},
			}},
		{"token bucket: starts full, refills one unit per microsecond per limit",
			algorithms.NewTokenBucket(nil, bucket), []step{
				{t0, true}, {t0, true}, {t0, false},
				{t0 + 999, false}, // 999/1000 of a token
				{t0 + 1000, true},
				{t0 + 1_000_000, true}, {t0 + 1_000_000, true}, {t0 + 1_000_000, false}, // capped at the burst
			}},
		{"gcra: the token bucket's decisions",
			algorithms.NewGCRA(nil, bucket), []step{
				{t0, true}, {t0, true}, {t0, false},
				{t0 + 999, false}, {t0 + 1000, true},
				{t0 + 1_000_000, true}, {t0 + 1_000_000, true}, {t0 + 1_000_000, false},
			}},
		{"gcra: an emission interval of 333 1/3 us, kept exactly (333 or 334 would decide t0+333 or t0+667 otherwise): burst + floor(d/T) in a closed interval",
			algorithms.NewGCRA(nil, algorithms.Policy{Limit: 3, Window: time.Millisecond, Burst: 3}), []step{
				{t0, true}, {t0, true}, {t0, true}, {t0, false}, // the TAT is t0 + 1000 exactly
				{t0 + 333, false}, {t0 + 334, true},
				{t0 + 667, true}, {t0 + 1000, true}, {t0 + 1000, false}, // six in [t0, t0+1000]
			}},
		{"sliding counter: the previous window weighs what the rolling window still covers of it",
			algorithms.NewSlidingCounter(nil, p), []step{
				{t0, true}, {t0 + 1, true}, {t0 + 2, false}, // window [..120_000, ..130_000)
				{w1, false},         // prev 2 at full weight
				{w1 + 1, true},      // 2 x 9_999/10_000 < 2
				{w1 + 5_000, false}, // 2 x 5_000/10_000 + 1 is not below 2
				{w1 + 5_001, true},
				{w1 + 25_000, true}, {w1 + 25_000, true}, {w1 + 25_000, false}, // two windows on: nothing weighs
			}},
		{"sliding buckets: a bucket's admissions leave together, when the bucket n later begins",
			algorithms.NewSlidingBuckets(nil, algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond, Bucket: 5 * time.Millisecond}), []step{
				{t0, true}, {t0 + 1, true}, {t0 + 2, false}, // bucket [..120_000, ..125_000)
				{b1 + 4_999, false},                 // the next bucket still counts t0's
				{b2, true}, {b2, true}, {b2, false}, // t0's bucket left: four within 6.544ms
			}},
		{"leaky bucket: starts empty, drains one unit per microsecond per limit",
			algorithms.NewLeakyBucket(nil, bucket), []step{
				{t0, true}, {t0, true}, {t0, false},
				{t0 + 999, false},
				{t0 + 1000, true},
				{t0 + 1_000_000, true}, {t0 + 1_000_000, true}, {t0 + 1_000_000, false},
			}},
	} {
		m := tc.l.Model()
		for i, s := range tc.steps {
			if got := m.Allow(s.at); got != s.want {
				t.Errorf("%s: step %d at %d: allowed %v, want %v", tc.why, i, s.at, got, s.want)
			}
		}
	}
}

// TestFixedWindowEnd: the next window starts one millisecond after the
// expiry millisecond.
func TestFixedWindowEnd(t *testing.T) {
	fw := algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 1, Window: time.Second})
	if got, want := fw.WindowEnd(1_764_000_000_123_456), int64(1_764_000_001_124_000); got != want {
		t.Errorf("WindowEnd = %d, want %d", got, want)
	}
}
