//go:build integration

package workload_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// The fault matrix: every built-in family (and the client-time built-ins)
// through every fault kind, at concurrency 8 and 64, each run 3 s of 10
// identities offered twice a policy of 20 per second, the fault from 1.2 s
// for 400 ms (mid-window, shorter than the window: a limiter that forgets
// an identity through it admits a window's worth again), with the profile's
// own caller (a call bounded by the 2 s timeout, no retry): calls a fault
// holds are answered late, the others fail. A correct limiter is never
// blamed: no mismatch, no under-admission, no overshoot. At concurrency 8,
// at most 8 calls are in flight when a fault takes, each a call in doubt
// if it fails, and under 5% of the decisions are left unjudged; at 64, up
// to 64 may be, and a log holds every decision that depends on when one of
// them ran: the share is logged, not held to 5%. The client-time references are correct to
// their models, not to their bound: a bucket refilled by its callers'
// clocks that keeps the time of each request, earlier or not, refills
// again when calls a fault held run after later ones, and goes past its
// bound on its own clock too; that overshoot is its own. A fixed window
// that forgets an identity quiet for 200 ms is caught wherever a fault
// keeps every identity quiet that long with its state kept.

// matrixLimiters are the built-ins the matrix runs: the eight families and
// the client-time references.
var matrixLimiters = []string{
	"fixed_window", "sliding_log", "token_bucket", "leaky_bucket", "fixed_window_nx",
	"sliding_buckets", "gcra", "sliding_counter",
	"fixed_window_client_time", "sliding_log_client_time", "token_bucket_client_time",
}

// matrixFaults are the fault of each kind, and whether it shows the
// forgetful fixed window: it must keep the state and hold every identity
// quiet for longer than 200 ms (a kill or a restart takes the state with
// it; a failover's replica and a slow reply need not make anyone wait that
// long).
var matrixFaults = []struct {
	kind    plan.FaultKind
	fault   string
	catches bool
}{
	{plan.FaultPause, "{at: 1200ms, for: 400ms, kind: pause}", true},
	{plan.FaultStall, "{at: 1200ms, for: 400ms, kind: stall}", true},
	{plan.FaultLatency, "{at: 1200ms, for: 400ms, kind: latency, add: 150ms}", false},
	{plan.FaultTimeout, "{at: 1200ms, for: 400ms, kind: timeout}", true},
	{plan.FaultReset, "{at: 1200ms, for: 400ms, kind: reset}", true},
	{plan.FaultKill, "{at: 1200ms, for: 400ms, kind: kill}", false},
	{plan.FaultRestart, "{at: 1200ms, kind: restart}", false},
	{plan.FaultFailover, "{at: 1200ms, for: 400ms, kind: failover}", false},
}

// matrixCells is how many cells run at once, each on a private server of
// its own: the runs mostly wait on their schedule and their faults, but a
// busier machine answers later and leaves more calls in flight when a
// fault takes, each a call in doubt.
const matrixCells = 4

// matrixProfile is the profile of one cell.
func matrixProfile(concurrency int, fault string, mutant bool) string {
	algs := "\n  - " + strings.Join(matrixLimiters, "\n  - ")
	var forgets string
	if mutant {
		forgets = `
  - name: forgets
    script: forgets.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window`
	}
	return fmt.Sprintf(`name: matrix
policy: {limit: 20, window: 1s}
concurrency: %d
warmup: 0s
error_budget: 5%%
algorithms:%s%s
scenarios:
  - name: f
    shape: steady
    rate: 2x
    arrival: uniform
    identities: 10
    duration: 3s
    faults:
      - %s
`, concurrency, algs, forgets, fault)
}

// forgetsAfterAQuietSpell is the built-in fixed window with one bug: an
// identity quiet for more than 200ms gets a fresh window.
func forgetsAfterAQuietSpell(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "algorithms", "fixed_window.lua"))
	if err != nil {
		t.Fatal(err)
	}
	const after = "local now_ms = math.floor(now_us / 1000)\n"
	if !strings.Contains(string(src), after) {
		t.Fatalf("fixed_window.lua no longer reads the time as %q", after)
	}
	return strings.Replace(string(src), after, after+`
local last = tonumber(redis.call('GET', key .. ':last'))
redis.call('SET', key .. ':last', now_ms, 'PX', window_ms * 2)
if last and now_ms - last > 200 then
  redis.call('DEL', key)
end
`, 1)
}

// matrixRow is one run's figures.
type matrixRow struct {
	kind                               plan.FaultKind
	concurrency                        int
	algorithm                          string
	decisions, mismatches, under, over int64
	unjudged, errors, maybeRun         int64
}

