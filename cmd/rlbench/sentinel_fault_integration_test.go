//go:build integration

package main

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// sentinelFaultProfile is a steady run of 10s at 400/s of the correct
// fixed window over 4 identities, 10 per second each, with a failover
// asked of the Sentinels 2s in, which they have 7s to carry out.
const sentinelFaultProfile = `name: asked
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 4
warmup: 0s
scenarios:
  - name: steady
    shape: steady
    rate: 400/s
    identities: 4
    duration: 10s
    faults:
      - {at: 2s, for: 7s, kind: failover}
`

// TestIntegrationSentinelFailoverFault: a scheduled failover on a primary
// the Sentinels manage is asked of them under load, and the switch that
// follows is the fault's own window (not an unscheduled one): asked at
// its time, the client moved to the new primary, the failed calls and the
// time until the new primary's first answer, the state it lost; the
// correct fixed window passes. Without a replica to promote the Sentinel
// refuses (NOGOODSLAVE): the fault is reported not injected, in the
// Sentinel's words, and the limiter is not blamed.
func TestIntegrationSentinelFailoverFault(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int
	}{
		{"done", 1},
		{"refused", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := redistest.StartSentinelSet(t, "rlbench-primary", tc.replicas, 3)
			code, stdout, res, _ := runProfileText(t, "asked", sentinelFaultProfile,
				"--redis-sentinel", strings.Join(set.SentinelAddrs(), ","), "--redis-sentinel-master", "rlbench-primary")
			run := &res.Runs[0]
			if run.Faults == nil {
				t.Fatalf("no faults section\n%s", stdout)
			}
			var w *result.FaultWindow
			for i := range run.Faults.Windows {
				fw := &run.Faults.Windows[i]
				if fw.Kind != "failover" {
					continue
				}
				if fw.Unscheduled {
					t.Errorf("the failover asked for is also reported unscheduled: %+v", *fw)
					continue
				}
				w = fw
			}
			if w == nil {
				t.Fatalf("no scheduled failover window\n%s", stdout)
			}
			if w.ScheduledStartMs != 2000 || w.ScheduledEndMs != 9000 || w.InjectedMs < 2000 {
				t.Errorf("scheduled %d-%d, asked at %d: want 2000-9000, asked at 2000 or later", w.ScheduledStartMs, w.ScheduledEndMs, w.InjectedMs)
			}
			if tc.replicas == 0 {
				if !strings.Contains(w.Error, "NOGOODSLAVE") || !strings.Contains(stdout, "NOT INJECTED") {
					t.Errorf("a refused failover reported as error %q, want the Sentinel's NOGOODSLAVE, and NOT INJECTED in the summary\n%s", w.Error, stdout)
				}
				if code != exitOK || res.Verdict != result.Pass || w.StateLost != nil && w.StateLost.Identities > 0 {
					t.Errorf("exit %d, verdict %s, state lost %+v: a failover that did not happen is blamed on the limiter\n%s", code, res.Verdict, w.StateLost, stdout)
				}
				return
			}
			if w.Error != "" || !w.Recovered {
				t.Fatalf("the failover failed: %q (recovered %v)\n%s", w.Error, w.Recovered, stdout)
			}
			if !strings.Contains(w.Server, "SENTINEL FAILOVER asked of the Sentinel at") || !strings.Contains(w.Server, "in place of "+set.Primary.Addr) {
				t.Errorf("the window's server text %q does not say what was asked and what Sentinel did", w.Server)
			}
			if w.ObservedStartMs != w.InjectedMs || w.ObservedEndMs <= w.ObservedStartMs || w.RecoveryMs != w.ObservedEndMs-w.ObservedStartMs || w.RecoveryMs > 7000 {
				t.Errorf("seen %d-%d, asked at %d, recovery %dms: want the window from the request to the new primary's first answer, within the bound",
					w.ObservedStartMs, w.ObservedEndMs, w.InjectedMs, w.RecoveryMs)
			}
			// Whether the switch loses state is the replication's race:
			// writes the old primary took after the replica's last copy
			// are lost, and a replica that had every write loses none (0
			// of 4 in one run, 1 or more in others). What is certain is
			// that the loss is measured, over the run's 4 identities; the
			// audit's own tests hold the measure to losses made certain.
			if w.Window.Decisions == 0 || w.ClientCalls == 0 || w.StateLost == nil || w.StateLost.Identities > 4 {
				t.Errorf("window %+v, client calls %d, state lost %+v: want the failover's decisions, calls and the identities whose state it lost (of 4)",
					w.Window, w.ClientCalls, w.StateLost)
			}
			a := run.Audit
			if code != exitOK || res.Verdict != result.Pass || a.ModelMismatches != 0 || a.UnderAdmitted != 0 || a.Overshoot != 0 {
				t.Errorf("exit %d, verdict %s, %d mismatches, %d under-admitted, overshoot %d: the failover is blamed on the limiter\n%s",
					code, res.Verdict, a.ModelMismatches, a.UnderAdmitted, a.Overshoot, stdout)
			}
			t.Logf("failover asked at %dms, client moved and first answer by %dms (recovery %dms); window: %d decisions, %d errors; %d identities lost state, %d let through",
				w.InjectedMs, w.ObservedEndMs, w.RecoveryMs, w.Window.Decisions, w.Window.Errors, w.StateLost.Identities, w.StateLost.Admitted)
		})
	}
}
