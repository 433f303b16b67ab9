// Package workload turns a profile into traffic: it parses profiles, builds
// the plan (scenarios x algorithms), paces requests open or closed loop over
// many goroutines against the limiters, and measures what came back.
package workload

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// Profile is a parsed, validated profile file.
type Profile struct {
	// Path is the file the profile came from.
	Path string
	// Name names the profile in results; defaults to the file's base name.
	Name string
	// Hash is the SHA-256 of the file, so a result says exactly which
	// profile produced it.
	Hash string
	// Policy is the one policy every algorithm interprets.
	Policy algorithms.Policy
	// Algorithms are the limiters to run, in order.
	Algorithms []string
	// Concurrency is how many goroutines issue requests (and the size of the
	// connection pool), unless a scenario says otherwise.
	Concurrency int
	// Warmup is run before each measured run, on keys of its own, and not
	// measured.
	Warmup time.Duration
	// Seed makes identity choice and Poisson arrivals repeatable.
	Seed int64
	// Timeout bounds every Redis call.
	Timeout time.Duration
	// Redis is the server to use; nil means a private one.
	Redis *RedisSpec
	// Audit bounds the per-identity audit.
	Audit AuditSpec
	// Scenarios are the traffic shapes, in order.
	Scenarios []Scenario
	// Thresholds are the pass/fail rules, as written; the command line
	// checks and evaluates them against the result contract.
	Thresholds []ThresholdSpec
}

// ThresholdSpec is one line of the profile's thresholds list.
type ThresholdSpec struct {
	// Expr is the rule, e.g. "*/steady latency_us.p99 < 5ms".
	Expr string
	// Line is where it is written, for messages.
	Line int
	// Index is its position in the list.
	Index int
}

// RedisSpec is the profile's redis section. The password never appears in a
// profile: PasswordEnv names the environment variable that holds it.
type RedisSpec struct {
	Addr        string
	Username    string
	PasswordEnv string
	DB          int
	TLS         bool
	TLSCAFile   string
	TLSInsecure bool
}

// Shape names a traffic shape.
type Shape string

// ShapeSteady is a constant offered rate (open loop) or closed-loop
// saturation over a fixed set of identities.
const ShapeSteady Shape = "steady"

// Arrival is how open-loop arrivals are spaced.
type Arrival string

const (
	// Uniform spaces arrivals exactly 1/rate apart and visits identities in
	// turn.
	Uniform Arrival = "uniform"
	// Poisson draws exponential gaps (a Poisson process) and identities at
	// random.
	Poisson Arrival = "poisson"
)

// Scenario is one traffic shape with its parameters; each runs once per
// algorithm on fresh keys.
type Scenario struct {
	// Name is unique in the profile and part of the key prefix.
	Name string
	// Shape selects the traffic generator.
	Shape Shape
	// Rate is the offered load.
	Rate Rate
	// Arrival spaces open-loop arrivals.
	Arrival Arrival
	// Identities is how many distinct callers share the load.
	Identities int
	// Duration bounds the scenario in time.
	Duration time.Duration
	// Requests bounds the scenario in count (0 means no bound).
	Requests int64
	// Concurrency overrides the profile's concurrency when above zero.
	Concurrency int
	// Boundary holds the boundary shape's parameters.
	Boundary Boundary
	// Distribution chooses identities in a cardinality scenario.
	Distribution Distribution
	// ZipfExponent is the exponent s (> 1) of a Zipf distribution, or of
	// the repeats after a sequential pass.
	ZipfExponent float64
	// Repeats are the requests sent after a sequential pass, drawn Zipf over
	// the same identities.
	Repeats int64
	// Group is the name the scenario was written with when it lists several
	// sizes: each size runs as a scenario of its own, named <group>-<size>,
	// and the runs of one group draw one curve.
	Group string
	// sizes holds a list of identities while the profile is parsed, before
	// the scenario is split into one scenario per size.
	sizes []int
	// Line is where the scenario starts in the profile, for messages.
	Line int
}

// Rate is an offered load: absolute, relative to the policy, or "max"
// (closed loop, as fast as the goroutines go).
type Rate struct {
	// PerSecond is an absolute rate; zero when Multiple or Max is used.
	PerSecond float64
	// Multiple is the rate as a multiple of what the policy admits for all
	// identities together ("2x": each identity offers twice its limit).
	Multiple float64
	// Max means closed loop.
	Max bool
}

// String renders the rate as a profile would write it.
func (r Rate) String() string {
	switch {
	case r.Max:
		return "max"
	case r.Multiple > 0:
		return strconv.FormatFloat(r.Multiple, 'g', -1, 64) + "x"
	default:
		return strconv.FormatFloat(r.PerSecond, 'g', -1, 64) + "/s"
	}
}

// TargetPerSecond is the total offered rate for identities callers under
// policy p; zero for closed loop.
func (r Rate) TargetPerSecond(p algorithms.Policy, identities int) float64 {
	switch {
	case r.Max:
		return 0
	case r.Multiple > 0:
		return r.Multiple * p.RatePerSecond() * float64(identities)
	default:
		return r.PerSecond
	}
}

var rateUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second,
	"ms": time.Millisecond,
	"m":  time.Minute, "min": time.Minute,
	"h": time.Hour,
}

// ParseRate reads "500/s", "30000/m", "2x", "0.5x" or "max".
func ParseRate(s string) (Rate, error) {
	bad := fmt.Errorf("%q is not a rate like 500/s, 2x or max", s)
	s = strings.TrimSpace(s)
	switch {
	case s == "max":
		return Rate{Max: true}, nil
	case strings.HasSuffix(s, "x"):
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "x"), 64)
		if err != nil || !(f > 0) || f > 1e6 {
			return Rate{}, bad
		}
		return Rate{Multiple: f}, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, bad
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	per, known := rateUnits[strings.TrimSpace(unit)]
	if err != nil || !known || !(f > 0) {
		return Rate{}, bad
	}
	perSecond := f / per.Seconds()
	if perSecond > 10_000_000 {
		return Rate{}, fmt.Errorf("%q is more than 10000000/s", s)
	}
	return Rate{PerSecond: perSecond}, nil
}