func (r matrixRow) String() string {
	share := 0.0
	if r.decisions > 0 {
		share = 100 * float64(r.unjudged) / float64(r.decisions)
	}
	return fmt.Sprintf("%-8s %3d %-26s decisions %5d  mismatches %4d  under %3d  overshoot %3d  unjudged %4d (%4.1f%%)  errors %4d  in doubt %3d",
		r.kind, r.concurrency, r.algorithm, r.decisions, r.mismatches, r.under, r.over, r.unjudged, share, r.errors, r.maybeRun)
}

// TestIntegrationFaultMatrix runs the matrix, matrixCells cells at a time,
// and logs every run's figures (docs/faults.md quotes them).
func TestIntegrationFaultMatrix(t *testing.T) {
	redistest.ServerPath(t)
	mutant := forgetsAfterAQuietSpell(t)
	type cell struct {
		concurrency int
		f           int
	}
	var cells []cell
	for _, c := range []int{8, 64} {
		for f := range matrixFaults {
			cells = append(cells, cell{c, f})
		}
	}
	var mu sync.Mutex
	var rows []matrixRow
	sem := make(chan struct{}, matrixCells)
	var wg sync.WaitGroup
	for _, c := range cells {
		mf := matrixFaults[c.f]
		p := declaredProfile(t, matrixProfile(c.concurrency, mf.fault, mf.catches), map[string]string{"forgets.lua": mutant})
		env, err := redisenv.Open(context.Background(), redisenv.Options{ServerPath: redistest.ServerPath(t), NoEmbedded: true, PoolSize: c.concurrency + 16, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			where := fmt.Sprintf("%s at concurrency %d", mf.kind, c.concurrency)
			res, err := (&workload.Runner{Plan: p.Plan(1), Env: env}).Run(context.Background())
			if err != nil {
				t.Errorf("%s: %v", where, err)
				return
			}
			if !res.Complete {
				t.Errorf("%s: incomplete: %s", where, res.IncompleteReason)
			}
			mu.Lock()
			defer mu.Unlock()
			for i := range res.Runs {
				rows = append(rows, checkMatrixRun(t, where, mf.kind, c.concurrency, mf.catches, &res.Runs[i]))
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(rows, func(a, b matrixRow) int {
		if a.concurrency != b.concurrency {
			return a.concurrency - b.concurrency
		}
		if a.kind != b.kind {
			return strings.Compare(string(a.kind), string(b.kind))
		}
		return strings.Compare(a.algorithm, b.algorithm)
	})
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.String() + "\n")
	}
	t.Logf("the fault matrix:\n%s", b.String())
}

// checkMatrixRun holds one run of the matrix to what it must show, and
// returns its figures.
func checkMatrixRun(t *testing.T, where string, kind plan.FaultKind, concurrency int, catches bool, run *result.Run) matrixRow {
	t.Helper()
	row := matrixRow{kind: kind, concurrency: concurrency, algorithm: run.Algorithm, errors: run.Requests.Errors}
	a, f := run.Audit, run.Faults
	if a == nil || f == nil {
		t.Errorf("%s, %s: audit %v, faults %v", where, run.Algorithm, a, f)
		return row
	}
	row.decisions, row.mismatches, row.under, row.over, row.unjudged, row.maybeRun = a.Decisions, a.ModelMismatches, a.UnderAdmitted, a.Overshoot, f.Unjudged, f.CallsMaybeRun
	if run.Algorithm == "forgets" {
		if catches && a.ModelMismatches == 0 && a.Overshoot == 0 {
			t.Errorf("%s: the fixed window that forgets a quiet identity went unseen: %s", where, row)
		}
		return row
	}
	if a.ModelMismatches != 0 || a.UnderAdmitted != 0 {
		t.Errorf("%s: a correct limiter was blamed for the fault: %s", where, row)
	}
	if a.Overshoot != 0 {
		// Only a client-time reference may go past its bound, and only
		// where its own clock shows it too: what it did, not where the
		// audit placed it.
		if cc := a.CallerClock; !strings.HasSuffix(run.Algorithm, "_client_time") || cc == nil || cc.MaxWindowAdmittedOwn <= a.BoundWindow {
			t.Errorf("%s: a correct limiter was blamed for the fault: %s; caller clock %+v", where, row, a.CallerClock)
		}
	}
	if a.Decisions == 0 || concurrency <= 8 && 20*f.Unjudged >= a.Decisions {
		t.Errorf("%s: 5%% or more of the decisions unjudged: %s", where, row)
	}
	return row
}
