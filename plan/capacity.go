package plan

import "time"

// Capacity is a capacity search: steps of open-loop traffic at offered
// rates the search chooses, narrowing in on the highest rate at which the
// limiter holds the SLO for a whole step.
type Capacity struct {
	// SLO is what a step must hold.
	SLO SLO
	// FromPerSecond is the first rate offered, and ToPerSecond the highest
	// the search may offer. With Auto the search starts at FromPerSecond and
	// doubles the rate until a step breaks the SLO (ToPerSecond bounds it
	// all the same); otherwise it searches between the two.
	FromPerSecond, ToPerSecond float64
	Auto                       bool
	// Step is how long each step offers its rate: the SLO must hold over
	// the whole of it.
	Step time.Duration
	// Precision is where the search stops: once the highest rate that held
	// and the lowest that broke are within this share of each other
	// (0.05: within 5%).
	Precision float64
	// MaxSteps bounds the steps of the search, retries included.
	MaxSteps int
	// Confirm is how many times in a row a rate must break the SLO, or be
	// more than rlbench can keep, before the search believes it (a second
	// step at the same rate tells one noisy moment from the limiter's
	// capacity, or the machine's); a rate that holds once holds.
	Confirm int
	// MaxConcurrency and MaxPipeline are the most workers and the deepest
	// pipeline the search may add when rlbench cannot keep a step's
	// schedule; a MaxPipeline of 1 (or less) adds no pipelining.
	MaxConcurrency, MaxPipeline int
	// Pipelined is how long the pipelined run of the same script lasts
	// after the search (a closed loop, PipelinedDepth requests per batch on
	// each connection): the throughput the capacity is set beside.
	Pipelined      time.Duration
	PipelinedDepth int
}

// SLO is a service-level objective a capacity step must hold: its p99
// latency from each request's due time, the share of its calls that got
// no decision, and how late rlbench may send (the p99 of each request's
// send after its due time: a step that rlbench could not send on time says
// nothing of the limiter).
type SLO struct {
	P99        time.Duration
	ErrorShare float64
	Lag        time.Duration
}

// Span is the most a capacity search takes: every step, and the pipelined
// run after them.
func (c Capacity) Span() time.Duration {
	return time.Duration(c.MaxSteps)*c.Step + c.Pipelined
}
