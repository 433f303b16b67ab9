package workload

// DefaultAuditIdentities is how many identities a run audits in full when
// the profile does not say.
const DefaultAuditIdentities = 10_000

// AuditSpec is the profile's audit section.
type AuditSpec struct {
	// Identities is the most identities of one run whose every decision is
	// kept and replayed; beyond it a sample of that size is drawn with the
	// profile's seed. Zero turns the per-identity audit off.
	Identities int
}

var auditFields = []string{"identities"}

func parseAudit(d *decoder, top *fields) AuditSpec {
	a := AuditSpec{Identities: DefaultAuditIdentities}
	if !top.has("audit") {
		return a
	}
	f := d.mapping(top.values["audit"], "audit", auditFields...)
	f.intField("identities", &a.Identities, 0)
	return a
}
