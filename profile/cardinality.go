package profile

import (
	"strconv"
	"time"

	"github.com/rlbench/rlbench/plan"
)

var cardinalityFields = []string{"name", "shape", "identities", "distribution", "zipf_exponent", "repeats",
	"rate", "arrival", "duration", "requests", "concurrency", "pipeline"}

// parseCardinality reads a cardinality scenario. identities may be one
// number or a list of sizes; it returns the list, which splitSizes turns
// into one scenario per size once the scenario is known to be valid.
func parseCardinality(f *yamlMap, s *Scenario) (sizeList []int) {
	parseLoad(f, s)
	sizes, list, ok := f.counts("identities", 1)
	switch {
	case !f.has("identities"):
		f.errorf("identities", "missing: give a number of identities, or a list of sizes to draw a curve, e.g. [10000, 100000, 1000000]")
	case ok && list:
		sizeList = sizes
	case ok:
		s.Identities = sizes[0]
	}

	s.Distribution = plan.UniformIdentities
	parseIdentityChoice(f, s, plan.UniformIdentities, plan.ZipfIdentities, plan.SequentialIdentities)

	if s.Distribution != plan.SequentialIdentities {
		parseBounds(f, s)
		return sizeList
	}
	if f.has("requests") {
		f.errorf("requests", "has no meaning with distribution sequential: each identity gets one request, then the repeats")
	}
	f.duration("duration", &s.Duration, time.Millisecond)
	if s.Duration == 0 {
		// The count (identities + repeats) bounds the run; this bounds it
		// in time too.
		s.Duration = time.Hour
	}
	return sizeList
}

// splitSizes returns the scenarios a parsed scenario stands for: itself,
// or one scenario per size when it lists several, each named <name>-<size>
// so its keys and its line in the results are its own.
func (s Scenario) splitSizes(sizes []int) []Scenario {
	if sizes == nil {
		return []Scenario{s.sized(s.Identities)}
	}
	out := make([]Scenario, 0, len(sizes))
	for _, n := range sizes {
		c := s.sized(n)
		c.Group = s.Name
		c.Name = s.Name + "-" + sizeLabel(n)
		out = append(out, c)
	}
	return out
}

// sized is s with n identities.
func (s Scenario) sized(n int) Scenario {
	s.Identities = n
	if s.Shape == plan.ShapeCardinality && s.Distribution == plan.SequentialIdentities {
		s.Requests = int64(n) + s.Repeats
	}
	return s
}

// sizeLabel writes a number of identities briefly and exactly: 10000 is
// 10k, 1000000 is 1M, 1500 stays 1500.
func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	default:
		return strconv.Itoa(n)
	}
}
