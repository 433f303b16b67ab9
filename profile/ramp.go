package profile

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// rampFields are the fields a ramp scenario takes.
var rampFields = []string{"name", "shape", "from", "stages", "arrival", "identities", "distribution", "zipf_exponent", "concurrency", "pipeline"}

var stageFields = []string{"rate", "duration"}

// maxStages bounds a ramp's list of stages.
const maxStages = 1000

// parseRamp reads a ramp: where it starts (from), and its stages, each a
// rate to reach and the time to reach it in. The scenario's duration is
// the stages' total; its rate is their average, worked out with the
// policy (a rate like 2x needs it).
func parseRamp(f *yamlMap, s *Scenario, pol *algorithms.Policy) {
	openRate(f, "from", &s.From, "a ramp")
	parseArrival(f, s)
	f.intField("identities", &s.Identities, 1)
	parseIdentityChoice(f, s, plan.UniformIdentities, plan.ZipfIdentities)
	items := f.sequence("stages")
	if !f.has("stages") || len(items) == 0 {
		f.errorf("stages", "missing: give the stages, e.g. [{rate: 1x, duration: 10s}, {rate: 4x, duration: 30s}]")
		return
	}
	if len(items) > maxStages {
		f.errorf("stages", "%d stages is more than %d", len(items), maxStages)
		return
	}
	for i, n := range items {
		st, ok := parseStage(f.d, n, fmt.Sprintf("%s[%d]", f.join("stages"), i))
		if !ok {
			continue
		}
		s.Stages = append(s.Stages, st)
		total, ok := checkedSpan(st.Duration, 1, s.Duration)
		if !ok {
			f.errorf("stages", "the stages last more than %s", MaxDuration)
			return
		}
		s.Duration = total
	}
	if pol != nil && len(s.Stages) == len(items) {
		total := RampRequests(s.From, s.Stages, *pol, s.Identities)
		if total < 1 {
			f.errorf("stages", "the ramp offers no request at all")
			return
		}
		s.Rate = Rate{PerSecond: total / s.Duration.Seconds()}
	}
}

func parseStage(d *decoder, n *yaml.Node, path string) (Stage, bool) {
	before := len(d.errs)
	f := d.mapping(n, path, stageFields...)
	var st Stage
	if !openRate(f, "rate", &st.Rate, "a ramp") && !f.has("rate") {
		f.errorf("rate", "missing: give the rate this stage ramps to, e.g. 2x or 500/s")
	}
	f.duration("duration", &st.Duration, time.Millisecond)
	if !f.has("duration") {
		f.errorf("duration", "missing: give how long the stage lasts, e.g. 10s")
	}
	return st, len(d.errs) == before
}

// openRate reads key as an open-loop rate (not max) into dst; it reports
// whether key was given as a single value. shape names what is open loop,
// for the message: "a ramp".
func openRate(f *yamlMap, key string, dst *Rate, shape string) bool {
	n := f.scalar(key)
	if n == nil {
		return false
	}
	r, err := ParseRate(n.Value)
	switch {
	case err != nil:
		f.errorf(key, "%v", err)
	case r.Max:
		f.errorf(key, "%s is open loop: give a rate like 500/s or 2x, not max", shape)
	default:
		*dst = r
	}
	return true
}

// RampRequests is how many requests a ramp from `from` through stages
// offers for identities callers under policy p: the area under its rate.
func RampRequests(from Rate, stages []Stage, p algorithms.Policy, identities int) float64 {
	total, prev := 0.0, from.TargetPerSecond(p, identities)
	for _, st := range stages {
		next := st.Rate.TargetPerSecond(p, identities)
		total += (prev + next) / 2 * st.Duration.Seconds()
		prev = next
	}
	return total
}
