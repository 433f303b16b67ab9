package profile

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// parseThresholds reads the thresholds list. Each rule must parse against
// the result contract (a field that exists, units that fit it) and, when
// the plan is known, select at least one of its runs: a rule that can
// never apply is an error, never a silent pass.
func parseThresholds(top *yamlMap, pl *plan.Plan, p *Profile) []*result.Threshold {
	var runs []string
	if pl != nil {
		for _, r := range pl.Runs {
			runs = append(runs, r.Key())
		}
	}
	var out []*result.Threshold
	for i, n := range top.sequence("thresholds") {
		field := fmt.Sprintf("thresholds[%d]", i)
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			top.d.errorf(n.Line, field, `want a rule like "*/* audit.overshoot == 0", got %s`, describe(n))
			continue
		}
		t, err := result.ParseThreshold(n.Value)
		if err != nil {
			top.d.errorf(n.Line, field, "%v", err)
			continue
		}
		if pl != nil && !t.MatchesAny(runs) {
			top.d.errorf(n.Line, field, "selector %s/%s matches no run (algorithms: %s; scenarios: %s)",
				t.Algorithm, t.Scenario, strings.Join(p.Algorithms, ", "), strings.Join(p.ScenarioNames(), ", "))
			continue
		}
		out = append(out, t)
	}
	return out
}
