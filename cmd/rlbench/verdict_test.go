package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
)

// These tests reproduce, each on a real redis-server, a run the verdict
// used to pass although rlbench had seen what was wrong: the verdict must
// now fail, with the cause on the summary's first line, at the top of
// report.html and in result.json.

// looseSlidingLog is a sliding log broken by construction: it enforces the
// policy's limit plus extra, while it is audited against the policy.
type looseSlidingLog struct {
	*algorithms.SlidingLog // the honest one: name, policy, model, bound
	loose                  *algorithms.SlidingLog
}

func (l looseSlidingLog) Load(ctx context.Context) error { return l.loose.Load(ctx) }
func (l looseSlidingLog) NoScriptReloads() int64         { return l.loose.NoScriptReloads() }
func (l looseSlidingLog) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	return l.loose.Allow(ctx, key)
}

// brokenSlidingLog are the hooks under which `rlbench run` runs a sliding
// log that admits three more than the policy.
func brokenSlidingLog() hooks {
	return hooks{newLimiter: func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
		if name != algorithms.SlidingLogName {
			return algorithms.New(name, rdb, p)
		}
		loose := p
		loose.Limit += 3
		return looseSlidingLog{algorithms.NewSlidingLog(rdb, p), algorithms.NewSlidingLog(rdb, loose)}, nil
	}}
}

// boundaryLike is profiles/boundary.yaml made small: no thresholds, so
// only the verdict's defaults decide. Bursts of the limit on both sides of
// each window boundary; the first already lies in the prime's window, so a
// limiter that admits three more than the limit overshoots every time.
const boundaryLike = `name: edge
policy: {limit: 10, window: 300ms}
algorithms: [fixed_window, sliding_log]
concurrency: 8
scenarios:
  - name: boundary
    shape: boundary
    identities: 3
    offset: 30ms
    stagger: 50ms
`

// runProfileText runs body and returns the exit code, the summary, the
// result and the directory it was written to.
func runProfileText(t *testing.T, name, body string, args ...string) (int, string, *result.Result, string) {
	t.Helper()
	return runProfileTextWith(t, hooks{}, name, body, args...)
}

