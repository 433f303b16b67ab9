package algorithms_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

func newLimiter(t *testing.T, rdb algorithms.Redis, name string, p algorithms.Policy) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(name, rdb, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

// comparableExcept lists the comparable limiters but the ones named.
func comparableExcept(names ...string) []string {
	var out []string
	for _, name := range algorithms.Comparable() {
		if !slices.Contains(names, name) {
			out = append(out, name)
		}
	}
	return out
}

// windowAnchored lists the comparable limiters whose windows open at an
// identity's first hit, or that have none: a fresh identity gets its limit
// whenever it starts. (The sliding counter and the sliding buckets count
// in windows aligned to the clock; clock_aligned_test.go covers them.)
func windowAnchored() []string {
	return comparableExcept(algorithms.SlidingCounterName, algorithms.SlidingBucketsName)
}

// scripted lists the comparable limiters that run a Lua script.
func scripted() []string {
	return comparableExcept(algorithms.FixedWindowNXName, algorithms.FixedWindowNXPipelinedName)
}

// serverTimed reports whether l's replies carry the server time their
// decision used.
func serverTimed(l algorithms.Limiter) bool {
	r, ok := l.(algorithms.ReplyDescriber)
	return !ok || r.ReplyFields().ServerTime
}

// TestLimitThenDenyThenRecover checks the contract every limiter keeps on a
// fresh identity: the first L requests pass, request L+1 is denied with a
// retry hint, the key has a TTL, and after the window requests pass again.
func TestLimitThenDenyThenRecover(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	const limit = 5
	p := algorithms.Policy{Limit: limit, Window: 300 * time.Millisecond}
	for _, name := range windowAnchored() {
		t.Run(name, func(t *testing.T) {
			l := newLimiter(t, rdb, name, p)
			key := "rlbench:test:" + name + ":fresh"
			before := time.Now().UnixMicro()
			for i := 1; i <= limit; i++ {
				d, err := l.Allow(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if !d.Allowed {
					t.Fatalf("request %d of %d denied", i, limit)
				}
				if d.RetryAfter != 0 {
					t.Errorf("request %d admitted with retry_after %s", i, d.RetryAfter)
				}
				rem, err := strconv.ParseFloat(d.Remaining, 64)
				if err != nil {
					t.Fatalf("remaining %q is not a number: %v", d.Remaining, err)
				}
				if want := float64(limit - i); rem < want || rem >= want+1 {
					t.Errorf("request %d: remaining %v, want about %v", i, rem, want)
				}
				if !serverTimed(l) {
					if d.ServerNowMicros != 0 {
						t.Errorf("a reply without server time says server_now_us %d", d.ServerNowMicros)
					}
				} else if d.ServerNowMicros < before-10_000_000 || d.ServerNowMicros > time.Now().UnixMicro()+10_000_000 {
					t.Errorf("server_now_us %d is not today's epoch in microseconds", d.ServerNowMicros)
				}
			}
			d, err := l.Allow(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				t.Fatalf("request %d admitted, limit is %d", limit+1, limit)
			}
			if d.RetryAfter <= 0 || d.RetryAfter > p.Window+time.Millisecond {
				t.Errorf("denied with retry_after %s, want within (0, %s]", d.RetryAfter, p.Window)
			}
			pttl, err := rdb.PTTL(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if pttl <= 0 || pttl > p.Window+2*time.Millisecond {
				t.Errorf("key TTL %s, want within (0, %s]", pttl, p.Window)
			}
			time.Sleep(d.RetryAfter + 5*time.Millisecond)
			d, err = l.Allow(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Allowed {
				t.Errorf("denied after waiting the retry_after the limiter gave")
			}
		})
	}
}

// TestConcurrentRequestsAdmitExactlyTheCapacity: 64 requests from 32
// goroutines on one fresh key admit exactly the limit (fixed windows,
// sliding log, sliding counter and buckets) or the capacity (buckets,
// GCRA). The window is an hour so no refill happens during the test; a
// clock-aligned hour that ends during the test is tried again on a fresh
// key.
func TestConcurrentRequestsAdmitExactlyTheCapacity(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	hour := algorithms.Policy{Limit: 20, Window: time.Hour}
	// burst differs from limit, so the test sees which one is used
	burst := algorithms.Policy{Limit: 20, Window: time.Hour, Burst: 25}
	for _, tc := range []struct {
		name string
		p    algorithms.Policy
		want int
	}{
		{algorithms.FixedWindowName, hour, 20},
		{algorithms.SlidingLogName, hour, 20},
		{algorithms.TokenBucketName, burst, 25},
		{algorithms.LeakyBucketName, burst, 25},
		{algorithms.FixedWindowNXName, hour, 20},
		// INCR counts atomically even when EXPIRE comes apart from it
		{algorithms.FixedWindowNXPipelinedName, hour, 20},
		{algorithms.SlidingBucketsName, hour, 20},
		{algorithms.GCRAName, burst, 25},
		{algorithms.SlidingCounterName, hour, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(t, rdb, tc.name, tc.p)
			for attempt := 0; ; attempt++ {
				key := fmt.Sprintf("rlbench:test:%s:concurrent:%d", tc.name, attempt)
				n, sameHour := admitConcurrently(t, ctx, l, key)
				if !sameHour && attempt < 3 {
					continue
				}
				if n != tc.want {
					t.Errorf("admitted %d of 64, want exactly %d", n, tc.want)
				}
				return
			}
		})
	}
}

// admitConcurrently sends 64 requests for key from 32 goroutines and counts
// the admitted ones; sameHour says every decision fell in one clock hour.
func admitConcurrently(t *testing.T, ctx context.Context, l algorithms.Limiter, key string) (admittedCount int, sameHour bool) {
	t.Helper()
	var admitted, errs, hours sync.Map
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2; i++ {
				d, err := l.Allow(ctx, key)
				if err != nil {
					errs.Store(fmt.Sprint(g, i), err)
					continue
				}
				if d.Allowed {
					admitted.Store(fmt.Sprint(g, i), true)
				}
				hours.Store(d.ServerNowMicros/time.Hour.Microseconds(), true)
			}
		}(g)
	}
	wg.Wait()
	errs.Range(func(k, v any) bool { t.Errorf("request %v: %v", k, v); return true })
	n, h := 0, 0
	admitted.Range(func(_, _ any) bool { n++; return true })
	hours.Range(func(_, _ any) bool { h++; return true })
	return n, h == 1
}

// TestNoScriptReloadsAndCounts: after SCRIPT FLUSH the next call reloads the
// script, succeeds, and the reload is counted.
func TestNoScriptReloadsAndCounts(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	for _, name := range scripted() {
		l := newLimiter(t, rdb, name, algorithms.Policy{Limit: 10, Window: time.Second})
		if err := rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Allow(ctx, "rlbench:test:"+name+":noscript"); err != nil {
			t.Fatalf("%s after SCRIPT FLUSH: %v", name, err)
		}
		if got := l.NoScriptReloads(); got != 1 {
			t.Errorf("%s: NoScriptReloads = %d, want 1", name, got)
		}
	}
}

// TestSlidingLogStampsAreExactAtTodaysEpoch guards the 14-digit tostring
// pitfall: an epoch in microseconds has 16 digits, and the log's scores and
// members must keep all of them.
func TestSlidingLogStampsAreExactAtTodaysEpoch(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	l := newLimiter(t, rdb, algorithms.SlidingLogName, algorithms.Policy{Limit: 100, Window: time.Minute})
	key := "rlbench:test:sliding_log:epoch"
	var stamps []int64
	for i := 0; i < 20; i++ {
		d, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, d.ServerNowMicros)
	}
	zs, err := rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(zs) != len(stamps) {
		t.Fatalf("log holds %d members after %d admissions", len(zs), len(stamps))
	}
	for i, z := range zs {
		if int64(z.Score) != stamps[i] {
			t.Errorf("entry %d: score %.0f, decision used %d", i, z.Score, stamps[i])
		}
		member := z.Member.(string)
		if len(member) < 16 || member[:16] != strconv.FormatInt(stamps[i], 10) {
			t.Errorf("entry %d: member %q does not carry the stamp %d", i, member, stamps[i])
		}
	}
}

