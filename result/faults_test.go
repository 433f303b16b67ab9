package result

import "testing"

// TestRepeatsAddThePolicysDecisions: a repeated run's requests are the sum
// of its repetitions', the error policy's decisions included, so that
// sent = allowed + denied + errors and fail_closed's zero admissions on
// error still hold; its faults come from the median repetition.
func TestRepeatsAddThePolicysDecisions(t *testing.T) {
	rep := func(p99 int64, q Requests, excess int64) Run {
		return Run{Algorithm: "fixed_window", Scenario: "outage", LatencyUs: Latency{P99: p99}, Requests: q,
			Faults: &Faults{PolicyExcess: excess}}
	}
	out := MergeRepeats([]Run{
		rep(10, Requests{Sent: 10, Allowed: 4, Denied: 3, Errors: 3, FaultErrors: 3, DeniedOnError: 3}, 0),
		rep(20, Requests{Sent: 12, Allowed: 5, Denied: 3, Errors: 4, FaultErrors: 4, DeniedOnError: 4}, 2),
		rep(30, Requests{Sent: 11, Allowed: 5, Denied: 4, Errors: 2, FaultErrors: 1, DeniedOnError: 2}, 1),
	})
	q := out.Requests
	if q.Sent != 33 || q.Allowed+q.Denied+q.Errors != q.Sent || q.DeniedOnError != 9 || q.AllowedOnError != 0 || q.FaultErrors != 8 {
		t.Errorf("merged requests %+v", q)
	}
	if out.Faults.PolicyExcess != 2 {
		t.Errorf("policy excess %d, want the worst repetition's 2", out.Faults.PolicyExcess)
	}
}
