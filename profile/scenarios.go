package profile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/suggest"
	"github.com/rlbench/rlbench/plan"
)

// scenarioFields lists, per shape, the fields a scenario of that shape takes.
var scenarioFields = map[plan.Shape][]string{
	plan.ShapeSteady:      {"name", "shape", "rate", "arrival", "identities", "distribution", "zipf_exponent", "duration", "requests", "concurrency", "pipeline"},
	plan.ShapeRamp:        rampFields,
	plan.ShapeBoundary:    boundaryFields,
	plan.ShapeCardinality: cardinalityFields,
	plan.ShapeCapacity:    capacityFields,
	plan.ShapeReplay:      replayFields,
}

// parseScenarios reads the scenarios list; pol is the profile's policy, or
// nil when it is wrong (what depends on it is then not checked), and fleet
// the profile's fleet (nil when it has none, or a wrong one).
func parseScenarios(d *decoder, top *yamlMap, pol *algorithms.Policy, fleet *plan.Fleet) []Scenario {
	items := top.sequence("scenarios")
	if len(items) == 0 {
		top.errorf("scenarios", "missing: give at least one scenario")
		return nil
	}
	var out []Scenario
	seen := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("scenarios[%d]", i)
		s, sizes, skews, ok := parseScenario(d, n, path, pol, fleet, top.has("fleet"))
		if !ok {
			continue
		}
		for _, sized := range s.splitSizes(sizes) {
			for _, s := range splitSkews(d, sized, skews) {
				if first, dup := seen[s.Name]; dup {
					d.errorf(s.Line, path+".name", "%q is already the name of scenarios[%d]; give each scenario its own name", s.Name, first)
					continue
				}
				seen[s.Name] = i
				out = append(out, s)
			}
		}
	}
	return out
}

// parseScenario reads one scenario; sizes is the list of identities it
// gives, and skews the list of clock skews, when it gives several.
func parseScenario(d *decoder, n *yaml.Node, path string, pol *algorithms.Policy, fleet *plan.Fleet, fleetGiven bool) (s Scenario, sizes []int, skews []time.Duration, ok bool) {
	s = Scenario{Line: n.Line, Arrival: plan.Uniform, Identities: DefaultIdentities}
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, path, "want a mapping of fields, got %s", describe(n))
		return s, nil, nil, false
	}
	// Read the shape first: it decides which other fields are allowed.
	var shape string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "shape" {
			shape = n.Content[i+1].Value
		}
	}
	known, valid := scenarioFields[plan.Shape(shape)]
	if !valid {
		line := n.Line
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "shape" {
				line = n.Content[i].Line
			}
		}
		switch hint := suggest.Closest(shape, shapeNames(), 3); {
		case shape == "":
			d.errorf(line, path+".shape", "missing (known: %s)", strings.Join(shapeNames(), ", "))
		case hint != "":
			d.errorf(line, path+".shape", "unknown shape %q (did you mean %q? known: %s)", shape, hint, strings.Join(shapeNames(), ", "))
		default:
			d.errorf(line, path+".shape", "unknown shape %q (known: %s)", shape, strings.Join(shapeNames(), ", "))
		}
		return s, nil, nil, false
	}
	s.Shape = plan.Shape(shape)
	f := d.mapping(n, path, append(slices.Clone(known), "policy", "faults", "hash_tag", "accept_inconclusive", "cost", "clock_skew")...)
	before := len(d.errs)
	s.Name = shape
	f.str("name", &s.Name)
	if !namePattern.MatchString(s.Name) {
		f.errorf("name", "%q must be 1-64 letters, digits, '.', '_' or '-'", s.Name)
	}
	f.intField("concurrency", &s.Concurrency, 1)
	parseHashTag(f, &s)
	f.boolean("accept_inconclusive", &s.AcceptInconclusive)
	s.Pipeline = parsePipeline(f)
	if f.has("policy") {
		pol = parseScenarioPolicy(d, f, pol)
		if pol != nil {
			s.Policy = *pol
		}
	}
	switch s.Shape {
	case plan.ShapeSteady:
		parseSteady(f, &s)
	case plan.ShapeBoundary:
		parseBoundary(f, &s, pol)
	case plan.ShapeCardinality:
		sizes = parseCardinality(f, &s)
	case plan.ShapeRamp:
		parseRamp(f, &s, pol)
	case plan.ShapeCapacity:
		parseCapacity(f, &s, pol)
	case plan.ShapeReplay:
		parseReplay(f, &s)
	}
	parseFaults(f, &s)
	if s.Shape == plan.ShapeCapacity && len(s.Faults) > 0 {
		f.errorf("faults", "a capacity search takes what breaks its SLO for the limiter's doing: run faults in a scenario of another shape")
	}
	parseCost(f, &s)
	skews = parseClockSkew(f, &s, fleet, fleetGiven)
	return s, sizes, skews, len(d.errs) == before
}

func shapeNames() []string {
	names := make([]string, len(plan.Shapes))
	for i, s := range plan.Shapes {
		names[i] = string(s)
	}
	return names
}

func parseSteady(f *yamlMap, s *Scenario) {
	parseLoad(f, s)
	f.intField("identities", &s.Identities, 1)
	parseIdentityChoice(f, s, plan.UniformIdentities, plan.ZipfIdentities)
	parseBounds(f, s)
}

// parseLoad reads the offered load: rate, and arrival for an open loop.
func parseLoad(f *yamlMap, s *Scenario) {
	if n := f.scalar("rate"); n != nil {
		r, err := ParseRate(n.Value)
		if err != nil {
			f.errorf("rate", "%v", err)
		}
		s.Rate = r
	} else if !f.has("rate") {
		f.errorf("rate", "missing: give a rate like 500/s, 2x (twice what the policy admits) or max (closed loop)")
	}
	parseArrival(f, s)
	if s.Rate.Max && f.has("arrival") {
		f.errorf("arrival", "has no meaning with rate: max (closed loop)")
	}
}

// parseArrival reads how open-loop arrivals are spaced.
func parseArrival(f *yamlMap, s *Scenario) {
	if n := f.scalar("arrival"); n != nil {
		switch plan.Arrival(n.Value) {
		case plan.Uniform, plan.Poisson:
			s.Arrival = plan.Arrival(n.Value)
		default:
			f.errorf("arrival", "%q is not uniform or poisson", n.Value)
		}
	}
}

// parseBounds reads how long a scenario runs: a duration, a number of
// requests, or both.
func parseBounds(f *yamlMap, s *Scenario) {
	f.duration("duration", &s.Duration, time.Millisecond)
	f.integer("requests", &s.Requests, 1)
	if !f.has("duration") && !f.has("requests") {
		f.errorf("duration", "missing: give a duration like 10s, or a number of requests")
	}
	if s.Duration == 0 && s.Requests > 0 {
		// A count alone still needs an upper bound in time.
		s.Duration = time.Hour
	}
}
