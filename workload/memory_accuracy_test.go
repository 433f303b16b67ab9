package workload_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/workload"
)

// accuracyIdentities is large enough that bytes/identity is a stable figure
// (the clients' and the server's fixed costs are a few bytes per identity)
// and small enough for the default test run under -race.
const accuracyIdentities = 20_000

// TestBytesPerIdentityMatchesAnIndependentFill checks the probes' central
// figure against a measurement that shares none of their code: a fresh
// redis-server filled with the same number of keys, of the same key length,
// through the same Lua scripts, by plain pipelined EVALSHA calls on one
// connection, measured by used_memory before and after. They must agree
// within 10% for every limiter.
func TestBytesPerIdentityMatchesAnIndependentFill(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	p := onceEachProfile(t, "fill", accuracyIdentities, 16)
	// Run ids of one length, so both paths write keys of one length.
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}, RunID: "runner01"}
	runs, err := runsOf(runner.Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		r := &runs[i]
		m := r.Memory
		if m == nil || m.UsedMemoryDeltaBytes == 0 {
			t.Fatalf("%s: no memory figures: %+v", r.Algorithm, m)
		}
		if m.Identities != accuracyIdentities || m.Keys != accuracyIdentities || m.KeysWithoutTTL != 0 {
			t.Errorf("%s: %d identities in %d keys, %d without TTL; want %d each, all with a TTL",
				r.Algorithm, m.Identities, m.Keys, m.KeysWithoutTTL, accuracyIdentities)
		}
		prefix := "rlbench:independ:" + r.Algorithm + ":fill:"
		want := independentFill(t, r.Algorithm, p.Policy, prefix, accuracyIdentities)
		got := m.BytesPerIdentity
		t.Logf("%-13s rlbench %6.1f B/identity, independent fill %6.1f B/identity (%+.1f%%); MEMORY USAGE mean %.1f B",
			r.Algorithm, got, want, 100*(got-want)/want, m.MemoryUsageSampledBytes)
		if math.Abs(got-want) > 0.10*want {
			t.Errorf("%s: rlbench measured %.1f B/identity, the independent fill %.1f: more than 10%% apart", r.Algorithm, got, want)
		}
	}
}

// onceEachProfile runs every limiter over n identities, one request each,
// closed loop, under a policy whose keys outlive any test.
func onceEachProfile(t *testing.T, scenario string, n, concurrency int) *profile.Profile {
	t.Helper()
	return mustProfile(t, fmt.Sprintf(`
policy: {limit: 10, window: 1h}
concurrency: %d
scenarios:
  - name: %s
    shape: cardinality
    distribution: sequential
    identities: %d
    rate: max
`, concurrency, scenario, n))
}

// scriptArgs is the ARGV each limiter's script takes, written out here
// rather than taken from the limiter so the fill shares no code with it.
func scriptArgs(name string, p algorithms.Policy) []any {
	switch name {
	case algorithms.FixedWindowName:
		return []any{p.Limit, p.WindowMillis()}
	case algorithms.SlidingLogName:
		return []any{p.Limit, p.WindowMicros()}
	default:
		return []any{p.Limit, p.WindowMicros(), p.Capacity()}
	}
}

