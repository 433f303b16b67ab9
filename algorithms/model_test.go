package algorithms_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

func auditable(t *testing.T, l algorithms.Limiter) algorithms.Auditable {
	t.Helper()
	a, ok := l.(algorithms.Auditable)
	if !ok {
		t.Fatalf("%s has no reference model", l.Name())
	}
	return a
}

// TestModelsAgreeWithRedis replays random arrival traces through the real
// scripts and the Go models: every decision must agree. Short windows and
// a mix of back-to-back requests and pauses up to 1.5 windows put many
// decisions near window edges, refills and trims.
func TestModelsAgreeWithRedis(t *testing.T) {
	rdb := redistest.Client(t)
	policies := []algorithms.Policy{
		{Limit: 3, Window: 20 * time.Millisecond},                                // tiny limit: most requests denied
		{Limit: 10, Window: 50 * time.Millisecond, Burst: 4},                     // bucket smaller than the limit
		{Limit: 5, Window: 13 * time.Millisecond, Burst: 12},                     // bucket larger than the limit, odd window
		{Limit: 40, Window: 100 * time.Millisecond, Burst: 1},                    // capacity of one request
		{Limit: 6, Window: 60 * time.Millisecond, Bucket: 15 * time.Millisecond}, // four sub-windows for the sliding buckets
	}
	const requests = 150
	for _, name := range scripted() {
		for pi, p := range policies {
			for _, seed := range []uint64{1, 2, 3} {
				t.Run(fmt.Sprintf("%s/%s/seed%d", name, p, seed), func(t *testing.T) {
					t.Parallel()
					l := auditable(t, newLimiter(t, rdb, name, p))
					key := fmt.Sprintf("rlbench:test:model:%s:%d:%d", name, pi, seed)
					replayRandomTrace(t, l, key, rand.New(rand.NewPCG(seed, uint64(pi))), requests)
				})
			}
		}
	}
}

// replayRandomTrace sends requests on key, spaced by randomGaps, and checks
// every reply against l's model: the answer, remaining and the retry hint.
// The trace must exercise both answers.
func replayRandomTrace(t *testing.T, l algorithms.Auditable, key string, rng *rand.Rand, requests int) {
	t.Helper()
	ctx := context.Background()
	m := l.Model()
	var admitted, mismatches int
	for i, gap := range randomGaps(rng, l.Policy(), requests) {
		time.Sleep(gap)
		d, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			admitted++
		}
		if want := m.Allow(d.ServerNowMicros); want != d.Allowed {
			mismatches++
			t.Errorf("request %d at %d: Redis allowed=%v (remaining %s), model %v", i, d.ServerNowMicros, d.Allowed, d.Remaining, want)
		}
		checkReplyAgainstModel(t, i, m, d)
	}
	if admitted == 0 || admitted == requests {
		t.Errorf("admitted %d of %d: the trace never exercised both answers", admitted, requests)
	}
	if mismatches > 0 {
		t.Errorf("%d of %d decisions differ from the model", mismatches, requests)
	}
}

// checkReplyAgainstModel checks what a reply tells its caller against the
// model that just decided the same request: remaining, and on a denial
// that a retry after retry_after_ms would be admitted.
func checkReplyAgainstModel(t *testing.T, i int, m algorithms.Model, d algorithms.Decision) {
	t.Helper()
	rm, ok := m.(algorithms.ReplyModel)
	if !ok {
		t.Fatalf("model %T does not predict replies", m)
	}
	rem, err := strconv.ParseFloat(d.Remaining, 64)
	if err != nil {
		t.Fatalf("request %d: remaining %q: %v", i, d.Remaining, err)
	}
	if !algorithms.RemainingAgrees(rem, rm.Remaining()) {
		t.Errorf("request %d at %d: remaining %s, model %v", i, d.ServerNowMicros, d.Remaining, rm.Remaining())
	}
	if !d.Allowed && !algorithms.RetryAgrees(rm, d.ServerNowMicros, d.RetryAfter) {
		t.Errorf("request %d at %d: denied with retry_after %s, but the model admits only from %d", i, d.ServerNowMicros, d.RetryAfter, rm.NextAdmitMicros())
	}
}

