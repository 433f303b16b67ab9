package workload_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

func mustProfile(t *testing.T, yaml string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func checkCounts(t *testing.T, r *result.Run) {
	t.Helper()
	c := r.Requests
	if c.Sent != c.Allowed+c.Denied+c.Errors {
		t.Errorf("%s/%s: sent %d != allowed %d + denied %d + errors %d", r.Algorithm, r.Scenario, c.Sent, c.Allowed, c.Denied, c.Errors)
	}
	if got := r.LatencyUs.Count; got != c.Sent {
		t.Errorf("%s: histogram holds %d of %d requests", r.Algorithm, got, c.Sent)
	}
}

func countKeys(t *testing.T, rdb redis.Cmdable, pattern string) int {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// TestRunEndToEnd runs every limiter open and closed loop on a real
// redis-server, checks the counts add up and match the policy, and that
// only rlbench's own keys were written and then removed.
func TestRunEndToEnd(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// Someone else's data on the same server.
	rdb.Set(ctx, "customer:42", "precious", 0)
	rdb.Set(ctx, "rlbench:someoneelse:fixed_window:s:1", "theirs", 0)

	p := mustProfile(t, `
policy: {limit: 20, window: 1m}
concurrency: 8
scenarios:
  - name: open
    shape: steady
    rate: 400/s
    identities: 5
    duration: 500ms
  - name: closed
    shape: steady
    rate: max
    identities: 4
    requests: 300
`)
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}}
	runs, err := runsOf(runner.Run(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 2 scenarios x 4 algorithms", len(runs))
	}
	for i := range runs {
		r := &runs[i]
		checkCounts(t, r)
		if r.Requests.Errors != 0 {
			t.Errorf("%s/%s: %d errors: %v", r.Algorithm, r.Scenario, r.Requests.Errors, r.Errors)
		}
		// Nothing refills within the run (a bucket regains one request per 3s
		// of a 1m window; the run lasts 500ms plus any slip): every identity gets
		// exactly its 20.
		want := int64(20 * r.Identities)
		if r.Requests.Allowed != want {
			t.Errorf("%s/%s: allowed %d, want %d", r.Algorithm, r.Scenario, r.Requests.Allowed, want)
		}
		// rlbench's own CPU over the traffic, where the kernel keeps it: it
		// ran (it sent every request, each for some of its CPU), and a
		// wait is never negative.
		if _, known := schedstat.Read(schedstat.Self); known {
			if g := r.Generator; g == nil || g.CPUShare <= 0 || g.CPUWaitShare < 0 || g.UsecPerDecision <= 0 {
				t.Errorf("%s/%s: generator figures %+v", r.Algorithm, r.Scenario, g)
			}
		}
		switch r.Scenario {
		case "open":
			// Every request of the schedule is accounted for: sent, or
			// counted unsent when a busy machine held the generator past
			// the end (that it sends exactly on time is the fake-clock
			// tests' to show).
			if q := r.Requests; q.Sent+q.Unsent != 200 || q.Sent < 100 {
				t.Errorf("%s/open: sent %d + unsent %d, want 400/s x 0.5s = 200, most of them sent", r.Algorithm, q.Sent, q.Unsent)
			}
			if r.Rate.TargetPerS != 400 {
				t.Errorf("target %v", r.Rate.TargetPerS)
			}
		case "closed":
			if r.Requests.Sent != 300 {
				t.Errorf("%s/closed: sent %d, want 300", r.Algorithm, r.Requests.Sent)
			}
		}
	}
	if n := countKeys(t, rdb, runner.RunPrefix()+"*"); n != 0 {
		t.Errorf("%d keys of the run left behind", n)
	}
	if v := rdb.Get(ctx, "customer:42").Val(); v != "precious" {
		t.Errorf("a foreign key was touched: %q", v)
	}
	if v := rdb.Get(ctx, "rlbench:someoneelse:fixed_window:s:1").Val(); v != "theirs" {
		t.Errorf("another run's key was touched: %q", v)
	}
}

// TestScriptFlushMidRun: SCRIPT FLUSH during a run is survived; the reloads
// are counted and no request is lost from the counts.
func TestScriptFlushMidRun(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := mustProfile(t, `
policy: {limit: 100, window: 1s}
algorithms: [token_bucket]
concurrency: 16
scenarios:
  - shape: steady
    rate: 2000/s
    identities: 10
    duration: 1500ms
`)
	// The script is flushed after 100, 200 and 300 decisions: mid-run
	// whatever the machine's speed, with most of the run still to come.
	flushed := make(chan struct{}, 3)
	for _, n := range []int64{100, 200, 300} {
		redistest.AfterCommands(rdb, "evalsha", n, func() {
			rdb.ScriptFlush(ctx)
			flushed <- struct{}{}
		})
	}
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}}).Run(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if len(flushed) != 3 {
		t.Fatalf("%d of 3 flushes made during the run", len(flushed))
	}
	r := &runs[0]
	checkCounts(t, r)
	if r.Requests.NoScriptReloads == 0 {
		t.Errorf("no NOSCRIPT reload counted after SCRIPT FLUSH")
	}
	if r.Requests.Errors != 0 {
		t.Errorf("%d errors: %v", r.Requests.Errors, r.Errors)
	}
	// Every request of the schedule is either sent or counted unsent:
	// none is lost, however far behind a busy machine falls.
	if got := r.Requests.Sent + r.Requests.Unsent; got != 3000 {
		t.Errorf("sent %d and %d unsent, want 3000 in all", r.Requests.Sent, r.Requests.Unsent)
	}
}

