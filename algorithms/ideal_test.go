package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// TestIdealSlidingWindowIsTheDefinition: the sliding-window ideal admits
// a request exactly when the units admitted within the window before it
// (the half-open (t-window, t]) and its own are at most the limit,
// counted by brute force over every earlier admission, on random arrivals
// of random costs at today's epoch.
func TestIdealSlidingWindowIsTheDefinition(t *testing.T) {
	p := algorithms.Policy{Limit: 7, Window: 50 * time.Millisecond}
	rng := rand.New(rand.NewPCG(7, 11))
	m := algorithms.IdealSlidingWindow.Model(p)
	type adm struct{ at, units int64 }
	var admitted []adm
	now := time.Now().UnixMicro()
	var yes, no int
	for range 5000 {
		now += rng.Int64N(15_000)
		cost := 1 + rng.Int64N(3)
		var in int64
		for _, a := range admitted {
			if a.at > now-p.WindowMicros() {
				in += a.units
			}
		}
		want := in+cost <= p.Limit
		if got := m.AllowN(now, cost); got != want {
			t.Fatalf("at %d, cost %d with %d units in the window: ideal says %v, the definition %v", now, cost, in, got, want)
		}
		if want {
			admitted = append(admitted, adm{now, cost})
			yes++
		} else {
			no++
		}
	}
	if yes == 0 || no == 0 {
		t.Fatalf("the arrivals must exercise both answers: %d admitted, %d denied", yes, no)
	}
}

// TestIdealTokenBucketIsTheDefinition: the token-bucket ideal admits a
// request exactly when a bucket of the policy's capacity, refilled at
// limit per window and never past its capacity, holds its cost, computed
// in exact rationals.
func TestIdealTokenBucketIsTheDefinition(t *testing.T) {
	p := algorithms.Policy{Limit: 9, Window: 70 * time.Millisecond, Burst: 4}
	rng := rand.New(rand.NewPCG(3, 5))
	m := algorithms.IdealTokenBucket.Model(p)
	capacity := big.NewRat(p.Capacity(), 1)
	tokens := new(big.Rat).Set(capacity)
	rate := big.NewRat(p.Limit, p.WindowMicros()) // tokens per microsecond
	now := time.Now().UnixMicro()
	last := now
	var yes, no int
	for range 5000 {
		now += rng.Int64N(20_000)
		cost := 1 + rng.Int64N(2)
		tokens.Add(tokens, new(big.Rat).Mul(rate, big.NewRat(now-last, 1)))
		if tokens.Cmp(capacity) > 0 {
			tokens.Set(capacity)
		}
		last = now
		want := tokens.Cmp(big.NewRat(cost, 1)) >= 0
		if want {
			tokens.Sub(tokens, big.NewRat(cost, 1))
		}
		if got := m.AllowN(now, cost); got != want {
			t.Fatalf("at %d, cost %d with %s tokens: ideal says %v, the definition %v", now, cost, tokens.FloatString(6), got, want)
		}
		if want {
			yes++
		} else {
			no++
		}
	}
	if yes == 0 || no == 0 {
		t.Fatalf("the arrivals must exercise both answers: %d admitted, %d denied", yes, no)
	}
}

// TestDefaultIdeal: a policy with a burst describes a token bucket; one
// without, the rolling window.
func TestDefaultIdeal(t *testing.T) {
	for _, c := range []struct {
		p    algorithms.Policy
		want algorithms.Ideal
	}{
		{algorithms.Policy{Limit: 100, Window: time.Second}, algorithms.IdealSlidingWindow},
		{algorithms.Policy{Limit: 100, Window: time.Second, Burst: 150}, algorithms.IdealTokenBucket},
		// A burst equal to the limit is still a bucket the profile asked for.
		{algorithms.Policy{Limit: 100, Window: time.Second, Burst: 100}, algorithms.IdealTokenBucket},
	} {
		if got := algorithms.DefaultIdeal(c.p); got != c.want {
			t.Errorf("%s: default ideal %s, want %s", c.p, got, c.want)
		}
	}
}

// TestIdealMemory: the rolling window remembers one window; a bucket the
// time it takes to refill from empty.
func TestIdealMemory(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Window: time.Second, Burst: 250}
	if got := algorithms.IdealSlidingWindow.Memory(p); got != time.Second {
		t.Errorf("sliding window remembers %s, want 1s", got)
	}
	if got := algorithms.IdealTokenBucket.Memory(p); got != 2500*time.Millisecond {
		t.Errorf("token bucket of 250 at 100/s remembers %s, want 2.5s", got)
	}
}

// TestParseIdeal names the ideals it knows when it does not know one.
func TestParseIdeal(t *testing.T) {
	if i, err := algorithms.ParseIdeal("token_bucket"); err != nil || i != algorithms.IdealTokenBucket {
		t.Errorf("token_bucket: %v, %v", i, err)
	}
	if _, err := algorithms.ParseIdeal("fixed_window"); err == nil || err.Error() != `unknown ideal "fixed_window" (known: sliding_window, token_bucket)` {
		t.Errorf("fixed_window: %v", err)
	}
}
