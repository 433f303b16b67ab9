//go:build integration

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// offByOne is the built-in fixed window admitting one request more than
// its limit in every window.
const offByOne = "if count <= limit + 1 then"

// sentinelFailoverProfile is a steady run of 8s at 400/s (3,200 decisions)
// of limiter over 4 identities, 10 per second each, on the primary the
// Sentinels name; limiter is a list of algorithms.
func sentinelFailoverProfile(limiter string) string {
	return `name: switched
policy: {limit: 10, window: 1s}
algorithms: ` + limiter + `
concurrency: 4
warmup: 0s
scenarios:
  - name: steady
    shape: steady
    rate: 400/s
    identities: 4
    duration: 8s
`
}

// TestIntegrationSentinelFailoverMidRun: an operator's SENTINEL FAILOVER
// once the primary has decided 400 requests (a second into an 8s run):
// rlbench's client follows the new primary, the switch is reported as a
// failover with its failed calls and the time until the new primary's
// first answer, and the decisions whose state the promoted replica may
// not have had are not blamed on the limiter: the correct fixed window
// passes with no mismatch. A fixed window off by one, failed over the
// same way, is still caught, before the switch and once its state is
// known again after it.
func TestIntegrationSentinelFailoverMidRun(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("../../algorithms", "fixed_window.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "if count <= limit then") {
		t.Fatal("fixed_window.lua no longer decides with `if count <= limit then`")
	}
	mutant := strings.Replace(string(src), "if count <= limit then", offByOne, 1)
	if err := os.WriteFile(filepath.Join(dir, "off_by_one.lua"), []byte(mutant), 0o644); err != nil {
		t.Fatal(err)
	}
	declared := `
  - name: off_by_one
    script: ` + filepath.Join(dir, "off_by_one.lua") + `
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window`
	for _, tc := range []struct {
		name, algorithms string
		wantCode         int
	}{
		{"correct", "[fixed_window]", exitOK},
		{"off by one", declared, exitFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := redistest.StartSentinelSet(t, "rlbench-primary", 1, 3)
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			failed := set.FailoverAfterCalls(ctx, "evalsha", 400, 20*time.Second)
			code, stdout, res, _ := runProfileText(t, "switched", sentinelFailoverProfile(tc.algorithms),
				"--redis-sentinel", strings.Join(set.SentinelAddrs(), ","), "--redis-sentinel-master", "rlbench-primary")
			fo := <-failed
			if fo.Err != nil {
				t.Fatalf("the failover: %v", fo.Err)
			}
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, stdout)
			}
			run := &res.Runs[0]
			var sw *result.FaultWindow
			if run.Faults != nil {
				for i := range run.Faults.Windows {
					if w := &run.Faults.Windows[i]; w.Kind == "failover" && w.Unscheduled {
						sw = w
					}
				}
			}
			if sw == nil {
				t.Fatalf("no failover reported (asked for after %d calls, new primary %s)\n%s", fo.AfterCalls, fo.NewPrimary, stdout)
			}
			if !strings.Contains(sw.Server, set.Primary.Addr) || !strings.Contains(sw.Server, fo.NewPrimary) ||
				!sw.Recovered || sw.ObservedStartMs <= 0 || sw.ObservedEndMs < sw.ObservedStartMs || sw.RecoveryMs != sw.ObservedEndMs-sw.ObservedStartMs {
				t.Errorf("the switch reported as %+v: want the old primary %s and the new %s, seen from the switch to the new primary's first answer (the recovery)",
					*sw, set.Primary.Addr, fo.NewPrimary)
			}
			if !strings.Contains(stdout, "unscheduled failover seen between") {
				t.Errorf("the summary does not say what the switch was\n%s", stdout)
			}
			a := run.Audit
			switch tc.wantCode {
			case exitOK:
				if res.Verdict != result.Pass || a.ModelMismatches != 0 || a.UnderAdmitted != 0 || a.Overshoot != 0 {
					t.Errorf("verdict %s, %d mismatches, %d under-admitted, overshoot %d: the failover is blamed on the limiter\n%s",
						res.Verdict, a.ModelMismatches, a.UnderAdmitted, a.Overshoot, stdout)
				}
			default:
				if res.Verdict != result.Fail || a.ModelMismatches == 0 || !strings.Contains(stdout, "MISMATCH") {
					t.Errorf("verdict %s, %d mismatches: the limiter off by one went unseen\n%s", res.Verdict, a.ModelMismatches, stdout)
				}
			}
		})
	}
}