// TestInterruptKeepsWhatWasMeasured: cancelling mid-run returns the run in
// flight marked incomplete, with consistent counts, skips the rest, and
// still removes the keys.
func TestInterruptKeepsWhatWasMeasured(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 10, window: 1s}
concurrency: 4
scenarios:
  - shape: steady
    rate: 500/s
    identities: 10
    duration: 30s
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Ctrl-C after 150 decisions, and how long stopping took from then.
	var stopped atomic.Int64
	redistest.AfterCommands(rdb, "evalsha", 150, func() { stopped.Store(time.Now().UnixNano()); cancel() })
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}}
	runs, err := runsOf(runner.Run(ctx))
	if !errors.Is(err, workload.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if took := time.Since(time.Unix(0, stopped.Load())); took > 5*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if len(runs) != 1 || !runs[0].Incomplete {
		t.Fatalf("want the one run in flight, marked incomplete; got %d runs", len(runs))
	}
	checkCounts(t, &runs[0])
	if runs[0].Requests.Sent < 100 {
		t.Errorf("only %d requests measured before the interrupt", runs[0].Requests.Sent)
	}
	if n := countKeys(t, rdb, runner.RunPrefix()+"*"); n != 0 {
		t.Errorf("%d keys left behind after the interrupt", n)
	}
}

// TestRedisGoneAbortsTheRun: when the server goes away mid-run, the run is
// aborted within seconds with an AbortError, and what was measured is kept.
func TestRedisGoneAbortsTheRun(t *testing.T) {
	ctx := context.Background()
	srv, err := redisenv.StartServer(ctx, redistest.ServerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	p := mustProfile(t, `
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 4
scenarios:
  - shape: steady
    rate: 200/s
    identities: 5
    duration: 60s
`)
	// The server goes away after 50 decisions, and how long the abort
	// took is measured from then.
	var gone atomic.Int64
	redistest.AfterCommands(rdb, "evalsha", 50, func() { _ = srv.Stop(); gone.Store(time.Now().UnixNano()) })
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}, AbortAfter: time.Second}).Run(ctx))
	var abort *workload.AbortError
	if !errors.As(err, &abort) {
		t.Fatalf("error %v, want an AbortError", err)
	}
	if took := time.Since(time.Unix(0, gone.Load())); gone.Load() == 0 || took > 10*time.Second {
		t.Errorf("abort took %s after the server went", took)
	}
	if len(runs) != 1 || !runs[0].Incomplete || runs[0].Requests.Allowed == 0 || runs[0].Requests.Errors == 0 {
		t.Fatalf("want one incomplete run with decisions and errors, got %+v", runs)
	}
	checkCounts(t, &runs[0])
}

// TestUnreachableRedisFailsFast: an address nobody listens on fails in
// seconds, naming the address.
func TestUnreachableRedisFailsFast(t *testing.T) {
	addr := redistest.ClosedAddr(t)
	start := time.Now()
	_, err := redisenv.Open(context.Background(), redisenv.Options{Addr: addr, Timeout: time.Second})
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s to fail", time.Since(start))
	}
	if want := fmt.Sprintf("redis at %s unreachable", addr); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the address", err)
	}
}

// runsOf is the runs of a result, for tests that look at runs one by one.
func runsOf(res *result.Result, err error) ([]result.Run, error) {
	if res == nil {
		return nil, err
	}
	return res.Runs, err
}
