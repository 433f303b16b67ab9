package main

import (
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// addAudit puts what the audit found, and how a run that scheduled in
// server time aligned its clock, into the result contract.
func addAudit(run *report.Run, r *workload.RunResult) {
	if a := r.Audit; a != nil {
		run.Audit = &report.Audit{
			Identities:        a.Identities,
			Sampled:           a.Sampled,
			Decisions:         a.Decisions,
			Allowed:           a.Allowed,
			ExpectedAllowed:   a.ExpectedAllowed,
			ModelMismatches:   a.ModelMismatches,
			Overshoot:         a.Overshoot,
			PolicyExcess:      a.PolicyExcess,
			MaxWindowAdmitted: a.MaxWindowAdmitted,
			BoundWindow:       a.BoundWindow,
			Violations:        a.Violations,
		}
	}
	if c := r.ClockOffset; c != nil {
		run.ClockOffset = &report.ClockOffset{
			OffsetUs:      c.Offset.Microseconds(),
			UncertaintyUs: c.Uncertainty.Microseconds(),
			RTTUs:         c.RTT.Microseconds(),
			Samples:       c.Samples,
		}
	}
	if s := r.Scenario; s.Shape == workload.ShapeBoundary {
		b := s.Boundary
		run.Params.Arrival = ""
		run.Params.Boundary = &report.BoundaryParams{
			Burst:     b.Burst,
			OffsetMs:  float64(b.Offset.Microseconds()) / 1000,
			SpreadMs:  float64(b.Spread.Microseconds()) / 1000,
			StaggerMs: float64(b.Stagger.Microseconds()) / 1000,
		}
	}
}