// independentFill starts a fresh redis-server, sends one request for each of
// n identities under prefix through the named limiter's Lua with plain
// EVALSHA calls, and returns the growth of used_memory per key.
func independentFill(t *testing.T, name string, p algorithms.Policy, prefix string, n int) float64 {
	t.Helper()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t), Protocol: 2, DisableIdentity: true, PoolSize: 1})
	defer rdb.Close()
	lim, err := algorithms.New(name, rdb, p)
	if err != nil {
		t.Fatal(err)
	}
	src := lim.(interface{ Script() *algorithms.Script }).Script().Source()
	sha, err := rdb.ScriptLoad(ctx, src).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The same server setting rlbench uses on a server it started: no
	// per-command latency histograms appearing mid-measurement.
	if err := rdb.ConfigSet(ctx, "latency-tracking", "no").Err(); err != nil {
		t.Logf("latency-tracking: %v", err)
	}
	args := scriptArgs(name, p)
	before := settledUsedMemory(t, rdb)
	const batch = 100
	for start := 0; start < n; start += batch {
		pipe := rdb.Pipeline()
		for i := start; i < min(start+batch, n); i++ {
			pipe.EvalSha(ctx, sha, []string{prefix + strconv.Itoa(i)}, args...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	after := settledUsedMemory(t, rdb)
	if keys := rdb.DBSize(ctx).Val(); keys != int64(n) {
		t.Fatalf("independent fill wrote %d keys, want %d", keys, n)
	}
	return float64(after-before) / float64(n)
}

// settledUsedMemory reads used_memory until two readings 200 ms apart
// agree: a hash table that just doubled frees its old half once its
// incremental rehash ends, within a server cron tick or two.
func settledUsedMemory(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	prev := usedMemory(t, rdb)
	for i := 0; i < 20; i++ {
		time.Sleep(200 * time.Millisecond)
		cur := usedMemory(t, rdb)
		if cur == prev {
			return cur
		}
		prev = cur
	}
	t.Fatalf("used_memory did not settle")
	return 0
}

func usedMemory(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(redisenv.ParseInfo(info)["used_memory"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFillMatchesAnIndependentFill: under a policy whose keys expire
// almost as soon as they are made (a bucket of 10 per 100ms refills one
// token in 10ms), a cardinality run's keys are gone before the census, and
// its memory per identity comes from the fill: fresh identities decided in
// one MULTI between two memory readings. It must agree within 10% with the
// independent fill of keys that never expire, for a bucket, GCRA and the
// fixed window alike, and the run says how many keys expired.
func TestFillMatchesAnIndependentFill(t *testing.T) {
	t.Parallel()
	rdb := redistest.Client(t)
	p := mustProfile(t, fmt.Sprintf(`
policy: {limit: 10, window: 100ms}
algorithms: [token_bucket, gcra, fixed_window]
concurrency: 16
scenarios:
  - name: fill
    shape: cardinality
    distribution: sequential
    identities: %d
    rate: max
    accept_inconclusive: true
`, accuracyIdentities))
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}, RunID: "runner01"}
	runs, err := runsOf(runner.Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	long := algorithms.Policy{Limit: 10, Window: time.Hour}
	for i := range runs {
		r := &runs[i]
		m := r.Memory
		if m == nil || m.ExpiredKeys == 0 || m.Fill == nil || m.Fill.Identities != accuracyIdentities {
			t.Fatalf("%s: keys expired, yet no fill of %d identities: %+v", r.Algorithm, accuracyIdentities, m)
		}
		got, ok := m.PerIdentity()
		if !ok || got != m.BytesPerIdentity {
			t.Fatalf("%s: per identity %v (%v), bytes_per_identity %v", r.Algorithm, got, ok, m.BytesPerIdentity)
		}
		// Keys as long as the run's: rlbench:runner01:<alg>:fill~<identity>.
		prefix := "rlbench:runner01:" + r.Algorithm + ":fill~"
		want := independentFill(t, r.Algorithm, long, prefix, accuracyIdentities)
		t.Logf("%-13s fill %6.1f B/identity (%d keys expired before the census), independent fill %6.1f B/identity (%+.1f%%)",
			r.Algorithm, got, m.ExpiredKeys, want, 100*(got-want)/want)
		if math.Abs(got-want) > 0.10*want {
			t.Errorf("%s: the fill measured %.1f B/identity, the independent fill %.1f: more than 10%% apart", r.Algorithm, got, want)
		}
		if n, _ := rdb.Keys(context.Background(), "rlbench:runner01:"+r.Algorithm+":fill~*").Result(); len(n) != 0 {
			t.Errorf("%s: %d fill keys left behind", r.Algorithm, len(n))
		}
	}
}
