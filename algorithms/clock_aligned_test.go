package algorithms_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// heldScript runs a built-in limiter's script on real Redis, held inside
// the script until the server's TIME reaches a target microsecond, passed
// after the script's own arguments: the decision is made at or after the
// target by construction. (A stalled machine can only make it later; the
// tests check where each decision landed and try again on a fresh key.)
type heldScript struct {
	rdb  *redis.Client
	src  string
	args []any
}

// holdUntil wraps the script of the limiter name for policy p. args are the
// script's own ARGV.
func holdUntil(t *testing.T, rdb *redis.Client, name string, p algorithms.Policy, args ...any) heldScript {
	t.Helper()
	l, err := algorithms.New(name, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	src := l.(interface{ Script() *algorithms.Script }).Script().Source()
	wait := fmt.Sprintf(`local target_us = tonumber(ARGV[%d])
while true do
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000000 + tonumber(t[2]) >= target_us then break end
end
`, len(args)+1)
	return heldScript{rdb: rdb, src: wait + src, args: args}
}

// at decides one request for key, no earlier than server microsecond us.
func (h heldScript) at(t *testing.T, key string, us int64) algorithms.Decision {
	t.Helper()
	v, err := h.rdb.Eval(context.Background(), h.src, []string{key}, append(append([]any{}, h.args...), us)...).Result()
	if err != nil {
		t.Fatal(err)
	}
	d, err := algorithms.ParseReply(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// serverNow is Redis TIME in microseconds.
func serverNow(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now.UnixMicro()
}

// adversary is one attempt at traffic that reaches a bound: it returns the
// admitted stamps, in order, and false when a stall put a decision where
// the attack did not aim or out of one window (the attempt is then
// repeated on a fresh key).
type adversary func(key string) (admitted []int64, placed bool)

// reachBound runs attack until its decisions land where aimed, all within
// one window (five attempts), and checks it got exactly the bound admitted
// there: a bound looser than what traffic reaches fails, as does one
// tighter than it.
func reachBound(t *testing.T, l algorithms.Auditable, attack adversary) {
	t.Helper()
	window := l.Policy().WindowMicros()
	bound := l.Bound(l.Policy().Window)
	for attempt := 0; attempt < 5; attempt++ {
		admitted, placed := attack(fmt.Sprintf("rlbench:test:%s:adversary:%d", l.Name(), attempt))
		if !placed {
			continue
		}
		if got := int64(len(admitted)); got != bound || admitted[len(admitted)-1]-admitted[0] >= window {
			t.Errorf("%s: the adversary got %d admitted within %dus (stamps %v); the derived bound is %d in %dus", l.Name(), got,
				admitted[len(admitted)-1]-admitted[0], admitted, bound, window)
		}
		return
	}
	t.Fatalf("%s: five attempts were stalled off their aim (busy machine?)", l.Name())
}

// TestSlidingCounterReachesItsBound drives the sliding counter's worst case
// on real Redis: after a quiet window, the limit in the last milliseconds
// of window k-1; then in window k the j-th request at the first
// microsecond the shrinking weight admits it, e > (j-1) x W / limit. All 2
// x limit are admitted within one window's length: exactly Bound(W), so a
// bound set looser than what traffic reaches fails here.
func TestSlidingCounterReachesItsBound(t *testing.T) {
	rdb := redistest.Client(t)
	p := algorithms.Policy{Limit: 5, Window: 200 * time.Millisecond}
	W := p.WindowMicros()
	held := holdUntil(t, rdb, algorithms.SlidingCounterName, p, p.Limit, W)
	l := algorithms.NewSlidingCounter(nil, p)
	reachBound(t, l, func(key string) ([]int64, bool) {
		// Window k-1 is the next whole window: the key is fresh, so the
		// window before it is quiet.
		k := serverNow(t, rdb)/W + 2
		var admitted []int64
		for i := int64(0); i < p.Limit; i++ {
			d := held.at(t, key, k*W-3000)
			if !d.Allowed || d.ServerNowMicros >= k*W {
				return nil, false
			}
			admitted = append(admitted, d.ServerNowMicros)
		}
		for j := int64(1); j <= p.Limit; j++ {
			d := held.at(t, key, k*W+(j-1)*W/p.Limit+1)
			if !d.Allowed {
				t.Errorf("request %d of window k at +%dus denied", j, d.ServerNowMicros-k*W)
			}
			admitted = append(admitted, d.ServerNowMicros)
		}
		// The attack fits in one window when the last admission came before
		// the first one's window closed.
		return admitted, admitted[len(admitted)-1]-admitted[0] < W
	})
	if got := l.Bound(p.Window); got != 2*p.Limit {
		t.Errorf("Bound(W) = %d, want 2 x limit", got)
	}
}

// TestSlidingBucketsReachesItsBound drives the sliding buckets' worst case
// on real Redis: the limit at the end of one bucket, then the limit at the
// start of the bucket n later, which no longer counts the first: 2 x limit
// within (n-1) buckets and a few milliseconds, exactly Bound(W).
func TestSlidingBucketsReachesItsBound(t *testing.T) {
	rdb := redistest.Client(t)
	p := algorithms.Policy{Limit: 5, Window: 200 * time.Millisecond, Bucket: 50 * time.Millisecond}
	b, n := p.BucketWidth().Microseconds(), p.BucketsPerWindow()
	held := holdUntil(t, rdb, algorithms.SlidingBucketsName, p, p.Limit, b, n)
	l := algorithms.NewSlidingBuckets(nil, p)
	reachBound(t, l, func(key string) ([]int64, bool) {
		k := serverNow(t, rdb)/b + 1
		var admitted []int64
		for i := int64(0); i < p.Limit; i++ {
			d := held.at(t, key, (k+1)*b-3000)
			if !d.Allowed || d.ServerNowMicros >= (k+1)*b {
				return nil, false
			}
			admitted = append(admitted, d.ServerNowMicros)
		}
		for i := int64(0); i < p.Limit; i++ {
			d := held.at(t, key, (k+n)*b)
			if d.ServerNowMicros >= (k+n+1)*b {
				return nil, false
			}
			if !d.Allowed {
				t.Errorf("request %d at the start of bucket k+n denied", i+1)
			}
			admitted = append(admitted, d.ServerNowMicros)
		}
		return admitted, admitted[len(admitted)-1]-admitted[0] < p.WindowMicros()
	})
}

// TestClockAlignedLimitThenDenyThenRecover is the contract test of the
// limiters that count in clock-aligned windows (or buckets): starting just
// after a window begins, the first L requests pass with the remaining
// counting down, request L+1 is denied with a retry hint no longer than
// the wait until the next window, the key has a TTL, and after the hint a
// request passes. Requests that straddle a window boundary are tried again
// on a fresh key.
func TestClockAlignedLimitThenDenyThenRecover(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	const limit = 5
	p := algorithms.Policy{Limit: limit, Window: 300 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		maxTTL time.Duration
	}{
		// The counts matter until the next window ends.
		{algorithms.SlidingCounterName, 2 * p.Window},
		// The default bucket of a 300ms window is the window itself.
		{algorithms.SlidingBucketsName, p.Window},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(t, rdb, tc.name, p)
			W := p.WindowMicros()
			for attempt := 0; ; attempt++ {
				if attempt == 5 {
					t.Fatal("five attempts straddled a window boundary (busy machine?)")
				}
				key := fmt.Sprintf("rlbench:test:%s:aligned:%d", tc.name, attempt)
				start := (serverNow(t, rdb)/W + 1) * W
				time.Sleep(time.Duration(start-serverNow(t, rdb)+2000) * time.Microsecond)
				var ds []algorithms.Decision
				for i := 0; i <= limit; i++ {
					d, err := l.Allow(ctx, key)
					if err != nil {
						t.Fatal(err)
					}
					ds = append(ds, d)
				}
				if ds[0].ServerNowMicros/W != ds[limit].ServerNowMicros/W {
					continue
				}
				for i, d := range ds[:limit] {
					if !d.Allowed || d.Remaining != strconv.Itoa(limit-1-i) || d.RetryAfter != 0 {
						t.Errorf("request %d: %+v, want admitted with %d left", i+1, d, limit-1-i)
					}
				}
				d := ds[limit]
				untilNext := time.Duration((ds[limit].ServerNowMicros/W+1)*W-d.ServerNowMicros) * time.Microsecond
				if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > untilNext+time.Millisecond {
					t.Errorf("request %d: %+v, want denied with a retry within %s", limit+1, d, untilNext)
				}
				if pttl, err := rdb.PTTL(ctx, key).Result(); err != nil || pttl <= 0 || pttl > tc.maxTTL+time.Millisecond {
					t.Errorf("key TTL %s, %v: want within (0, %s]", pttl, err, tc.maxTTL)
				}
				time.Sleep(d.RetryAfter)
				if d, err := l.Allow(ctx, key); err != nil || !d.Allowed {
					t.Errorf("after the retry hint: %+v, %v", d, err)
				}
				return
			}
		})
	}
}

// TestSlidingBucketsKeepsOneFieldPerActiveBucket: memory is bounded by
// window/bucket, not by traffic. Many requests in one bucket make one
// field; the fields of buckets that left the window are deleted by the
// next admission.
func TestSlidingBucketsKeepsOneFieldPerActiveBucket(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 1000, Window: time.Second, Bucket: 100 * time.Millisecond}
	b := p.BucketWidth().Microseconds()
	held := holdUntil(t, rdb, algorithms.SlidingBucketsName, p, p.Limit, b, p.BucketsPerWindow())
	key := "rlbench:test:sliding_buckets:fields"
	k := serverNow(t, rdb)/b + 1
	buckets := map[string]bool{}
	for i := int64(0); i < 30; i++ {
		d := held.at(t, key, k*b+i)
		buckets[strconv.FormatInt(d.ServerNowMicros/b, 10)] = true
	}
	fields, err := rdb.HKeys(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != len(buckets) || !buckets[fields[0]] {
		t.Errorf("30 requests in buckets %v left fields %v, want one per bucket", buckets, fields)
	}
	// Eleven buckets later (the requests took less than one) the first
	// ones have left the window.
	held.at(t, key, (k+11)*b)
	fields, err = rdb.HKeys(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(fields, ",") != strconv.FormatInt(k+11, 10) {
		t.Errorf("after the first bucket left the window the fields are %v, want only bucket %d", fields, k+11)
	}
}
