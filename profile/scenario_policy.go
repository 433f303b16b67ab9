package profile

import "github.com/rlbench/rlbench/algorithms"

// PolicyFor is the policy the runs of s enforce: the scenario's own, when
// it overrides the profile's, else the profile's.
func (p *Profile) PolicyFor(s Scenario) algorithms.Policy {
	if s.Policy.Limit > 0 {
		return s.Policy
	}
	return p.Policy
}

// parseScenarioPolicy reads a scenario's policy: any of limit, window and
// burst, each replacing the profile's (a burst left out stays the
// profile's, or follows the limit when the profile gives none). It returns
// the scenario's policy, or nil when it or the profile's is wrong.
func parseScenarioPolicy(d *decoder, scenario *yamlMap, profilePolicy *algorithms.Policy) *algorithms.Policy {
	f := d.mapping(scenario.values["policy"], scenario.join("policy"), policyFields...)
	var p algorithms.Policy
	if profilePolicy != nil {
		p = *profilePolicy
	}
	before := len(d.errs)
	readPolicy(f, &p)
	if profilePolicy == nil || len(d.errs) > before {
		return nil
	}
	checkPolicy(f, scenario, "policy", p)
	if len(d.errs) > before {
		return nil
	}
	return &p
}
