package profile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

var fleetFields = []string{"instances", "clock_skew", "offsets", "drift", "sticky"}

// MaxSkewSteps bounds how many clock skews one scenario sweeps.
const MaxSkewSteps = 32

// parseFleet reads the fleet section: how many application instances send
// the load, their clocks (spread over ±clock_skew, or each offset
// listed), how their clocks drift, and whether each identity keeps to one.
func parseFleet(d *decoder, top *yamlMap) *plan.Fleet {
	f := d.mapping(top.values["fleet"], "fleet", fleetFields...)
	before := len(d.errs)
	n := 0
	f.intField("instances", &n, 1)
	if n > plan.MaxFleetInstances {
		f.errorf("instances", "%d is more than %d", n, plan.MaxFleetInstances)
	}
	var skew, drift time.Duration
	if f.has("clock_skew") {
		f.duration("clock_skew", &skew, 0)
		if skew > plan.MaxClockOffset {
			f.errorf("clock_skew", "%s is more than %s: a clock that far off is wrong, not skewed", skew, plan.MaxClockOffset)
		}
	}
	offsets := parseOffsets(f)
	switch {
	case f.has("clock_skew") && f.has("offsets"):
		f.errorf("offsets", "give either clock_skew (spread evenly over the instances) or offsets (one per instance), not both")
	case f.has("offsets") && f.has("instances") && len(offsets) > 0 && len(offsets) != n:
		f.errorf("offsets", "lists %d offsets for %d instances: give one per instance (or leave instances out)", len(offsets), n)
	case !f.has("offsets") && !f.has("instances"):
		f.errorf("instances", "missing: how many application instances send the load, e.g. 4 (or list each one's clock offset)")
	}
	if f.has("drift") {
		drift = parseDrift(f)
	}
	var sticky bool
	f.boolean("sticky", &sticky)
	if len(d.errs) > before {
		return nil
	}
	if f.has("offsets") {
		fl := &plan.Fleet{Offsets: offsets, Sticky: sticky, Drift: drift, Listed: true}
		if drift != 0 {
			fl.DriftPerMinute = plan.Spread(len(offsets), drift)
		}
		return fl
	}
	return plan.SpreadFleet(n, skew, drift, sticky)
}

// parseOffsets reads fleet.offsets: each instance's clock offset from the
// true time, positive ahead ("-250ms", "0", "1.5s").
func parseOffsets(f *yamlMap) []time.Duration {
	items := f.sequence("offsets")
	if f.has("offsets") && len(items) == 0 && f.values["offsets"].Kind == yaml.SequenceNode {
		f.errorf("offsets", "the list is empty")
	}
	if len(items) > plan.MaxFleetInstances {
		f.errorf("offsets", "%d offsets: at most %d instances", len(items), plan.MaxFleetInstances)
		return nil
	}
	var out []time.Duration
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", f.join("offsets"), i)
		v, err := skewValue(item)
		if err == nil && (v > plan.MaxClockOffset || v < -plan.MaxClockOffset) {
			err = fmt.Errorf("%s is further than %s from the true time: a clock that far off is wrong, not skewed", item.Value, plan.MaxClockOffset)
		}
		if err != nil {
			f.d.errorf(item.Line, field, "%v", err)
			continue
		}
		out = append(out, v)
	}
	return out
}

// skewValue reads a clock offset or skew: a duration like 250ms or
// -1.5s, or 0.
func skewValue(n *yaml.Node) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a duration like 250ms, got %s", describe(n))
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration like 250ms, -1.5s or 0", n.Value)
	}
	return v, nil
}

// driftPattern is a drift: a duration per second, minute or hour.
var driftPattern = regexp.MustCompile(`^([0-9.]+[a-zµ]+)\s*/\s*(s|min|h)$`)

// parseDrift reads fleet.drift, how far apart the instances' clocks
// drift: "5ms/min" spreads the instances' drifts evenly over -5ms to +5ms
// a minute.
func parseDrift(f *yamlMap) time.Duration {
	n := f.scalar("drift")
	if n == nil {
		return 0
	}
	m := driftPattern.FindStringSubmatch(strings.TrimSpace(n.Value))
	if m == nil {
		f.errorf("drift", "%q is not a drift like 5ms/min, 100us/s or 1s/h", n.Value)
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		f.errorf("drift", "%q is not a drift like 5ms/min, 100us/s or 1s/h", n.Value)
		return 0
	}
	per := map[string]float64{"s": 60, "min": 1, "h": 1.0 / 60}[m[2]]
	perMinute := float64(d) * per
	if perMinute > float64(plan.MaxDriftPerMinute) {
		f.errorf("drift", "%s is more than %s a minute: a clock that fast is broken, not drifting", n.Value, plan.MaxDriftPerMinute)
		return 0
	}
	return time.Duration(perMinute)
}