// runProfileTextWith is runProfileText with the test's hooks h.
func runProfileTextWith(t *testing.T, h hooks, name, body string, args ...string) (int, string, *result.Result, string) {
	t.Helper()
	redistest.ServerPath(t)
	out := t.TempDir()
	code, stdout, stderr := runCLIWith(t, h, append(append([]string{"run", "--quiet", "--out", out}, args...), writeProfile(t, body))...)
	matches, _ := filepath.Glob(filepath.Join(out, name+"-*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("exit %d, no result (%v)\n%s\n%s", code, matches, stdout, stderr)
	}
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return code, stdout, res, filepath.Dir(matches[0])
}

// wantFailure checks that a finished run failed for the reason want: on
// the summary's first line, first in result.json's verdict_reasons, and at
// the top of report.html; and that `rlbench report` on the result.json
// alone reaches the same verdict.
func wantFailure(t *testing.T, code, wantCode int, stdout string, res *result.Result, dir, want string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit %d, want %d\n%s", code, wantCode, stdout)
	}
	first, _, _ := strings.Cut(stdout, "\n")
	if !strings.HasPrefix(first, "verdict: fail: ") || !strings.Contains(first, want) {
		t.Errorf("first line %q, want the verdict with a reason holding %q", first, want)
	}
	if res.Verdict != result.Fail || len(res.VerdictReasons) == 0 || !strings.Contains(res.VerdictReasons[0], want) {
		t.Errorf("result.json: verdict %s, reasons %q", res.Verdict, res.VerdictReasons)
	}
	if page, err := os.ReadFile(filepath.Join(dir, html.HTMLFile)); err != nil {
		t.Errorf("no report.html: %v", err)
	} else if i, j := strings.Index(string(page), htmlEscape(want)), strings.Index(string(page), "<h2>"); i < 0 || j < 0 || i > j {
		t.Errorf("report.html does not open with the reason %q (at %d, first section at %d)", want, i, j)
	}
	rcode, again, _ := runCLI(t, "report", "--format", "text", filepath.Join(dir, "result.json"))
	if again1, _, _ := strings.Cut(again, "\n"); rcode != exitOK || again1 != first {
		t.Errorf("rlbench report reads the verdict as %q (exit %d), the run said %q", again1, rcode, first)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer(`"`, "&#34;", "'", "&#39;", "<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}

// TestBrokenLimiterFailsTheRun: a limiter that admits more than its bound
// fails a profile that sets no threshold; declared as a negative control it
// passes, because it was caught; a correct limiter declared broken fails.
func TestBrokenLimiterFailsTheRun(t *testing.T) {
	// Not in parallel: the negative control passes only when every burst
	// was sent as scheduled.
	broken := brokenSlidingLog()
	code, stdout, res, dir := runProfileTextWith(t, broken, "edge", boundaryLike)
	wantFailure(t, code, exitFail, stdout, res, dir, "sliding_log/boundary: OVERSHOOT: 3 identities got more than the algorithm's own bound of 10 within one 300ms")
	if !strings.Contains(stdout, "MISMATCH") || strings.Contains(stdout, "fixed_window/boundary: OVERSHOOT") {
		t.Errorf("want the broken limiter's mismatches named, and the correct one not:\n%s", stdout)
	}

	// Only its summary and result are read: no page.
	code, stdout, res, _ = runProfileTextWith(t, broken, "edge", boundaryLike+"expect_broken: [sliding_log]\n", "--no-report")
	first, _, _ := strings.Cut(stdout, "\n")
	if code != exitOK || res.Verdict != result.Pass || !strings.HasPrefix(first, "verdict: pass; sliding_log: caught, as expected (boundary: OVERSHOOT 9, MISMATCH") {
		t.Errorf("a caught negative control: exit %d, verdict %s, first line %q", code, res.Verdict, first)
	}
	if !strings.Contains(stdout, "<< OVERSHOOT MISMATCH (expected)") {
		t.Errorf("the audit table does not mark the broken limiter as expected:\n%s", stdout)
	}

	code, stdout, res, dir = runProfileTextWith(t, broken, "edge", boundaryLike+"expect_broken: [fixed_window]\n")
	wantFailure(t, code, exitFail, stdout, res, dir, "sliding_log/boundary: OVERSHOOT")
	if len(res.VerdictReasons) != 3 || !strings.Contains(res.VerdictReasons[2], "fixed_window is declared broken (expect_broken) but no run caught it") {
		t.Errorf("reasons %q, want the broken sliding log's two and the uncaught fixed window", res.VerdictReasons)
	}
}

// steadyOn is a short steady profile against the Redis at addr.
func steadyOn(addr, extra string) string {
	return `name: steady
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 4
redis: {addr: "` + addr + `"` + extra + `}
scenarios:
  - shape: steady
    rate: 400/s
    identities: 4
    duration: 500ms
`
}

// TestOutOfMemoryIsTheServers: with maxmemory below what the server
// already uses (on the test's own server, noeviction), every script fails
// with OOM. That is the server's configuration, not the limiter: the run
// ends incomplete (exit 3) quoting Redis, and no error budget is charged
// to the limiter.
func TestOutOfMemoryIsTheServers(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr})
	defer admin.Close()
	if err := admin.ConfigSet(context.Background(), "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	code, stdout, res, dir := runProfileText(t, "steady", steadyOn(addr, ""))
	// Every call the run sent (all 200 scheduled, unless a busy machine
	// left some unsent), counted as the result counts them.
	sent := sentOf(t, res)
	wantFailure(t, code, exitRuntime, stdout, res, dir, fmt.Sprintf("the run did not complete: redis at %s refused every call of fixed_window/steady (%d of %d): OOM command not allowed", addr, sent, sent))
	wantNoBudgetCharged(t, res)
}

// sentOf is how many calls the run of res sent, which must be some.
func sentOf(t *testing.T, res *result.Result) int64 {
	t.Helper()
	if res == nil || len(res.Runs) == 0 || res.Runs[0].Requests.Sent == 0 {
		t.Fatal("the run sent no call")
	}
	return res.Runs[0].Requests.Sent
}

// TestOutOfMemoryMidRunIsTheServers: the server's memory fills up (its
// maxmemory lowered under it, noeviction) once the run has had 50
// decisions: the calls after are refused with OOM, which is the server's
// doing. The run ends incomplete (exit 3) quoting Redis, with what it
// measured before; the limiter is charged no error budget.
func TestOutOfMemoryMidRunIsTheServers(t *testing.T) {
	// Not in parallel: beside another run, a busy machine sent 44 of the
	// 200 requests and the run was rightly inconclusive before the fault.
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	var full atomic.Bool
	fill := func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
		if c, ok := rdb.(*redis.Client); ok {
			// Before the 50th decision's caller goes on: every call sent
			// after it is refused.
			c.AddHook(afterCalls{name: "evalsha", n: 50, count: new(atomic.Int64), fn: func() {
				if err := admin.ConfigSet(ctx, "maxmemory", "1").Err(); err == nil {
					full.Store(true)
				}
			}})
		}
		return algorithms.New(name, rdb, p)
	}
	code, stdout, res, dir := runProfileTextWith(t, hooks{newLimiter: fill}, "steady", steadyOn(addr, ""))
	if !full.Load() {
		t.Fatal("maxmemory was never lowered")
	}
	wantFailure(t, code, exitRuntime, stdout, res, dir, "the run did not complete: redis at "+addr+" refused ")
	if reason := res.VerdictReasons[0]; !strings.Contains(reason, fmt.Sprintf(" of %d calls of fixed_window/steady for a reason of its own, past the error budget: OOM command not allowed", sentOf(t, res))) {
		t.Errorf("reason %q: want how many calls Redis refused, and its words", reason)
	}
	if run := &res.Runs[0]; !run.Incomplete || run.Requests.Allowed == 0 || run.Requests.Errors == 0 || run.Audit == nil {
		t.Errorf("want the decisions before the server filled up kept: %+v", run.Requests)
	}
	wantNoBudgetCharged(t, res)
	if err := admin.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
}

// wantNoBudgetCharged fails when the verdict charges a run's errors to its
// limiter's error budget.
func wantNoBudgetCharged(t *testing.T, res *result.Result) {
	t.Helper()
	for _, r := range res.VerdictReasons {
		if strings.Contains(r, "past the error budget of") {
			t.Errorf("the limiter is charged the server's refusals: %q", r)
		}
	}
}

// afterCalls runs fn once, right after the n-th reply to a command named
// name, before its caller goes on.
type afterCalls struct {
	name  string
	n     int64
	fn    func()
	count *atomic.Int64
}

func (h afterCalls) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h afterCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == h.name && h.count.Add(1) == h.n {
			h.fn()
		}
		return err
	}
}

