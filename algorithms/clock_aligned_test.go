package algorithms_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// serverNow is Redis TIME in microseconds.
func serverNow(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now.UnixMicro()
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
