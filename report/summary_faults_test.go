package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// faultResult holds one scenario with a pause and a restart, run under
// fail_open and fail_closed, and a scenario without faults.
func faultResult() *result.Result {
	r := resulttest.Sample()
	n := func(v int64) *int64 { return &v }
	run := func(policy string, allowedOnError, deniedOnError int64) result.Run {
		return result.Run{
			Algorithm: "fixed_window", Scenario: "outage-" + policy,
			Params:   result.Params{OnError: policy},
			Requests: result.Requests{Sent: 1000, Allowed: 400, Denied: 500, Errors: 100, FaultErrors: 100, AllowedOnError: allowedOnError, DeniedOnError: deniedOnError},
			Faults: &result.Faults{
				Errors: 100, AllowedOnError: allowedOnError, DeniedOnError: deniedOnError,
				AdmittedByFault: n(allowedOnError / 2), DeniedByFault: n(deniedOnError / 4), PolicyExcess: allowedOnError / 10,
				StateLostIdentities: 7, StateLostAdmitted: 12, Attempts: 1150, Retries: 150, MaxAttempts: 2, MaxRecoveryMs: 340,
				Windows: []result.FaultWindow{
					{Kind: "pause", ScheduledStartMs: 1000, ScheduledEndMs: 1500, InjectedMs: 1001, ObservedStartMs: 1002, ObservedEndMs: 1503,
						Window:     result.FaultFigures{Decisions: 180, Allowed: 20, Denied: 60, Errors: 100, AllowedOnError: allowedOnError, DeniedOnError: deniedOnError},
						Recovery:   result.FaultFigures{Decisions: 40, Allowed: 20, Denied: 20, EndMs: 1843},
						RecoveryMs: 340, Recovered: true, ClientCallsPerDecision: 1.83, ServerCallsPerDecision: 0.5,
						ErrorLatencyUs: result.Latency{P99: 110_000}},
					{Kind: "restart", ScheduledStartMs: 2500, ScheduledEndMs: 2500, ObservedStartMs: 2510, ObservedEndMs: 2540,
						Recovery:  result.FaultFigures{EndMs: 3000},
						StateLost: &result.StateLoss{Identities: 7, Admitted: 12}, ServerCallsUnavailable: "the server restarted"},
				},
			},
		}
	}
	quiet := run("", 0, 0)
	quiet.Scenario, quiet.Faults, quiet.Requests = "steady", nil, result.Requests{Sent: 1000, Allowed: 500, Denied: 500}
	r.Runs = []result.Run{run(result.FailOpen, 100, 0), run(result.FailClosed, 0, 100), quiet}
	return r
}

func TestSummaryShowsFaultsAndPolicies(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummary(&b, faultResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"1000-1500", "1002-1503", // the pause: scheduled, and seen by the server
		"180 20/60/100 +100",    // fail_open's window: its admissions on error among the errors
		"180 20/60/100 -100",    // fail_closed's window: its denials on error
		"340ms",                 // the recovery
		"not by 3s",             // the restart's recovery never finished
		"1.83|0.50",             // calls per decision, the client's and the server's
		"0.00|-",                // the server's count unavailable across the restart
		"110ms",                 // how long a caller waited for the policy
		"7 ids, 12 let through", // the state the restart lost
		"error policies side by side",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// One comparison row per policy, the scenario without its suffix; the
	// run without faults is in neither table.
	rows := PolicyComparisons(faultResult())
	if len(rows) != 2 || rows[0].OnError != result.FailOpen || rows[1].OnError != result.FailClosed || rows[0].Scenario != "outage" {
		t.Errorf("comparison rows %+v", rows)
	}
	if strings.Count(out, "steady") != 1 {
		t.Errorf("the run without faults is in the fault tables:\n%s", out)
	}
}

// TestSummaryWithoutFaults: a result without faults prints neither table.
func TestSummaryWithoutFaults(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummary(&b, resulttest.Sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "faults (") || strings.Contains(b.String(), "side by side") {
		t.Errorf("faults tables without faults:\n%s", b.String())
	}
}

// TestFaultsTellTheirStoryFirst: the decision table shows each error
// policy's cost beside how far Redis's own admissions went past the policy;
// lateness inside the scheduled faults is theirs, so a run late only there
// is not generator-bound, and its worst p99 says it was measured through
// the faults; lateness outside them is the generator's still.
func TestFaultsTellTheirStoryFirst(t *testing.T) {
	r := faultResult()
	for i := range r.Runs[:2] {
		run := &r.Runs[i]
		run.LatencyUs = result.Latency{Count: 1000, P99: 240_000}
		// 150 late sends, 140 of them while the faults held the callers.
		run.Requests.Late, run.Faults.Late = 150, 140
	}
	if ScheduleSlipped(&r.Runs[0]) || GeneratorLate(&r.Runs[0]) != 10 {
		t.Errorf("late only in the faults: slipped %v, the generator's %d; want not slipped, 10", ScheduleSlipped(&r.Runs[0]), GeneratorLate(&r.Runs[0]))
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	decision := out[strings.Index(out, "which limiter"):strings.Index(out, "\nnotes:")]
	for _, want := range []string{
		"fail_open cost", "fail_closed cost", // a column per policy, beside the policy's excess
		"10 past the policy, 50 let through", // fail_open: faults.policy_excess, admitted_by_fault
		"25 denied in error",                 // fail_closed: denied_by_fault
		"240ms (outage-fail_open, in faults)",
		"measured through the scheduled faults",
	} {
		if !strings.Contains(decision, want) {
			t.Errorf("the decision table lacks %q:\n%s", want, decision)
		}
	}
	if strings.Contains(out, "generator-bound") || strings.Contains(out, "late sends") {
		t.Errorf("lateness inside the faults blamed on the generator:\n%s", out)
	}
	r.Runs[0].Requests.Late = 400 // 260 outside the faults: 26% of 1000
	if !ScheduleSlipped(&r.Runs[0]) {
		t.Error("260 late sends outside the faults: not slipped")
	}
}
