package workload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// TestFaultsOnARealServer is the fault suite's quick sample (make
// test-integration runs every kind): a pause and a latency spike under
// fail_closed, on a private redis-server. The counts add up with the
// policy's denials among the errors, fail_closed admits nothing, each fault
// is seen by the server, and the verdict does not blame the limiter or the
// error budget for what the faults did.
func TestFaultsOnARealServer(t *testing.T) {
	p := mustProfile(t, `name: faults
policy: {limit: 20, window: 1s}
algorithms: [token_bucket]
concurrency: 8
warmup: 0s
error_budget: 5%
client: {timeout: 50ms, retries: 1, backoff: 5ms, on_error: fail_closed}
scenarios:
  - name: f
    shape: steady
    rate: 2x
    identities: 10
    duration: 2s
    faults:
      - {at: 400ms, for: 300ms, kind: pause}
      - {at: 1200ms, for: 300ms, kind: latency, add: 80ms}
`)
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: privateEnv(t)}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := &res.Runs[0]
	q, f := run.Requests, run.Faults
	checkCounts(t, run)
	if q.Errors == 0 || q.DeniedOnError != q.Errors || q.AllowedOnError != 0 || q.FaultErrors != f.Errors || run.Params.OnError != result.FailClosed {
		t.Errorf("requests %+v, faults.errors %d, on_error %q", q, f.Errors, run.Params.OnError)
	}
	if f.MaxAttempts > 2 || len(f.Windows) != 2 || f.Timeline == nil || f.Timeline.BinMs != 100 {
		t.Fatalf("faults %+v", f)
	}
	if w := f.Windows[0]; !strings.Contains(w.Server, "CLIENT PAUSE 300 ALL") || w.ObservedEndMs-w.ObservedStartMs < 250 {
		t.Errorf("pause %+v", w)
	}
	if w := f.Windows[1]; !strings.Contains(w.Server, "latency") || w.Window.Errors == 0 {
		t.Errorf("latency %+v", w)
	}
	verdict.Judge(res, p.Thresholds)
	if res.Verdict != result.Pass {
		t.Errorf("verdict %s: %v", res.Verdict, res.VerdictReasons)
	}
}

// privateEnv starts a private redis-server, as rlbench does without an
// address.
func privateEnv(t *testing.T) *redisenv.Env {
	t.Helper()
	env, err := redisenv.Open(context.Background(), redisenv.Options{ServerPath: redistest.ServerPath(t), NoEmbedded: true, PoolSize: 24, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	return env
}
