package plan

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
	// ShapeCapacity searches, in steps of open-loop traffic, for the
	// highest offered rate at which the limiter holds an SLO.
	ShapeCapacity Shape = "capacity"
	// ShapeReplay sends a trace's requests at the trace's own times (or
	// faster), from its own callers: a service's traffic, or a synthetic
	// one like it.
	ShapeReplay Shape = "replay"
)

// Shapes lists every shape, in the order messages name them.
var Shapes = []Shape{ShapeSteady, ShapeBoundary, ShapeCardinality, ShapeRamp, ShapeCapacity, ShapeReplay}

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