// TestSlidingLogSameMicrosecondKeepsTwoMembers: requests decided at the same
// server microsecond must still be separate log entries. Real Redis cannot
// be made to repeat a microsecond on demand, so this runs the same script on
// the embedded server with its clock frozen.
func TestSlidingLogSameMicrosecondKeepsTwoMembers(t *testing.T) {
	m := miniredis.RunT(t)
	frozen := time.Date(2026, 11, 29, 12, 0, 0, 123456000, time.UTC)
	m.SetTime(frozen)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	l := newLimiter(t, rdb, algorithms.SlidingLogName, algorithms.Policy{Limit: 10, Window: time.Minute})
	key := "rlbench:test:sliding_log:same"
	var nows []int64
	for i := 0; i < 3; i++ {
		d, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed {
			t.Fatalf("request %d denied", i+1)
		}
		nows = append(nows, d.ServerNowMicros)
	}
	if nows[0] != nows[2] {
		t.Fatalf("the frozen clock moved: %v", nows)
	}
	members, err := rdb.ZRange(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	stamp := strconv.FormatInt(frozen.UnixMicro(), 10)
	want := []string{stamp, stamp + "-1", stamp + "-2"}
	if fmt.Sprint(members) != fmt.Sprint(want) {
		t.Errorf("three admissions in one microsecond left members %q, want %q", members, want)
	}
}
