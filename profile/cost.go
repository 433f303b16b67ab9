package profile

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
)

// costFields are the forms of a scenario's cost given as a mapping.
var costFields = []string{"uniform", "weights"}

// parseCost reads a scenario's cost: how many units each request asks for,
// passed to a declared limiter as ${cost}. It is a whole number (cost: 3),
// a range drawn uniformly (cost: {uniform: [1, 5]}), or values drawn by
// weight (cost: {weights: {1: 90, 5: 9, 20: 1}}).
func parseCost(f *yamlMap, s *Scenario) {
	if !f.has("cost") {
		return
	}
	n := f.values["cost"]
	s.CostLine = f.lineOf("cost")
	var c algorithms.Cost
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := wholeNumber(n)
		if err != nil {
			f.errorf("cost", "%v: give a whole number of units, {uniform: [1, 5]} or {weights: {1: 90, 5: 10}}", err)
			return
		}
		c = algorithms.FixedCost(v)
	case yaml.MappingNode:
		cf := f.d.mapping(n, f.join("cost"), costFields...)
		switch {
		case cf.has("uniform") && cf.has("weights"):
			cf.errorf("weights", "give either uniform or weights, not both")
			return
		case cf.has("uniform"):
			items := cf.sequence("uniform")
			if len(items) != 2 {
				cf.errorf("uniform", "want [lowest, highest], two whole numbers")
				return
			}
			var bounds [2]int64
			for i, item := range items {
				v, err := wholeNumber(item)
				if err != nil || item.Kind != yaml.ScalarNode {
					f.d.errorf(item.Line, fmt.Sprintf("%s[%d]", cf.join("uniform"), i), "%q is not a whole number", item.Value)
					return
				}
				bounds[i] = v
			}
			c = algorithms.UniformCost(bounds[0], bounds[1])
		case cf.has("weights"):
			w := cf.values["weights"]
			if w.Kind != yaml.MappingNode || len(w.Content) == 0 {
				cf.errorf("weights", "want a mapping of cost to weight, e.g. {1: 90, 5: 10}")
				return
			}
			for i := 0; i+1 < len(w.Content); i += 2 {
				k, v := w.Content[i], w.Content[i+1]
				field := fmt.Sprintf("%s.%s", cf.join("weights"), k.Value)
				cost, err := wholeNumber(k)
				if err != nil {
					f.d.errorf(k.Line, field, "the cost %q is not a whole number", k.Value)
					return
				}
				weight, err := wholeNumber(v)
				if err != nil || v.Kind != yaml.ScalarNode {
					f.d.errorf(v.Line, field, "the weight %q is not a whole number", v.Value)
					return
				}
				c.Values, c.Weights = append(c.Values, cost), append(c.Weights, weight)
			}
		default:
			cf.errorf("uniform", "missing: give uniform: [lowest, highest] or weights: {cost: weight, ...}")
			return
		}
	default:
		f.errorf("cost", "want a whole number, {uniform: [1, 5]} or {weights: {1: 90, 5: 10}}, got %s", describe(n))
		return
	}
	if err := c.Validate(); err != nil {
		f.errorf("cost", "%v", err)
		return
	}
	s.Cost = c
}

// checkCosts checks each scenario's cost against what runs in it: a
// declared limiter that is told the cost (${cost}), and a policy that can
// admit the cheapest request.
func checkCosts(d *decoder, top *yamlMap, p *Profile) {
	// A scenario of several sizes or error policies runs as several, from
	// one cost line: one message for it.
	reported := map[int]bool{}
	for _, s := range p.Scenarios {
		if s.Cost.IsOne() || reported[s.CostLine] {
			continue
		}
		reported[s.CostLine] = true
		field := "scenarios.cost"
		for i, n := range top.sequence("scenarios") {
			if n.Line == s.Line {
				field = fmt.Sprintf("scenarios[%d].cost", i)
			}
		}
		told := false
		for _, name := range p.Algorithms {
			if decl := p.Declaration(name); decl != nil && decl.UsesCost() {
				told = true
			}
		}
		if !told {
			d.errorf(s.CostLine, field, "%s units per request, but no limiter here takes ${cost} in its args: every request would still ask for one", s.Cost)
			continue
		}
		pol := p.PolicyFor(s)
		if lo, _ := s.Cost.Range(); lo > max(pol.Limit, pol.Capacity()) {
			d.errorf(s.CostLine, field, "the cheapest request asks for %d units, more than the policy %s ever admits at once: every request would be denied", lo, pol)
		}
	}
}
