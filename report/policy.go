package report

import "github.com/rlbench/rlbench/result"

// RunPolicy is the policy run enforced: its own parameters (a scenario may
// override the profile's policy), or the profile's when the run does not
// carry them (results written before runs did).
func RunPolicy(r *result.Result, run *result.Run) result.PolicyInfo {
	p := r.Profile.Policy
	if run.Params.Limit > 0 {
		p.Limit = run.Params.Limit
	}
	if run.Params.WindowMs > 0 {
		p.WindowMs = run.Params.WindowMs
	}
	if run.Params.Capacity > 0 {
		p.Burst = run.Params.Capacity
	}
	return p
}

// MixedPolicies reports whether some run enforced a policy other than the
// profile's.
func MixedPolicies(r *result.Result) bool {
	for i := range r.Runs {
		if RunPolicy(r, &r.Runs[i]) != r.Profile.Policy {
			return true
		}
	}
	return false
}

// AuditWindowMs is the interval run's audit counted admissions over: a
// declared limiter's own promise, else the window of the run's policy.
func AuditWindowMs(r *result.Result, run *result.Run) int64 {
	if a := run.Audit; a != nil && a.WindowMs > 0 {
		return a.WindowMs
	}
	return RunPolicy(r, run).WindowMs
}