func (h afterCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestServerKilledMidRunIsIncomplete: a server killed a second into a
// three-second run leaves a result marked incomplete and exit 3, though
// the run's schedule ran to its end and the cleanup failed too.
func TestServerKilledMidRunIsIncomplete(t *testing.T) {
	t.Parallel()
	srv, err := redisenv.StartServer(context.Background(), redistest.ServerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	body := strings.Replace(steadyOn(srv.Addr, ""), "duration: 500ms", "duration: 3s", 1)
	// The server is killed once the run has had 50 decisions, whatever
	// the machine's speed; how long the rest took is measured from then.
	var killed atomic.Int64
	kill := func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
		if c, ok := rdb.(*redis.Client); ok {
			redistest.AfterCommands(c, "evalsha", 50, func() { _ = srv.Stop(); killed.Store(time.Now().UnixNano()) })
		}
		return algorithms.New(name, rdb, p)
	}
	code, stdout, res, dir := runProfileTextWith(t, hooks{newLimiter: kill}, "steady", body)
	if took := time.Since(time.Unix(0, killed.Load())); killed.Load() == 0 || took > 15*time.Second {
		t.Errorf("took %s after the server was killed", took)
	}
	wantFailure(t, code, exitRuntime, stdout, res, dir, "the run did not complete: redis at "+srv.Addr+" went away during fixed_window/steady")
	if res.Complete || len(res.Runs) != 1 || !res.Runs[0].Incomplete || res.Runs[0].Requests.Allowed == 0 || res.Runs[0].Requests.Errors == 0 {
		t.Errorf("complete %v, runs %+v", res.Complete, res.Runs)
	}
}

// windowWithoutTTL is a declared fixed window whose script counts but
// never sets a TTL: its windows never end.
const windowWithoutTTL = `-- KEYS[1] the identity's counter; ARGV[1] limit.
-- Reply {allowed 1|0, remaining, retry_after_ms}. It never sets a TTL.
local n = redis.call('INCR', KEYS[1])
if n > tonumber(ARGV[1]) then return {0, '0', 100} end
return {1, tostring(tonumber(ARGV[1]) - n), 0}
`

// TestWindowWithoutTTLFailsTheVerdict: a declared fixed window whose key
// never expires is a limiter found broken, not a run that failed: its
// window cannot be found from its behaviour (after the window is
// exhausted, no request is admitted again), so each identity's bursts go a
// window after its prime, the run completes with every section it
// measures (latency, audit, memory), and the verdict fails (exit 1): it
// denies what a fixed window admits once its window is over, and leaves
// its keys without a TTL.
func TestWindowWithoutTTLFailsTheVerdict(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "nottl.lua")
	if err := os.WriteFile(script, []byte(windowWithoutTTL), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, res, dir := runProfileText(t, "nottl", `name: nottl
policy: {limit: 10, window: 300ms}
algorithms:
  - name: nottl
    script: `+script+`
    keys: ["c:{${identity}}"]
    args: ["${limit}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
concurrency: 4
scenarios:
  - name: edge
    shape: boundary
    identities: 3
    burst: 10
    offset: 30ms
    stagger: 50ms
`)
	wantFailure(t, code, exitFail, stdout, res, dir, "nottl/edge: UNDER-ADMISSION: it denied")
	if !slices.Contains(res.VerdictReasons, "nottl/edge: 3 keys were left without a TTL and never expire (a leak)") {
		t.Errorf("reasons %q: want the keys without a TTL among them", res.VerdictReasons)
	}
	run := res.Runs[0]
	if !res.Complete || run.Incomplete {
		t.Errorf("the run is marked incomplete (complete %v, run %v: %s)", res.Complete, run.Incomplete, run.Note)
	}
	if w := run.WindowLocation; w == nil || w.Method != "behaviour" || w.Identities != 3 || w.AfterPrime != 3 {
		t.Errorf("window location %+v: want three identities whose end was never found", w)
	}
	if q := run.Requests; q.Planned != 3*(1+2*10) || q.Sent < q.Planned || run.LatencyUs.Count != q.Sent {
		t.Errorf("requests %+v, latency count %d: want every planned request sent and timed, and the probes besides", q, run.LatencyUs.Count)
	}
	if run.Audit == nil || run.Audit.Decisions != run.Requests.Sent {
		t.Errorf("audit %+v", run.Audit)
	}
	if m := run.Memory; m == nil || m.Keys != 3 || m.KeysWithoutTTL != 3 {
		t.Errorf("memory %+v: want the three keys, all without a TTL", m)
	}
}
