package profile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/plan"
)

// parseIdentityChoice reads how a scenario picks identities: distribution
// (one of allowed), repeats after a sequential pass, and the Zipf exponent
// when Zipf draws are used. s.Distribution holds the default on entry.
func parseIdentityChoice(f *yamlMap, s *Scenario, allowed ...plan.Distribution) {
	if n := f.scalar("distribution"); n != nil {
		if d := plan.Distribution(n.Value); slices.Contains(allowed, d) {
			s.Distribution = d
		} else {
			names := make([]string, len(allowed))
			for i, a := range allowed {
				names[i] = string(a)
			}
			f.errorf("distribution", "%q is not %s", n.Value, orList(names))
		}
	}
	if slices.Contains(allowed, plan.SequentialIdentities) {
		f.integer("repeats", &s.Repeats, 1)
		if f.has("repeats") && s.Distribution != plan.SequentialIdentities {
			f.errorf("repeats", "only follows a sequential pass (distribution: sequential)")
		}
	}
	usesZipf := s.Distribution == plan.ZipfIdentities || s.Repeats > 0
	switch {
	case f.has("zipf_exponent"):
		f.float("zipf_exponent", &s.ZipfExponent)
		switch {
		case !usesZipf:
			with := string(s.Distribution)
			if with == "" {
				with = "left to the arrivals"
			}
			f.errorf("zipf_exponent", "has no meaning with distribution %s (only with zipf%s)", with, map[bool]string{true: ", or with repeats after a sequential pass"}[slices.Contains(allowed, plan.SequentialIdentities)])
		case !(s.ZipfExponent > 1):
			f.errorf("zipf_exponent", "must be more than 1 (the exponent s of a Zipf distribution), got %v", f.values["zipf_exponent"].Value)
		}
	case usesZipf:
		s.ZipfExponent = plan.DefaultZipfExponent
	}
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return fmt.Sprintf("%s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}
