package result

import "testing"

// TestCombineAudits: the audits of runs on disjoint keys add up as
// segments' do: counts summed, the busiest window the busiest of any,
// a finding in any run kept, the power any run had, and the coverage
// over every run's decisions.
func TestCombineAudits(t *testing.T) {
	step := func(decisions, allowed, maxWin, overshoot int64, excess bool) *Run {
		return &Run{
			Requests: Requests{Sent: decisions, Allowed: allowed, Denied: decisions - allowed},
			Audit: &Audit{Identities: 10, Decisions: decisions, Allowed: allowed, ExpectedAllowed: allowed, MaxWindowAdmitted: maxWin,
				BoundWindow: 10, Overshoot: overshoot, Violations: min(overshoot, 1), Coverage: 1, Basis: AuditByModel,
				Power: &Power{Replayed: true, Excess: excess, OfferedMaxInWindow: maxWin}},
		}
	}
	got := CombineAudits([]*Run{step(100, 50, 8, 0, false), step(400, 100, 12, 2, true), {Requests: Requests{Sent: 10, Allowed: 10}}})
	if got == nil || got.Decisions != 500 || got.Allowed != 150 || got.Identities != 20 || got.MaxWindowAdmitted != 12 ||
		got.Overshoot != 2 || got.Violations != 1 || got.BoundWindow != 10 || !got.Power.Excess || got.Power.OfferedMaxInWindow != 12 {
		t.Errorf("combined %+v (power %+v)", got, got.Power)
	}
	// 500 audited of 510 decisions: the run without an audit counts.
	if got.Coverage != 500.0/510 {
		t.Errorf("coverage %v, want %v", got.Coverage, 500.0/510)
	}
	if CombineAudits(nil) != nil || CombineAudits([]*Run{{}}) != nil {
		t.Errorf("no audit combines into one")
	}
}
