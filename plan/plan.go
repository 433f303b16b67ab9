package plan

import (
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/result"
)

// Plan is every run of a profile, in order, with the settings they share.
type Plan struct {
	// Profile says which profile the plan came from, as the result
	// records it.
	Profile result.ProfileInfo
	// Runs are the runs, in order: scenario by scenario, repetition by
	// repetition, each limiter in turn.
	Runs []Run
	// Repeat is how many times each run is made (at least 1).
	Repeat int
	// Seed makes identity choice, Poisson arrivals and audit samples
	// repeatable.
	Seed int64
	// Timeout bounds every Redis call of the probes and the set-up (the
	// limiter's calls by Run.Client.Timeout when there is a client).
	Timeout time.Duration
	// Warmup is run before each measured run, on keys of its own, and not
	// measured.
	Warmup time.Duration
	// AuditIdentities is the most identities of one run whose every
	// decision is kept and replayed; beyond it a sample of that size is
	// drawn with Seed. Zero turns the audit off.
	AuditIdentities int
}

// Run is one run: one limiter in one scenario, resolved.
type Run struct {
	// Algorithm names the limiter: a built-in's name, or the name of
	// Declaration.
	Algorithm string
	// Declaration is the user's own limiter; nil for a built-in.
	Declaration *algorithms.Declaration
	// Scenario names the scenario; Group, PolicyGroup and Sweep are the
	// names it was written with when it lists several sizes, error
	// policies or clock skews.
	Scenario, Group, PolicyGroup, Sweep string
	// Repetition counts from 0 when the plan repeats each run.
	Repetition int
	Shape      Shape
	// Policy is the policy the limiter enforces in this run.
	Policy algorithms.Policy
	// Ideal is the ideal limiter of Policy the run's decisions are set
	// beside, on the same arrivals (false admits and false denies); empty
	// means algorithms.DefaultIdeal(Policy).
	Ideal algorithms.Ideal
	// Cost is how many units each request asks for: the scenario's cost
	// for a declared limiter that is told it (${cost}); the zero Cost, one
	// unit, for every other.
	Cost algorithms.Cost
	// Identities is how many distinct callers share the load.
	Identities int
	// Duration bounds the run in time; Requests in count (0: no bound).
	Duration time.Duration
	Requests int64
	// Concurrency is how many goroutines send the requests.
	Concurrency int
	// Pipeline is how many requests one connection sends at once.
	Pipeline Pipeline
	// Rate is the offered load as the profile wrote it ("2x", "500/s",
	// "max"); TargetPerSecond is it in requests a second (0 for a closed
	// loop), and ClosedLoop says that every goroutine sends its next
	// request as soon as the last is answered.
	Rate            string
	TargetPerSecond float64
	ClosedLoop      bool
	// Arrival spaces open-loop arrivals.
	Arrival Arrival
	// FromPerSecond and Stages are a ramp's: where its first stage starts
	// and each stage's rate and length.
	FromPerSecond float64
	Stages        []Stage
	// Distribution, ZipfExponent (0: DefaultZipfExponent) and Repeats say
	// how identities are chosen.
	Distribution Distribution
	ZipfExponent float64
	Repeats      int64
	// Boundary holds the boundary shape's parameters, and Capacity the
	// capacity shape's.
	Boundary Boundary
	Capacity Capacity
	// Replay is a replay's trace and pace (nil for any other shape).
	Replay *Replay
	// HashTag is how a built-in limiter tags its keys.
	HashTag HashTag
	// Faults are the faults the run goes through, in order.
	Faults Faults
	// Client is how the limiter's caller behaves (nil: each call made
	// once, an error only counted), and OnError its error policy here.
	Client  *Client
	OnError ErrorPolicy
	// Fleet is the application instances the load comes from, each with
	// a clock of its own; nil when the profile declares none (one caller
	// on the true clock).
	Fleet *Fleet
	// Planned is how many requests the run is scheduled to send (0 when
	// only time bounds it).
	Planned int64
	// AcceptInconclusive accepts a run that cannot judge what it checks.
	AcceptInconclusive bool
}

// Stage is one stage of a ramp: over Duration the offered rate moves in a
// straight line from where the previous stage ended to PerSecond.
type Stage struct {
	PerSecond float64
	Duration  time.Duration
}

// Key names the run as algorithm/scenario, as results and thresholds do.
func (r Run) Key() string { return r.Algorithm + "/" + r.Scenario }

// MaxConcurrency is the most goroutines any run uses, which sizes the
// connection pool.
func (p *Plan) MaxConcurrency() int {
	n := 1
	for _, r := range p.Runs {
		n = max(n, r.Concurrency, r.Capacity.MaxConcurrency)
	}
	return n
}
