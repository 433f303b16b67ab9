package profile

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// capacityFields are the fields a capacity scenario takes.
var capacityFields = []string{"name", "shape", "slo", "range", "from", "step", "precision", "max_steps", "confirm", "allow", "pipelined",
	"identities", "arrival", "distribution", "zipf_exponent", "concurrency", "pipeline"}

var (
	sloFields   = []string{"p99", "errors", "lag"}
	allowFields = []string{"concurrency", "pipeline"}
)

// Defaults of the capacity shape.
const (
	// DefaultCapacityFrom is where range: auto starts, in requests a
	// second.
	DefaultCapacityFrom = 1000
	// AutoCapacityTo is the highest rate range: auto offers: past what one
	// Redis decides with a Lua script, pipelined or not.
	AutoCapacityTo = 1_000_000
	// DefaultCapacityStep is how long each step offers its rate.
	DefaultCapacityStep = 2 * time.Second
	// DefaultCapacityPrecision is how close the search narrows in.
	DefaultCapacityPrecision = 0.05
	// DefaultCapacityMaxSteps bounds a search's steps.
	DefaultCapacityMaxSteps = 30
	// DefaultCapacityConfirm is how many times in a row a rate must miss
	// the SLO before the search believes it.
	DefaultCapacityConfirm = 2
	// DefaultSLOErrors and DefaultSLOLag are an SLO's bounds on calls
	// without a decision and on rlbench's own lateness when it does not
	// give them.
	DefaultSLOErrors = 0.001
	DefaultSLOLag    = time.Millisecond
	// DefaultPipelinedRun is how long the pipelined run after a search
	// lasts, and PipelinedRunDepth its requests per batch (as
	// redis-benchmark -P 16).
	DefaultPipelinedRun = 2 * time.Second
	PipelinedRunDepth   = 16
	// defaultAllowConcurrency is how many times its concurrency a search
	// may grow to when rlbench falls behind, unless allow says otherwise
	// (and at most maxDefaultAllowConcurrency).
	defaultAllowConcurrency    = 4
	maxDefaultAllowConcurrency = 1024
	// maxCapacitySteps bounds max_steps.
	maxCapacitySteps = 1000
)

// CapacitySpec is a capacity scenario as the profile writes it: rates stay
// rates (2x needs the policy and the identities to be a number).
type CapacitySpec struct {
	SLO plan.SLO
	// Auto searches up from From (doubling); otherwise the search stays
	// between From and To.
	Auto     bool
	From, To Rate
	Step     time.Duration
	// Precision, MaxSteps and Confirm: see plan.Capacity.
	Precision float64
	MaxSteps  int
	Confirm   int
	// AllowConcurrency and AllowPipeline are what the search may raise the
	// workers and the pipeline depth to (0: the defaults).
	AllowConcurrency, AllowPipeline int
	// Pipelined is how long the pipelined run after the search lasts (0:
	// none).
	Pipelined time.Duration
}

// parseCapacity reads a capacity scenario: its SLO, the range of rates it
// searches, how long each step lasts and how close it narrows in, what it
// may add to rlbench when rlbench falls behind, and how long the
// pipelined run after it lasts. With pol nil (the policy itself was
// wrong) what depends on it is not checked.
func parseCapacity(f *yamlMap, s *Scenario, pol *algorithms.Policy) {
	c := &s.Capacity
	*c = CapacitySpec{Auto: true, From: Rate{PerSecond: DefaultCapacityFrom}, To: Rate{PerSecond: AutoCapacityTo},
		Step: DefaultCapacityStep, Precision: DefaultCapacityPrecision, MaxSteps: DefaultCapacityMaxSteps,
		Confirm: DefaultCapacityConfirm, Pipelined: DefaultPipelinedRun}
	parseArrival(f, s)
	f.intField("identities", &s.Identities, 1)
	parseIdentityChoice(f, s, plan.UniformIdentities, plan.ZipfIdentities)
	parseSLO(f, c)
	parseCapacityRange(f, c)
	f.duration("step", &c.Step, 10*time.Millisecond)
	if n := f.scalar("precision"); n != nil {
		v, err := parsePercentage(n.Value)
		switch {
		case err != nil:
			f.errorf("precision", "%v", err)
		case v <= 0 || v > 1:
			f.errorf("precision", "%s is not a share above 0%% and at most 100%%: how close the highest rate that held and the lowest that broke must come, e.g. 5%%", n.Value)
		default:
			c.Precision = v
		}
	}
	f.intField("max_steps", &c.MaxSteps, 1)
	if c.MaxSteps > maxCapacitySteps {
		f.errorf("max_steps", "%d is more than %d", c.MaxSteps, maxCapacitySteps)
	}
	f.intField("confirm", &c.Confirm, 1)
	if c.Confirm > c.MaxSteps {
		f.errorf("confirm", "%d is more than max_steps (%d): a rate could never break", c.Confirm, c.MaxSteps)
	}
	if n := f.node("allow", yaml.MappingNode, "a mapping like {concurrency: 512, pipeline: 16}"); n != nil {
		a := f.d.mapping(n, f.join("allow"), allowFields...)
		a.intField("concurrency", &c.AllowConcurrency, 1)
		a.intField("pipeline", &c.AllowPipeline, 1)
		if c.AllowPipeline > MaxPipelineDepth {
			a.errorf("pipeline", "%d is more than %d", c.AllowPipeline, MaxPipelineDepth)
		}
	}
	f.duration("pipelined", &c.Pipelined, 0)
	if pol == nil {
		return
	}
	span, ok := checkedSpan(c.Step, int64(c.MaxSteps), c.Pipelined)
	if !ok {
		pipelined := ""
		if c.Pipelined > 0 {
			pipelined = fmt.Sprintf(" and a pipelined run of %s", c.Pipelined)
		}
		f.errorf("max_steps", "%d steps of %s%s make the scenario last more than %s", c.MaxSteps, c.Step, pipelined, MaxDuration)
		return
	}
	s.Duration = span
	from, to := c.From.TargetPerSecond(*pol, s.Identities), c.To.TargetPerSecond(*pol, s.Identities)
	switch {
	case to > maxTargetPerSecond:
		f.errorf("range", "%s is %g/s here, more than %d/s", c.To, to, maxTargetPerSecond)
	case !c.Auto && to <= from:
		f.errorf("range", "the range must go up: %s (%g/s) is not above %s (%g/s)", c.To, to, c.From, from)
	case c.Auto && from >= to:
		f.errorf("from", "%s (%g/s) is not below the highest rate range: auto offers, %d/s: give a range to go higher", c.From, from, AutoCapacityTo)
	case !(from*c.Step.Seconds() > 1):
		key := "from"
		if !c.Auto {
			key = "range"
		}
		f.errorf(key, "%s over a step of %s offers no request after the first: give a faster rate or a longer step", c.From, c.Step)
	}
}

