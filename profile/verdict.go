package profile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/result"
)

// parseVerdictRules reads what changes the verdict's defaults:
// expect_broken, the limiters run as negative controls (each must be one
// of own, the algorithms the profile lists, once), and error_budget, a
// percentage of each run's decisions. A negative control that --algorithms
// leaves out of p.Algorithms is not expected of this invocation: it is
// kept aside for a warning, so that a subset of a profile with controls
// can be run.
func parseVerdictRules(top *yamlMap, p *Profile, own []string) {
	p.ErrorBudget = result.DefaultErrorBudget
	if n := top.scalar("error_budget"); n != nil {
		budget, err := parsePercentage(n.Value)
		if err != nil {
			top.errorf("error_budget", "%v", err)
		} else {
			p.ErrorBudget = budget
		}
	}
	for i, n := range top.sequence("expect_broken") {
		field := fmt.Sprintf("expect_broken[%d]", i)
		switch {
		case n.Kind != yaml.ScalarNode:
			top.d.errorf(n.Line, field, "want an algorithm name, got %s", describe(n))
		case !slices.Contains(own, n.Value):
			top.d.errorf(n.Line, field, "%q is not among the algorithms this profile runs (%s): a negative control must run to be caught",
				n.Value, strings.Join(own, ", "))
		case slices.Contains(p.ExpectBroken, n.Value) || slices.Contains(p.brokenLeftOut, n.Value):
			top.d.errorf(n.Line, field, "%q is listed twice", n.Value)
		case !slices.Contains(p.Algorithms, n.Value):
			p.brokenLeftOut, p.brokenLine = append(p.brokenLeftOut, n.Value), top.lineOf("expect_broken")
		default:
			p.ExpectBroken = append(p.ExpectBroken, n.Value)
		}
	}
}

// verdictWarnings say which negative controls --algorithms left out: the
// run then has no proof of those that its audit catches what it must.
func (p *Profile) verdictWarnings() []string {
	if len(p.brokenLeftOut) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s:%d: expect_broken: %s not run (--algorithms leaves it out): this invocation has no such negative control",
		p.Path, p.brokenLine, strings.Join(p.brokenLeftOut, ", "))}
}

// parsePercentage reads "0.1%" (or "0") as the fraction 0.001: a bare
// number other than 0 is refused, as 1 could mean 1% or 100%.
func parsePercentage(s string) (float64, error) {
	bad := fmt.Errorf("%q is not a percentage from 0%% to 100%% like 0.1%%", s)
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, bad
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, bad
	}
	return v / 100, nil
}
