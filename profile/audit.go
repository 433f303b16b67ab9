package profile

import "github.com/rlbench/rlbench/algorithms"

var auditFields = []string{"identities"}

func parseAudit(d *decoder, top *yamlMap) AuditSpec {
	a := AuditSpec{Identities: DefaultAuditIdentities}
	if !top.has("audit") {
		return a
	}
	f := d.mapping(top.values["audit"], "audit", auditFields...)
	f.intField("identities", &a.Identities, 0)
	return a
}

// parseIdeal reads the ideal limiter the profile's policy is read as;
// empty when the profile names none (each run's policy then decides:
// algorithms.DefaultIdeal).
func parseIdeal(top *yamlMap) algorithms.Ideal {
	n := top.scalar("ideal")
	if n == nil {
		return ""
	}
	i, err := algorithms.ParseIdeal(n.Value)
	if err != nil {
		top.errorf("ideal", "%v: the ideal limiter every run's decisions are set beside", err)
	}
	return i
}