// parseSLO reads a capacity scenario's SLO: p99 (required), errors and
// lag.
func parseSLO(f *yamlMap, c *CapacitySpec) {
	n := f.node("slo", yaml.MappingNode, "a mapping like {p99: 2ms, errors: 0.1%, lag: 1ms}")
	if n == nil {
		if !f.has("slo") {
			f.errorf("slo", "missing: give the objective each step must hold, e.g. {p99: 2ms, errors: 0.1%%, lag: 1ms}")
		}
		return
	}
	slo := f.d.mapping(n, f.join("slo"), sloFields...)
	c.SLO = plan.SLO{ErrorShare: DefaultSLOErrors, Lag: DefaultSLOLag}
	if !slo.has("p99") {
		slo.errorf("p99", "missing: give the p99 latency each step must hold, e.g. 2ms")
	}
	slo.duration("p99", &c.SLO.P99, time.Microsecond)
	if e := slo.scalar("errors"); e != nil {
		v, err := parsePercentage(e.Value)
		if err != nil {
			slo.errorf("errors", "%v", err)
		} else {
			c.SLO.ErrorShare = v
		}
	}
	slo.duration("lag", &c.SLO.Lag, time.Microsecond)
}

// parseCapacityRange reads range (auto, or [from, to]) and from, which
// only an automatic search takes.
func parseCapacityRange(f *yamlMap, c *CapacitySpec) {
	if n := f.values["range"]; f.has("range") {
		switch {
		case n.Kind == yaml.ScalarNode && n.Value == "auto":
		case n.Kind == yaml.SequenceNode && len(n.Content) == 2:
			c.Auto = false
			for i, item := range n.Content {
				field := fmt.Sprintf("%s[%d]", f.join("range"), i)
				r, err := ParseRate(item.Value)
				switch {
				case item.Kind != yaml.ScalarNode:
					f.d.errorf(item.Line, field, "want a rate like 1000/s or 2x, got %s", describe(item))
				case err != nil:
					f.d.errorf(item.Line, field, "%v", err)
				case r.Max:
					f.d.errorf(item.Line, field, "a capacity search is open loop: give a rate like 1000/s or 2x, not max")
				case i == 0:
					c.From = r
				default:
					c.To = r
				}
			}
		default:
			f.errorf("range", "want auto, or a list of two rates like [1000/s, 50000/s], got %s", describe(n))
		}
	}
	if f.has("from") {
		if !c.Auto {
			f.errorf("from", "has no meaning with a range of two rates: the first is where the search starts")
			return
		}
		openRate(f, "from", &c.From, "a capacity search")
	}
}

// checkCapacitySegments refuses a capacity scenario in a segmented run: one
// process searches for the capacity of the whole load, as it offers every
// step's rate itself.
func checkCapacitySegments(d *decoder, top *yamlMap, p *Profile, o Options) {
	if !o.Segmented {
		return
	}
	for i, n := range top.sequence("scenarios") {
		for _, s := range p.Scenarios {
			if s.Line == n.Line && s.Shape == plan.ShapeCapacity {
				d.errorf(keyLine(n, "shape"), fmt.Sprintf("scenarios[%d].shape", i),
					"--segment: scenario %s searches for a capacity, which one process does for the whole load: run it without --segment", s.Name)
				break
			}
		}
	}
}
