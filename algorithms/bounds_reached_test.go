package algorithms

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
)

// A bound is a promise: the most an identity can get admitted within an
// interval. For the approximate windows the derived bound is also what
// adversarial traffic gets, exactly; these tests drive that traffic
// through the real scripts on a real redis-server, at the microseconds
// the attack needs (TIME replaced by a controlled clock, as in TestEdges),
// and check the admissions in one interval equal Bound: a bound looser
// than what traffic reaches fails here, as does one tighter.

// attack is traffic aimed at a bound: the microseconds of each request,
// from the first, and the interval length d all of them fall within.
type attack struct {
	why string
	d   time.Duration
	at  []int64
}

// reachBound sends each attack, on a fresh key, through the clocked script
// of the limiter name, and checks every request was admitted, that they
// all fall within an interval of length d, and that they number Bound(d).
func reachBound(t *testing.T, name string, p Policy, attacks []attack) {
	t.Helper()
	rdb := redistest.Client(t)
	c := newClocked(t, rdb, name, p)
	b := c.lim.(Bounded)
	// A whole second ahead of the server's clock, so no key expires
	// behind the test's back.
	t0 := (time.Now().Unix() + 30) * 1_000_000
	for i, a := range attacks {
		key := fmt.Sprintf("rlbench:test:reach:%s:%d", name, i)
		for _, us := range a.at {
			if d := c.at(t, key, t0+us); !d.Allowed {
				t.Errorf("%s: the request at +%dus was denied", a.why, us)
			}
		}
		if span := a.at[len(a.at)-1] - a.at[0]; span >= a.d.Microseconds() {
			t.Errorf("%s: the requests span %dus, not within %s", a.why, span, a.d)
		}
		if got, want := int64(len(a.at)), b.Bound(a.d); got != want {
			t.Errorf("%s: %d admitted within %s; the derived bound is %d", a.why, got, a.d, want)
		}
	}
}

// repeat is n requests at the same microsecond.
func repeat(us int64, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = us
	}
	return out
}

// TestSlidingCounterReachesItsBound: after a quiet window, the limit in the
// last microsecond of window k-1; then in window k the j-th request at the
// first microsecond the shrinking weight admits it, e = floor((j-1) x
// W/limit) + 1. Within a window that is 2 x limit (all of window k's
// requests come before the first burst's window closes); within half a
// window, the limit and as many as the weight lets through by then.
func TestSlidingCounterReachesItsBound(t *testing.T) {
	p := Policy{Limit: 5, Window: 200 * time.Millisecond}
	W, L := p.WindowMicros(), p.Limit
	// Window k starts at t0 + W (t0 is a whole second, so a window start).
	k := W
	weighted := func(upTo int64) []int64 {
		var out []int64
		for j := int64(1); j <= L; j++ {
			if e := (j-1)*W/L + 1; e <= upTo {
				out = append(out, k+e)
			}
		}
		return out
	}
	reachBound(t, SlidingCounterName, p, []attack{
		{"a window: the limit at its end, the next window's as the weight shrinks", p.Window,
			append(repeat(k-1, L), weighted(W)...)},
		{"half a window: the limit, then what the weight lets through in 99,998us", p.Window / 2,
			append(repeat(k-1, L), weighted(W/2-2)...)},
	})
}

// TestSlidingBucketsReachesItsBound: the limit at the end of one bucket,
// then the limit at the start of the bucket n later, which no longer
// counts the first: 2 x limit within (n-1) buckets + 1us, so within a
// window; the limit at once in a fresh bucket is all an interval shorter
// than that gets.
func TestSlidingBucketsReachesItsBound(t *testing.T) {
	p := Policy{Limit: 5, Window: 200 * time.Millisecond, Bucket: 50 * time.Millisecond}
	b, n, L := p.BucketWidth().Microseconds(), p.BucketsPerWindow(), p.Limit
	reachBound(t, SlidingBucketsName, p, []attack{
		{"a window: the end of one bucket and the start of the bucket n later", p.Window,
			append(repeat(b-1, L), repeat(n*b, L)...)},
		{"(n-1) buckets + 2us: the same two bursts", time.Duration((n-1)*b+2) * time.Microsecond,
			append(repeat(b-1, L), repeat(n*b, L)...)},
		{"(n-1) buckets + 1us: one burst", time.Duration((n-1)*b+1) * time.Microsecond,
			repeat(0, L)},
	})
}

// TestSlidingBucketsKeepsOneFieldPerActiveBucket: memory is bounded by
// window/bucket, not by traffic. Thirty requests in one bucket make one
// field; a bucket that has left the window is deleted by the next
// admission.
func TestSlidingBucketsKeepsOneFieldPerActiveBucket(t *testing.T) {
	rdb := redistest.Client(t)
	p := Policy{Limit: 1000, Window: time.Second, Bucket: 100 * time.Millisecond}
	c := newClocked(t, rdb, SlidingBucketsName, p)
	b := p.BucketWidth().Microseconds()
	t0 := (time.Now().Unix() + 30) * 1_000_000
	key := "rlbench:test:sliding_buckets:fields"
	fields := func() []string {
		t.Helper()
		f, err := rdb.HKeys(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for i := int64(0); i < 30; i++ {
		c.at(t, key, t0+i*1000)
	}
	if got, want := fields(), []string{fmt.Sprint(t0 / b)}; !slices.Equal(got, want) {
		t.Errorf("30 requests in one bucket left fields %v, want %v", got, want)
	}
	c.at(t, key, t0+5*b)
	if got := fields(); len(got) != 2 {
		t.Errorf("a second bucket within the window: fields %v, want two", got)
	}
	// Ten buckets after the first, it has left the window.
	c.at(t, key, t0+10*b)
	if got, want := fields(), []string{fmt.Sprint(t0/b + 5), fmt.Sprint(t0/b + 10)}; !slices.Equal(sorted(got), want) {
		t.Errorf("after the first bucket left the window the fields are %v, want %v", got, want)
	}
}

// sorted is a sorted copy of s.
func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
