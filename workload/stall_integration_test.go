//go:build integration

package workload_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// heldProfile is a fixed window of 20 per second for 10 identities offered
// twice that, uniformly, by 8 callers for 5 s, the server frozen (SIGSTOP,
// then SIGCONT) for 3 s from 1.5 s. Every call is bounded by 5 s, longer
// than the stall: the calls sent into it wait in the socket, run as the
// server wakes and are answered late, none failing. Beside the built-in
// and its client-time sibling run three scripts of the built-in with one
// bug each.
const heldProfile = `name: held
policy: {limit: 20, window: 1s}
concurrency: 8
warmup: 0s
timeout: 5s
algorithms:
  - fixed_window
  - fixed_window_client_time
  - name: remaining_one_high
    script: remaining.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window
  - name: one_short
    script: short.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window
  - name: retry_early
    script: early.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window
scenarios:
  - name: stalled
    shape: steady
    rate: 2x
    arrival: uniform
    identities: 10
    duration: 5s
    faults:
      - {at: 1500ms, for: 3s, kind: stall}
`

// fixedWindowWith is the built-in fixed window's script with the text old
// replaced by new, once.
func fixedWindowWith(t *testing.T, old, new string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "algorithms", "fixed_window.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(src), old) != 1 {
		t.Fatalf("fixed_window.lua no longer holds %q once", old)
	}
	return strings.Replace(string(src), old, new, 1)
}

// TestIntegrationStallHeldCalls: calls a stall holds in the socket ran at
// some moment between their send and their reply, and a correct limiter is
// judged so (the server's time its reply carries, or the time its request
// carried): no mismatch, no under-admission, no overshoot, nothing left
// unjudged, though about a third of the decisions were made seconds after
// their send. Through the same stall a limiter whose remaining says one
// more than it has, one that admits one less than its limit, and one whose
// retry hint comes 100ms early are each still caught.
func TestIntegrationStallHeldCalls(t *testing.T) {
	p := declaredProfile(t, heldProfile, map[string]string{
		"remaining.lua": fixedWindowWith(t, "tostring(limit - count)", "tostring(limit - count + 1)"),
		"short.lua":     fixedWindowWith(t, "if count <= limit then", "if count < limit then"),
		"early.lua":     fixedWindowWith(t, "math.ceil(wait_us / 1000)", "math.max(math.ceil(wait_us / 1000) - 100, 0)"),
	})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: privateEnv(t)}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatalf("incomplete: %s", res.IncompleteReason)
	}
	j := verdict.Assess(res)
	for i := range res.Runs {
		run, judged := &res.Runs[i], j.Runs[i]
		a, f := run.Audit, run.Faults
		if a == nil || f == nil {
			t.Fatalf("%s: audit %+v, faults %+v", run.Key(), a, f)
		}
		// The watch may also report a slow answer of the busy machine as
		// an unscheduled stall; the scheduled one is the first.
		w := f.Windows[0]
		// The stall held the calls: none failed, and the ones sent into it
		// were answered after it, seconds late.
		if run.Requests.Errors != 0 || w.Unscheduled || !strings.Contains(w.Server, "SIGSTOP") || w.ObservedEndMs-w.ObservedStartMs < 2500 {
			t.Errorf("%s: %d errors; stall %+v", run.Key(), run.Requests.Errors, w)
		}
		if run.LatencyUncorrectedUs.Max < 2_000_000 {
			t.Errorf("%s: no call waited out the stall: latency %+v", run.Key(), run.LatencyUncorrectedUs)
		}
		switch run.Algorithm {
		case "fixed_window", "fixed_window_client_time":
			if a.ModelMismatches != 0 || a.UnderAdmitted != 0 || a.Overshoot != 0 || f.Unjudged != 0 {
				t.Errorf("%s: a correct limiter blamed for the stall: %d mismatches, %d under-admitted, overshoot %d, %d unjudged (of %d)",
					run.Key(), a.ModelMismatches, a.UnderAdmitted, a.Overshoot, f.Unjudged, a.Decisions)
			}
			if len(judged.Findings) != 0 || judged.Promise != verdict.Kept {
				t.Errorf("%s: %v, findings %+v", run.Key(), judged.Promise, judged.Findings)
			}
		case "remaining_one_high":
			if c := a.Reply; c == nil || c.RemainingWrong == 0 || a.ModelMismatches == 0 {
				t.Errorf("%s: a remaining one too high went unseen: %d mismatches, replies %+v", run.Key(), a.ModelMismatches, a.Reply)
			}
		case "one_short":
			if a.UnderAdmitted == 0 {
				t.Errorf("%s: a limit one short went unseen: %d mismatches, %d under-admitted", run.Key(), a.ModelMismatches, a.UnderAdmitted)
			}
		case "retry_early":
			if c := a.Reply; c == nil || c.RetryAfterTooEarly == 0 || a.ModelMismatches == 0 {
				t.Errorf("%s: a retry hint 100ms early went unseen: %d mismatches, replies %+v", run.Key(), a.ModelMismatches, a.Reply)
			}
		}
		if run.Algorithm != "fixed_window" && run.Algorithm != "fixed_window_client_time" && judged.Promise != verdict.Broken {
			t.Errorf("%s: a broken limiter kept its promise: %v, findings %+v", run.Key(), judged.Promise, judged.Findings)
		}
		t.Logf("%s: %d decisions, %d mismatches, %d under-admitted, overshoot %d, %d unjudged; longest wait %dus",
			run.Key(), a.Decisions, a.ModelMismatches, a.UnderAdmitted, a.Overshoot, f.Unjudged, run.LatencyUncorrectedUs.Max)
	}
}