// parseClockSkew reads a scenario's clock_skew: one spread, or a list of
// them to sweep (one run each). It needs the profile's fleet, spread
// evenly (not listed).
func parseClockSkew(f *yamlMap, s *Scenario, fleet *plan.Fleet, fleetGiven bool) (sweep []time.Duration) {
	if !f.has("clock_skew") {
		return nil
	}
	switch {
	case !fleetGiven:
		f.errorf("clock_skew", "needs the profile's fleet section: how many application instances send the load, whose clocks it spreads")
		return nil
	case fleet != nil && fleet.Listed:
		f.errorf("clock_skew", "the fleet lists each instance's offset; a scenario's clock_skew spreads them evenly instead: give the fleet clock_skew, not offsets")
		return nil
	}
	n := f.values["clock_skew"]
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		switch {
		case len(items) == 0:
			f.errorf("clock_skew", "the list is empty")
			return nil
		case len(items) > MaxSkewSteps:
			f.errorf("clock_skew", "%d steps: at most %d", len(items), MaxSkewSteps)
			return nil
		}
	}
	var out []time.Duration
	for i, item := range items {
		field := f.join("clock_skew")
		if n.Kind == yaml.SequenceNode {
			field = fmt.Sprintf("%s[%d]", field, i)
		}
		v, err := skewValue(item)
		switch {
		case err != nil:
		case v < 0:
			err = fmt.Errorf("%s is negative: a skew spreads the clocks over -skew to +skew", item.Value)
		case v > plan.MaxClockOffset:
			err = fmt.Errorf("%s is more than %s: a clock that far off is wrong, not skewed", item.Value, plan.MaxClockOffset)
		case slices.Contains(out, v):
			err = fmt.Errorf("%s is listed twice", item.Value)
		}
		if err != nil {
			f.d.errorf(item.Line, field, "%v", err)
			continue
		}
		out = append(out, v)
	}
	if n.Kind != yaml.SequenceNode && len(out) == 1 {
		s.ClockSkew, s.SkewGiven = out[0], true
		return nil
	}
	return out
}

// splitSkews returns the scenarios a scenario that sweeps clock skews
// stands for: one per skew, named <name>-skew<skew> (sweep-skew50ms), so
// that each has keys and a line of its own, and the runs of one sweep
// draw one curve.
func splitSkews(d *decoder, s Scenario, skews []time.Duration) []Scenario {
	if skews == nil {
		return []Scenario{s}
	}
	out := make([]Scenario, 0, len(skews))
	for _, v := range skews {
		c := s
		c.ClockSkew, c.SkewGiven, c.Sweep = v, true, s.Name
		c.Name = s.Name + "-skew" + SkewLabel(v)
		if !namePattern.MatchString(c.Name) {
			d.errorf(s.Line, "name", "%q, the name of its run at a skew of %s, is longer than 64 characters: give the scenario a shorter name", c.Name, v)
			continue
		}
		out = append(out, c)
	}
	return out
}

// SkewLabel writes a skew as a scenario's name takes it: 0, 50ms, 1.5s,
// 250us.
func SkewLabel(v time.Duration) string {
	if v == 0 {
		return "0"
	}
	return strings.ReplaceAll(v.String(), "µ", "u")
}

// FleetFor is the fleet a run of scenario s comes from: the profile's,
// its clocks spread over the scenario's clock_skew when it gives one; nil
// without a fleet.
func (p *Profile) FleetFor(s Scenario) *plan.Fleet {
	if p.Fleet == nil {
		return nil
	}
	if s.SkewGiven {
		return p.Fleet.WithSkew(s.ClockSkew)
	}
	return p.Fleet
}

// checkFleet checks what the fleet needs of each scenario: a worker per
// instance, an open loop to keep identities to their instances, and
// clocks that stay within plan.MaxClockOffset of the true time over the
// run, drift included. Each rule is reported once, at the fleet's field.
func checkFleet(d *decoder, top *yamlMap, p *Profile) {
	if p.Fleet == nil {
		return
	}
	n := top.values["fleet"]
	for _, s := range p.Scenarios {
		fl := p.FleetFor(s)
		if c := p.RunConcurrency(s); c < fl.Instances() {
			d.errorf(keyLine(n, "instances"), "fleet.instances", "%d instances each need a worker of their own, and scenario %s runs %d (its concurrency): give it a concurrency of at least %d",
				fl.Instances(), s.Name, c, fl.Instances())
		}
		if fl.Sticky && s.Rate.Max {
			d.errorf(keyLine(n, "sticky"), "fleet.sticky", "true needs an open loop, and scenario %s runs a closed loop (rate: max), where each worker sends whatever request comes next", s.Name)
		}
		if far := fl.Furthest(s.Duration); far > plan.MaxClockOffset {
			d.errorf(keyLine(n, "drift"), "fleet.drift", "over scenario %s's %s an instance's clock drifts %s from the true time, more than %s", s.Name, s.Duration, far.Round(time.Millisecond), plan.MaxClockOffset)
		}
	}
}

// Warnings are what a profile does that is allowed but likely not meant,
// each with the file and line: a fleet none of whose clocks reaches a
// limiter (it takes no time from its caller), a trace whose bad lines were
// skipped, a negative control --algorithms leaves out.
func (p *Profile) Warnings() []string {
	return append(append(p.fleetWarnings(), p.traceWarnings()...), p.verdictWarnings()...)
}

// fleetWarnings say which limiters a fleet's clocks cannot reach.
func (p *Profile) fleetWarnings() []string {
	if p.Fleet == nil {
		return nil
	}
	var out []string
	reached := false
	for _, name := range p.Algorithms {
		if d := p.Declaration(name); d != nil {
			if d.TakesCallerTime() {
				reached = true
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d: algorithms: %s takes no time argument (%s): the fleet's clocks cannot reach it, and its runs show what skew does not change",
				p.Path, p.FleetLine, name, d.TimeWhy()))
			continue
		}
		if info, ok := algorithms.Lookup(name); ok && info.CallerTime {
			reached = true
		}
	}
	if !reached {
		out = append(out, fmt.Sprintf("%s:%d: fleet: no limiter of the profile takes its time from its caller (the built-ins read Redis TIME; list fixed_window_client_time, sliding_log_client_time or token_bucket_client_time, or a limiter of your own given ${now_ms}): the fleet's clocks reach none of them",
			p.Path, p.FleetLine))
	}
	return out
}
