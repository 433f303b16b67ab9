package profile

import (
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// Shape names a traffic shape.
type Shape string

// The traffic shapes a scenario may take.
const (
	// ShapeSteady is a constant offered rate (open loop) or closed-loop
	// saturation over a fixed set of identities.
	ShapeSteady Shape = "steady"
	// ShapeBoundary primes each identity with one request, learns from the
	// reply where its window ends in server time, and fires one burst just
	// before that boundary and another just after: the traffic that shows
	// a fixed window admitting twice its limit within one window's length.
	ShapeBoundary Shape = "boundary"
	// ShapeCardinality spreads requests over many distinct identities (up
	// to millions) to measure what each identity costs in Redis and how
	// latency holds up as the keyspace grows.
	ShapeCardinality Shape = "cardinality"
	// ShapeRamp moves the offered rate through stages, each ramping
	// linearly from where the last one ended to its own rate, as k6's
	// stages do: the shape that finds where latency bends.
	ShapeRamp Shape = "ramp"
)

// Shapes lists every shape, in the order messages name them.
var Shapes = []Shape{ShapeSteady, ShapeBoundary, ShapeCardinality, ShapeRamp}

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

// Distribution is how a cardinality scenario chooses identities.
type Distribution string

const (
	// UniformIdentities draws every request's identity uniformly at random.
	UniformIdentities Distribution = "uniform"
	// ZipfIdentities draws identities from a Zipf distribution: identity k
	// is chosen with probability proportional to 1/(k+1)^s, so a few hot
	// identities take most requests and a long tail is seen once or never.
	ZipfIdentities Distribution = "zipf"
	// SequentialIdentities sends each identity one request, in order.
	SequentialIdentities Distribution = "sequential"
)

// DefaultZipfExponent is the Zipf exponent s when a profile names none.
const DefaultZipfExponent = 1.2

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
	// Pipeline overrides the profile's pipeline when given.
	Pipeline Pipeline
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
	// From is where a ramp's first stage starts (zero: from nothing), and
	// Stages are the ramp's stages, in order.
	From   Rate
	Stages []Stage
	// Group is the name the scenario was written with when it lists several
	// sizes: each size runs as a scenario of its own, named <group>-<size>,
	// and the runs of one group draw one curve.
	Group string
	// Line is where the scenario starts in the profile, for messages.
	Line int
	// Policy is the scenario's own policy when it overrides the profile's
	// (the zero Policy when it does not): see Profile.PolicyFor.
	Policy algorithms.Policy
	// Faults are the faults its runs go through, in order.
	Faults []Fault
	// OnError is the caller's error policy in its runs (empty without a
	// client section); PolicyGroup is the scenario's name as written when
	// the client lists several policies, each run as a scenario of its own
	// named <group>-<policy>.
	OnError     ErrorPolicy
	PolicyGroup string
	// HashTag is how the built-in limiters tag their keys in this
	// scenario (a declared limiter's keys are its own templates').
	HashTag HashTag
}

// Stage is one stage of a ramp: over Duration the offered rate moves in a
// straight line from where the previous stage ended to Rate.
type Stage struct {
	Rate     Rate
	Duration time.Duration
}

// Defaults of the boundary shape.
const (
	// DefaultBoundaryOffset is how far from the boundary each burst stays.
	DefaultBoundaryOffset = 10 * time.Millisecond
)

// Boundary holds the boundary shape's parameters.
type Boundary struct {
	// Burst is how many requests each of the two bursts sends.
	Burst int64
	// Offset is how far before the boundary the first burst ends, and how
	// far after it the second one starts.
	Offset time.Duration
	// Spread is how long each burst lasts: its requests are due evenly
	// over it. Zero fires each burst all at once.
	Spread time.Duration
	// Stagger is the time between two identities' priming requests.
	Stagger time.Duration
}

// DefaultStagger spaces identities so that the second burst of one and the
// first burst of the next are 2 x offset apart.
func DefaultStagger(offset, spread time.Duration) time.Duration {
	return 4*offset + 2*spread
}

// Requests is how many requests a boundary scenario sends for identities
// callers: a prime and two bursts each.
func (b Boundary) Requests(identities int) int64 {
	return int64(identities) * (1 + 2*b.Burst)
}

// Span is how long a boundary scenario lasts under policy p: the last
// identity is primed (identities-1) x stagger after the first, and its
// second burst ends about a window plus offset plus spread later.
func (b Boundary) Span(p algorithms.Policy, identities int) time.Duration {
	return time.Duration(identities-1)*b.Stagger + p.Window + time.Millisecond + b.Offset + b.Spread
}
