package algorithms_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestGCRADecidesAsTheTokenBucket: on random traces at today's epoch, GCRA
// of burst b and the token bucket of capacity b admit the same requests,
// have the same requests left and the same next admission: the burst is
// the bucket's capacity, and the TAT's lead is the bucket's missing tokens.
func TestGCRADecidesAsTheTokenBucket(t *testing.T) {
	for _, p := range []algorithms.Policy{
		{Limit: 100, Window: time.Second},                       // a whole-microsecond emission interval
		{Limit: 3, Window: 7 * time.Millisecond, Burst: 5},      // 2333 1/3us
		{Limit: 7, Window: time.Minute, Burst: 1},               // no burst at all
		{Limit: 1_000_000, Window: time.Millisecond, Burst: 50}, // many requests per microsecond
	} {
		rng := rand.New(rand.NewPCG(uint64(p.Limit), 1))
		g := algorithms.NewGCRA(nil, p).Model().(algorithms.ReplyModel)
		b := algorithms.NewTokenBucket(nil, p).Model().(algorithms.ReplyModel)
		now := int64(1_764_000_000_123_456)
		differ := 0
		for i := 0; i < 20_000; i++ {
			// Bursts at one microsecond, and gaps up to a window.
			if rng.IntN(3) == 0 {
				now += rng.Int64N(p.WindowMicros()/p.Limit*2 + 2)
			}
			ga, ba := g.Allow(now), b.Allow(now)
			if ga != ba || g.Remaining() != b.Remaining() || g.NextAdmitMicros() != b.NextAdmitMicros() {
				differ++
				if differ < 5 {
					t.Errorf("%s, request %d at %d: gcra %v (left %v, next %d), token bucket %v (left %v, next %d)",
						p, i, now, ga, g.Remaining(), g.NextAdmitMicros(), ba, b.Remaining(), b.NextAdmitMicros())
				}
			}
		}
		if differ > 0 {
			t.Errorf("%s: %d of 20000 decisions differ", p, differ)
		}
	}
}

// TestGCRAKeepsAFractionalTATExactly: with an emission interval that is not
// a whole microsecond (1s / 3), the stored TAT carries its fraction
// ("<us>+<n>": n thirds of a microsecond) and expires with the TAT, and
// three requests in a burst move it exactly one window on, where it is a
// whole microsecond again.
func TestGCRAKeepsAFractionalTATExactly(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 3, Window: time.Second, Burst: 3}
	l := newLimiter(t, rdb, algorithms.GCRAName, p)
	key := "rlbench:test:gcra:fraction"
	first, err := l.Allow(ctx, key)
	if err != nil || !first.Allowed {
		t.Fatalf("first request: %+v, %v", first, err)
	}
	tat, err := rdb.Get(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d+1", first.ServerNowMicros+333_333); tat != want {
		t.Errorf("TAT after one request %q, want %s", tat, want)
	}
	if !regexp.MustCompile(`^\d{16}\+1$`).MatchString(tat) {
		t.Errorf("TAT %q is not sixteen digits of microseconds and a fraction", tat)
	}
	// The key expires at the first millisecond at or after the TAT (its
	// microsecond rounded up past the fraction): read as an instant, not a
	// PTTL, which counts from whatever millisecond the server reads it in.
	tatUs := first.ServerNowMicros + 333_333 + 1
	if at, err := rdb.PExpireTime(ctx, key).Result(); err != nil || at != time.Duration((tatUs+999)/1000)*time.Millisecond {
		t.Errorf("PEXPIRETIME %d, %v: want %dms, the TAT's millisecond rounded up", at.Milliseconds(), err, (tatUs+999)/1000)
	}
	// The TAT leads by at least 333ms, so the next two requests (well
	// within that) each move it on by exactly T.
	for i := 0; i < 2; i++ {
		if d, err := l.Allow(ctx, key); err != nil || !d.Allowed {
			t.Fatalf("request %d of the burst: %+v, %v", i+2, d, err)
		}
	}
	tat, err = rdb.Get(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(first.ServerNowMicros + 1_000_000); tat != want {
		t.Errorf("TAT after the burst %q, want %s: three emission intervals are exactly the window", tat, want)
	}
}

// TestGCRARepliesItsWholeState: the script's remaining is the room left
// with its fraction, as the token bucket's, on admissions and denials
// alike: the model fed the same server times has the same left, to the
// sixth decimal. (A whole number would say only that the TAT lies within
// one emission interval; an audit unsure of an identity's past, after a
// call whose outcome is unknown, reads the state from the first reply.)
func TestGCRARepliesItsWholeState(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// An emission interval of a third of a second: a fraction that no
	// decimal writes whole.
	p := algorithms.Policy{Limit: 3, Window: time.Second, Burst: 3}
	l := newLimiter(t, rdb, algorithms.GCRAName, p)
	m := algorithms.NewGCRA(nil, p).Model().(algorithms.ReplyModel)
	key := "rlbench:test:gcra:whole-state"
	fractions, denials := 0, 0
	for i := range 6 {
		d, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if want := m.Allow(d.ServerNowMicros); want != d.Allowed {
			t.Fatalf("request %d: the script %v, the model %v", i+1, d.Allowed, want)
		}
		left, err := strconv.ParseFloat(d.Remaining, 64)
		if err != nil {
			t.Fatalf("request %d: remaining %q: %v", i+1, d.Remaining, err)
		}
		if math.Abs(left-m.Remaining()) > 1e-6 {
			t.Errorf("request %d (allowed %v): remaining %s, the model has %.9f", i+1, d.Allowed, d.Remaining, m.Remaining())
		}
		if left != math.Trunc(left) {
			fractions++
		}
		if !d.Allowed {
			denials++
		}
	}
	if denials == 0 || fractions == 0 {
		t.Errorf("%d denials and %d fractional replies in a burst of 6 past a burst of 3", denials, fractions)
	}
}
