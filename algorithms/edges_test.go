package algorithms

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
)

// Real bugs live at the edges no random trace hits on purpose: a trim
// bound off by one microsecond, a bucket whose key expires after one
// window instead of when it is full again, a > instead of >= on whole
// tokens. TestEdges puts decisions exactly on those edges with a
// controlled clock, in every model and in every script: the scripts run on
// a real redis-server with TIME replaced by a time the test gives, so both
// are fed the very same microseconds.

// edgeStep is one request at t0+atUs, the answer it must get, and, when
// expireMs is set, the key's expiry it must leave: t0's millisecond plus
// expireMs.
type edgeStep struct {
	atUs     int64
	allowed  bool
	expireMs int64
}

// clockedScript is s's source with Redis TIME replaced by the last two
// ARGV (seconds, microseconds), so a test chooses the time each decision
// uses.
func clockedScript(t *testing.T, s *Script) string {
	t.Helper()
	const call = "redis.call('TIME')"
	if n := strings.Count(s.Source(), call); n != 1 {
		t.Fatalf("%s calls TIME %d times, want once", s.name, n)
	}
	return strings.Replace(s.Source(), call, "{ARGV[#ARGV - 1], ARGV[#ARGV]}", 1)
}

func TestEdges(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// A whole second some way ahead of the server's clock: the keys'
	// expiries, set from the controlled time, then lie in the server's
	// future, so no key expires behind the test's back.
	t0 := (time.Now().Unix() + 30) * 1_000_000
	three := Policy{Limit: 3, Window: time.Second}
	wideBucket := Policy{Limit: 3, Window: time.Second, Burst: 6}
	burstOne := Policy{Limit: 3, Window: time.Second, Burst: 1}
	// Four buckets of 250ms in a window.
	quarters := Policy{Limit: 3, Window: time.Second, Bucket: 250 * time.Millisecond}
	// One token (or one request's room) comes back every 1e6/3 us: not a
	// whole number, so the refill edge falls between 333,333 and 333,334.
	const refill = 333_334
	for _, tc := range []struct {
		why    string
		alg    string
		policy Policy
		steps  []edgeStep
	}{
		{"fixed window: the key lives through its expiry millisecond, and the next one opens a new window",
			FixedWindowName, three, []edgeStep{
				{0, true, 1000}, {1, true, 0}, {2, true, 0}, {3, false, 0},
				{1_000_999, false, 1000}, // the expiry's own millisecond: still the old window, full
				{1_001_000, true, 2001},  // its first microsecond after: a new window
			}},
		{"sliding log: a decision exactly one window after an admitted stamp no longer counts it",
			SlidingLogName, three, []edgeStep{
				{0, true, 0}, {10, true, 0}, {20, true, 0},
				{999_999, false, 0},   // the stamp at 0 is still inside (now - window, now]
				{1_000_000, true, 0},  // exactly one window after it: it has left
				{1_000_009, false, 0}, // the stamp at 10 has not
				{1_000_010, true, 2001},
			}},
		{"token bucket: a request exactly one refill interval after the bucket drained",
			TokenBucketName, three, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, false, 1000}, // drained; full again one window later
				{refill - 1, false, 0},
				{refill, true, 0},
			}},
		{"token bucket with burst above the limit: the key outlives a window of silence, as the bucket is not full yet",
			TokenBucketName, wideBucket, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, false, 2000}, // six tokens at three a second: full again after two windows, not one
				{1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0},
				{1_500_000, false, 0}, // 4.5 tokens came back: four whole ones
			}},
		{"token bucket of burst 1: a full bucket holds exactly one token, and it is spent",
			TokenBucketName, burstOne, []edgeStep{
				{0, true, 334}, {1, false, 0}, {refill - 1, false, 0}, {refill, true, 0},
				{refill + 2*refill, true, 0}, // long full again: capped at exactly one token
				{refill + 2*refill, false, 0},
			}},
		{"leaky bucket: a request exactly one drain interval after the bucket filled",
			LeakyBucketName, three, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, false, 1000},
				{refill - 1, false, 0},
				{refill, true, 0},
			}},
		{"leaky bucket with burst above the limit: the key outlives a window of silence, as the bucket is not empty yet",
			LeakyBucketName, wideBucket, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, false, 2000},
				{1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0},
				{1_500_000, false, 0},
			}},
		{"leaky bucket of burst 1: an empty bucket has room for exactly one request",
			LeakyBucketName, burstOne, []edgeStep{
				{0, true, 334}, {1, false, 0}, {refill - 1, false, 0}, {refill, true, 0},
				{refill + 2*refill, true, 0},
				{refill + 2*refill, false, 0},
			}},
		{"gcra: the token bucket's refill edge, with the TAT kept to a third of a microsecond",
			GCRAName, three, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 1000}, {0, false, 0}, // three emission intervals: the TAT is exactly t0 + 1s
				{refill - 1, false, 0},
				{refill, true, 1334}, // the TAT is t0 + 1,333,333 1/3us: the key lives until that millisecond is over
			}},
		{"gcra with burst above the limit: the key outlives a window of silence",
			GCRAName, wideBucket, []edgeStep{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 2000},
				{0, false, 0},
				{1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0}, {1_500_000, true, 0},
				{1_500_000, false, 0},
			}},
		{"gcra of burst 1: one request at once, then one per emission interval",
			GCRAName, burstOne, []edgeStep{
				{0, true, 334}, {1, false, 0}, {refill - 1, false, 0}, {refill, true, 0},
				{refill + 2*refill, true, 0},
				{refill + 2*refill, false, 0},
			}},
		{"sliding counter: the previous window weighs what the rolling window still covers of it, to the third of a microsecond",
			SlidingCounterName, three, []edgeStep{
				{0, true, 2000}, {1, true, 0}, {2, true, 0}, {3, false, 0}, // the counts matter until the next window ends
				{1_000_000, false, 0},   // the next window: the previous three at full weight
				{1_000_001, true, 3000}, // 3 x 999,999/1e6 < 3
				{1_333_333, false, 0},   // 3 x 666,667/1e6 + 1 is not below 3
				{1_333_334, true, 0},    // 3 x 666,666/1e6 + 1 is
				{1_666_666, false, 0},   // 3 x 333,334/1e6 + 2 is not
				{1_666_667, true, 0},
				{3_000_000, true, 0}, // two windows on: nothing weighs
			}},
		{"sliding buckets: a bucket's admissions all leave when the bucket a window later begins",
			SlidingBucketsName, quarters, []edgeStep{
				{0, true, 1000}, {1, true, 0}, {2, true, 0}, {3, false, 0}, // the key goes when bucket 4 begins
				{999_999, false, 0},     // bucket 3: buckets 0 to 3 still count
				{1_000_000, true, 2000}, // bucket 4: bucket 0 has left, all three at once
				{1_000_000, true, 0}, {1_000_000, true, 0}, {1_000_000, false, 0},
			}},
	} {
		t.Run(tc.alg+"/"+tc.policy.String(), func(t *testing.T) {
			c := newClocked(t, rdb, tc.alg, tc.policy)
			model := c.lim.(Auditable).Model()
			key := fmt.Sprintf("rlbench:test:edges:%s:%s", tc.alg, tc.policy)
			for i, st := range tc.steps {
				now := t0 + st.atUs
				if got := model.Allow(now); got != st.allowed {
					t.Errorf("%s: step %d at +%dus: model allowed %v, want %v", tc.why, i, st.atUs, got, st.allowed)
				}
				d := c.at(t, key, now)
				if d.ServerNowMicros != now || d.Allowed != st.allowed {
					t.Errorf("%s: step %d at +%dus: script allowed %v at %d, want %v at %d", tc.why, i, st.atUs, d.Allowed, d.ServerNowMicros, st.allowed, now)
				}
				if st.expireMs == 0 {
					continue
				}
				at, err := rdb.Do(ctx, "PEXPIRETIME", key).Int64()
				if want := t0/1000 + st.expireMs; err != nil || at != want {
					t.Errorf("%s: step %d: the key expires at t0%+dms, want t0%+dms (%v)", tc.why, i, at-t0/1000, st.expireMs, err)
				}
			}
		})
	}
}

// clocked runs a built-in limiter's script on real Redis with its TIME
// replaced by the time a test gives (clockedScript).
type clocked struct {
	rdb  *redis.Client
	lim  Limiter
	src  string
	args []any
}

// newClocked prepares the built-in limiter name for policy p.
func newClocked(t *testing.T, rdb *redis.Client, name string, p Policy) clocked {
	t.Helper()
	lim, err := New(name, rdb, p)
	if err != nil {
		t.Fatal(err)
	}
	bound := lim.(interface {
		Script() *Script
		ScriptArgs() []any
	})
	return clocked{rdb: rdb, lim: lim, src: clockedScript(t, bound.Script()), args: bound.ScriptArgs()}
}

// at decides one request for key at server microsecond now.
func (c clocked) at(t *testing.T, key string, now int64) Decision {
	t.Helper()
	v, err := c.rdb.Eval(context.Background(), c.src, []string{key}, append(c.args, now/1_000_000, now%1_000_000)...).Result()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseReply(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
