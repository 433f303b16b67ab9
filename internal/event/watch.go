package event

import (
	"time"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// LateThreshold is how far behind its due time a request may be sent before
// it counts as late.
const LateThreshold = time.Millisecond

// Watcher watches the engine from outside (the live metrics). A sink of
// every outcome of a run's traffic (workload.Runner.Sinks) that is a
// Watcher too is told as each measured schedule's traffic starts, before
// its first outcome, and as it ends, after its last: a capacity search's
// every step, and never a warm-up.
type Watcher interface {
	TrafficStarted(t *Traffic)
	TrafficEnded(t *Traffic)
}

// Assessor is a sink of a run's outcomes that is also told of the run's
// result once it is whole: its audit done, its decisions set beside the
// ideal limiter. t is the run's traffic as its Watcher saw it; a capacity
// search is one run, its steps' traffic each watched, its result told once.
type Assessor interface {
	RunAssessed(t *Traffic, r *result.Run)
}

// Traffic is one measured schedule whose traffic is going on, as a Watcher
// reads it.
type Traffic struct {
	// Run is the run the schedule makes (a capacity search's step is a
	// run of its own rate).
	Run plan.Run
	// Started is when its traffic started; Planned the requests its
	// schedule holds (this process's share), zero when only time bounds
	// it.
	Started time.Time
	Planned int64
	// InFlight counts the requests sent and not yet answered.
	InFlight func() int64
	// AdmissionBound is the most units the limiter promises to admit to
	// all the identities this process sends for together, within the
	// first d of the traffic; false for a limiter without a bound.
	AdmissionBound func(d time.Duration) (int64, bool)
	// Server is the latest reading of the server, a second or so old
	// while the traffic goes on.
	Server func() ServerReading
}

// ServerReading is what a reading of the server through a run's traffic
// found, every master's added up. Server says it answered: its used
// memory (INFO used_memory), its keys (DBSIZE) and the CPU time it has used
// since it started (used_cpu_sys + used_cpu_user, in seconds).
type ServerReading struct {
	Server          bool
	UsedMemoryBytes int64
	Keys            int64
	CPUSeconds      float64
}
