//go:build integration

package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// errorBlameProfile runs one declared fixed window of 20 a second, its
// script in limiter.lua, for 10 identities offered the limit for 2 s by 2
// callers, each call given 20ms.
const errorBlameProfile = `name: errors
policy: {limit: 20, window: 1s}
concurrency: 2
warmup: 0s
client: {timeout: 20ms, retries: 0, on_error: fail_closed}
algorithms:
  - name: mine
    script: limiter.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
scenarios:
  - name: s
    shape: steady
    rate: 1x
    identities: 10
    duration: 2s
`

// windowTail is a fixed window's decision on n, the identity's count.
const windowTail = `
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then return {0, 0, redis.call('PTTL', KEYS[1])} end
return {1, tonumber(ARGV[1]) - n, 0}
`

// runErrorBlame runs errorBlameProfile with script as the limiter on a
// private server and judges it.
func runErrorBlame(t *testing.T, profile, script string) (*result.Run, verdict.Judgement) {
	t.Helper()
	p := declaredProfile(t, profile, map[string]string{"limiter.lua": script})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: privateEnv(t)}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Runs) != 1 {
		t.Fatalf("incomplete (%s) or %d runs", res.IncompleteReason, len(res.Runs))
	}
	return &res.Runs[0], verdict.Assess(res)
}

// TestIntegrationScriptErrorFails: a script that fails on every fifth call
// of an identity (a command on a key of the wrong type) fails the result
// for its errors, however starved the machine: Redis answered them.
func TestIntegrationScriptErrorFails(t *testing.T) {
	run, j := runErrorBlame(t, errorBlameProfile, `local n = redis.call('INCR', KEYS[1])
if n % 5 == 0 then return redis.call('HGET', KEYS[1], 'f') end`+windowTail)
	f, ok := j.Runs[0].Finding(verdict.ErrorsOverBudget)
	if j.Verdict != result.Fail || !ok || !strings.Contains(f.Text, "Redis answered") {
		t.Fatalf("verdict %s, errors finding %+v (%v); errors %+v", j.Verdict, f, ok, run.Errors)
	}
	if run.Errors[0].Kind != "WRONGTYPE" {
		t.Errorf("errors %+v, want WRONGTYPE first", run.Errors)
	}
	t.Logf("%s", f.Text)
}

// TestIntegrationSlowScriptFails: a script that keeps the server 40ms on
// every call, twice what a call is given, times its calls out; the server's
// own time per call says the limiter did it, so the result fails for its
// errors, however starved the machine. Its 8 callers queue calls of 40ms
// behind each other, so the server's watch may wait past its stall
// threshold and see an unscheduled stall: one the limiter caused excuses
// none of its errors.
func TestIntegrationSlowScriptFails(t *testing.T) {
	profile := strings.Replace(errorBlameProfile, "concurrency: 2", "concurrency: 8", 1)
	run, j := runErrorBlame(t, profile, `local t = redis.call('TIME')
local from = tonumber(t[1]) * 1000000 + tonumber(t[2])
repeat
  t = redis.call('TIME')
until tonumber(t[1]) * 1000000 + tonumber(t[2]) - from >= 40000
local n = redis.call('INCR', KEYS[1])`+windowTail)
	f, ok := j.Runs[0].Finding(verdict.ErrorsOverBudget)
	if j.Verdict != result.Fail || !ok || !strings.Contains(f.Text, "the limiter is too slow") {
		t.Fatalf("verdict %s, errors finding %+v (%v); server %+v, errors %+v, requests %+v", j.Verdict, f, ok, run.Server, run.Errors, run.Requests)
	}
	if s := run.Server; s == nil || s.UsecPerCall < 40_000 || run.Params.CallTimeoutMs != 20 {
		t.Errorf("server %+v, call timeout %vms", s, run.Params.CallTimeoutMs)
	}
	if run.Requests.FaultErrors != 0 || run.Requests.BudgetedErrors() != run.Requests.Errors {
		t.Errorf("the slow script's errors were excused: requests %+v", run.Requests)
	}
	if f := run.Faults; f != nil {
		for _, w := range f.Windows {
			t.Logf("the watch saw: %s %s (%s)", map[bool]string{true: "unscheduled", false: "scheduled"}[w.Unscheduled], w.Kind, w.Server)
		}
	}
	t.Logf("%s", f.Text)
}
