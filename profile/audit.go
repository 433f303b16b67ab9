package profile

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
