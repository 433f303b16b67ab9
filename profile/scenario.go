package profile

import (
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// Scenario is one traffic shape with its parameters; each runs once per
// algorithm on fresh keys.
type Scenario struct {
	// Name is unique in the profile and part of the key prefix.
	Name string
	// Shape selects the traffic generator.
	Shape plan.Shape
	// Rate is the offered load.
	Rate Rate
	// Arrival spaces open-loop arrivals.
	Arrival plan.Arrival
	// Identities is how many distinct callers share the load.
	Identities int
	// Duration bounds the scenario in time.
	Duration time.Duration
	// Requests bounds the scenario in count (0 means no bound).
	Requests int64
	// Concurrency overrides the profile's concurrency when above zero.
	Concurrency int
	// Pipeline overrides the profile's pipeline when given.
	Pipeline plan.Pipeline
	// Boundary holds the boundary shape's parameters, and Capacity the
	// capacity shape's.
	Boundary plan.Boundary
	Capacity CapacitySpec
	// Replay is a replay's trace, read and summarized, and its pace.
	Replay *plan.Replay
	// Distribution chooses identities in a cardinality scenario.
	Distribution plan.Distribution
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
	Faults plan.Faults
	// OnError is the caller's error policy in its runs (empty without a
	// client section); PolicyGroup is the scenario's name as written when
	// the client lists several policies, each run as a scenario of its own
	// named <group>-<policy>.
	OnError     plan.ErrorPolicy
	PolicyGroup string
	// HashTag is how the built-in limiters tag their keys in this
	// scenario (a declared limiter's keys are its own templates').
	HashTag plan.HashTag
	// AcceptInconclusive accepts runs of this scenario that cannot judge
	// what they check (no power, a schedule not kept): they are reported,
	// and do not make the result inconclusive.
	AcceptInconclusive bool
	// Cost is how many units each request asks for, passed to a declared
	// limiter as ${cost}; the zero Cost asks for one. CostLine is where
	// the scenario gives it (0 when it does not).
	Cost     algorithms.Cost
	CostLine int
	// ClockSkew, when SkewGiven, spreads the fleet's clocks over
	// -ClockSkew to +ClockSkew for this scenario's runs; Sweep is the
	// scenario's name as written when it lists several skews, each run as
	// a scenario of its own named <sweep>-skew<skew>.
	ClockSkew time.Duration
	SkewGiven bool
	Sweep     string
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

// DefaultStagger spaces identities so that the second burst of one and the
// first burst of the next are 2 x offset apart.
func DefaultStagger(offset, spread time.Duration) time.Duration {
	return 4*offset + 2*spread
}
