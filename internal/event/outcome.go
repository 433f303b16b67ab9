package event

import (
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// Outcome is what one request did.
type Outcome struct {
	// Identity is the caller the request was made for.
	Identity uint64
	// Instance is the application instance of the run's fleet that sent
	// the request (0 without a fleet): its clock is what the request's
	// time arguments carried, skewed (Decision.ClientSkewMicros).
	Instance int
	// Due is when the schedule meant it to go out, Sent when it did, Done
	// when its reply (or its error) came back; local times.
	Due, Sent, Done time.Time
	// Decision is the limiter's answer; Err is set instead when Redis gave
	// none (a *PolicyDecision when the caller's error policy decided in
	// its place).
	Decision algorithms.Decision
	Err      error
	// MayHaveRun is set on a failed request that may have run on the
	// server all the same (it timed out, or its connection broke after
	// the command may have left): its effect on the limiter is unknown.
	MayHaveRun bool
}

// Sink takes every outcome of a run, from many goroutines at once. The
// outcome is the caller's to reuse once Record returns.
type Sink interface {
	Record(o *Outcome)
}

// BoundarySink is told where each identity's window ends, in server
// microseconds, when a boundary run has located it.
type BoundarySink interface {
	Boundary(identity uint64, serverMicros int64)
}