// randomGaps is the pause before each of n requests: bursts of up to
// twice what the policy admits at once, sent back to back, separated by
// pauses of up to one and a half windows (a third of them shorter than a
// fair-share gap), so traces both exhaust and refill the limiter.
func randomGaps(rng *rand.Rand, p algorithms.Policy, n int) []time.Duration {
	gaps := make([]time.Duration, 0, n)
	most := 2 * max(p.Limit, p.Capacity())
	for len(gaps) < n {
		pause := time.Duration(rng.Int64N(int64(p.Window * 3 / 2)))
		if rng.IntN(3) == 0 {
			pause = time.Duration(rng.Int64N(int64(p.Window / time.Duration(p.Limit))))
		}
		gaps = append(gaps, pause)
		for burst := rng.Int64N(most); burst > 0 && len(gaps) < n; burst-- {
			gaps = append(gaps, 0)
		}
	}
	return gaps
}

// TestFixedWindowExpiryEdge pins the fixed window's expiry rule to the
// millisecond on real Redis. A window opened at t0 ends after the
// millisecond floor(t0/1000)+window_ms. The script under test is the real
// one behind a busy-wait that holds the script until TIME reaches the
// target millisecond: Redis judges key expiry by the time the script
// started, so the rows after the expiry check that the script closes the
// window by the TIME its decision uses, as the model does.
func TestFixedWindowExpiryEdge(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// A long window, so a stalled machine does not push the first rows past
	// the expiry.
	p := algorithms.Policy{Limit: 5, Window: 300 * time.Millisecond}
	fw := algorithms.NewFixedWindow(rdb, p)
	if err := fw.Load(ctx); err != nil {
		t.Fatal(err)
	}
	const wait = `local target_ms = tonumber(ARGV[3])
while true do
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) >= target_ms then break end
end
`
	delayed := wait + fw.Script().Source()
	for _, tc := range []struct {
		why       string
		afterMs   int64 // the second request's millisecond, relative to the expiry
		sameCount bool  // whether it still counts in the prime's window
	}{
		{"a millisecond before the expiry: same window", -1, true},
		{"in the expiry's own millisecond: the key is still alive", 0, true},
		{"the first millisecond after: a new window, though the script started in the old one", 1, false},
		{"well after: a new window", 2, false},
	} {
		// The row needs its decision on the intended side of the expiry; a
		// stall on a busy machine can push it over, and then the row is
		// tried again on a fresh key.
		var d algorithms.Decision
		for attempt := 0; ; attempt++ {
			if attempt == 5 {
				t.Fatalf("%s: five attempts ran on the wrong side of the expiry (busy machine?)", tc.why)
			}
			key := fmt.Sprintf("rlbench:test:fixed_window:edge:%d:%d", tc.afterMs, attempt)
			prime, err := fw.Allow(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			expireMs := prime.ServerNowMicros/1000 + p.WindowMillis()
			v, err := rdb.Eval(ctx, delayed, []string{key}, p.Limit, p.WindowMillis(), expireMs+tc.afterMs).Result()
			if err != nil {
				t.Fatal(err)
			}
			if d, err = algorithms.ParseReply(v); err != nil {
				t.Fatal(err)
			}
			if after := d.ServerNowMicros/1000 - expireMs; (after > 0) == (tc.afterMs > 0) {
				break
			}
		}
		want := strconv.FormatInt(p.Limit-1, 10)
		if tc.sameCount {
			want = strconv.FormatInt(p.Limit-2, 10)
		}
		if d.Remaining != want {
			t.Errorf("%s: remaining %s, want %s", tc.why, d.Remaining, want)
		}
	}
}
