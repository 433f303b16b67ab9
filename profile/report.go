package profile

var reportFields = []string{"identities"}

func parseReport(d *decoder, top *yamlMap) ReportSpec {
	var r ReportSpec
	if !top.has("report") {
		return r
	}
	f := d.mapping(top.values["report"], "report", reportFields...)
	f.integer("identities", &r.Identities, 1)
	return r
}
