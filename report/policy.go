package report

import "github.com/rlbench/rlbench/result"

// MixedPolicies reports whether some run enforced a policy other than the
// profile's.
func MixedPolicies(r *result.Result) bool {
	for i := range r.Runs {
		if r.RunPolicy(&r.Runs[i]) != r.Profile.Policy {
			return true
		}
	}
	return false
}
