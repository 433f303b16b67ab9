package result

import "strings"

// Capacity is what a capacity run's search found: the highest offered rate
// at which the limiter held the SLO for a whole step, every step it took,
// and the ceilings the capacity is set beside — what one Redis core could
// decide at the server's CPU per decision, and what a pipelined run of the
// same script reached — so that a reader sees whether the limit is Redis,
// the round trip, or the client.
//
// The run that holds it reports, in its other sections, the step at the
// capacity found (the highest that held; the first step when none held),
// except its audit, which covers every step and the pipelined run: the
// limiter is judged at every rate it was offered, and each step's own
// figures say at which rates it was found wrong.
type Capacity struct {
	// SLO is what each step had to hold.
	SLO SLO `json:"slo"`
	// PerS is the capacity found: the highest offered rate, in requests a
	// second, that held the SLO; zero when no step held it.
	PerS float64 `json:"per_s"`
	// BrokePerS is the lowest offered rate that broke the SLO (zero when
	// none did): the capacity lies between PerS and it.
	BrokePerS float64 `json:"broke_per_s"`
	// End says how the search ended: converged (held and broke within
	// precision of each other), top_of_range (the highest rate it may offer
	// held), below_range (even the lowest broke), generator_bound (rlbench
	// could not keep a step's schedule with every worker and all the
	// pipelining it may add), max_steps, or interrupted.
	End string `json:"end"`
	// GeneratorBoundAtPerS is the offered rate rlbench could not keep when
	// the search ended generator-bound: the limiter may sustain more than
	// PerS, and this run cannot say how much.
	GeneratorBoundAtPerS float64 `json:"generator_bound_at_per_s,omitempty"`
	// ServerUsecPerDecision is the server's CPU time per decision in
	// microseconds (INFO commandstats, over every step's calls); CeilingPerS
	// is what one Redis core could decide at that cost (1 s over it, times
	// the masters of a cluster), and ShareOfCeiling is PerS over it. The
	// ceiling leaves out what the server spends reading and writing
	// sockets, so a share near 1 is out of reach without pipelining.
	ServerUsecPerDecision float64 `json:"server_usec_per_decision"`
	CeilingPerS           float64 `json:"ceiling_per_s"`
	ShareOfCeiling        float64 `json:"share_of_ceiling"`
	// GeneratorUsecPerDecision is rlbench's own CPU time per decision in
	// microseconds, over every step's requests (each step's
	// generator.usec_per_decision, weighted by its requests): beside the
	// server's, whether the search measured Redis or rlbench. Zero when
	// unknown.
	GeneratorUsecPerDecision float64 `json:"generator_usec_per_decision,omitempty"`
	// Pipelined is the closed-loop pipelined run of the same script after
	// the search, and ShareOfPipelined is PerS over its rate; nil when it
	// was not made.
	Pipelined        *PipelinedRun `json:"pipelined,omitempty"`
	ShareOfPipelined float64       `json:"share_of_pipelined"`
	// ServerCPUAtCapacity is the share of one CPU the Redis server used
	// during the step at the capacity (INFO cpu: its user and system time
	// over the step's time; summed over the masters of a cluster); zero
	// when unknown. BytesPerIdentity is what each identity cost in Redis
	// at that step.
	ServerCPUAtCapacity float64 `json:"server_cpu_at_capacity"`
	BytesPerIdentity    float64 `json:"bytes_per_identity"`
	// Steps are the search's steps in order, retries included.
	Steps []CapacityStep `json:"steps"`
}

// SLO is a capacity step's service-level objective.
type SLO struct {
	// P99Us bounds the p99 latency from each request's due time, in
	// microseconds.
	P99Us int64 `json:"p99_us"`
	// ErrorShare bounds the share of the step's calls that got no decision
	// (0.001 is 0.1%).
	ErrorShare float64 `json:"error_share"`
	// LagUs bounds how late rlbench sent: the p99 of each request's send
	// after its due time, in microseconds. A step past it was rlbench's
	// doing, not the limiter's.
	LagUs int64 `json:"lag_us"`
	// StepS is how long each step offered its rate, in seconds: the SLO
	// held over the whole of it, or not.
	StepS float64 `json:"step_s"`
}

// CapacityStep is one step of a capacity search: one rate offered open
// loop for the step's time, on keys of its own, audited as any run is.
type CapacityStep struct {
	// TargetPerS is the offered rate, AchievedPerS what was sent over the
	// step, both in requests a second.
	TargetPerS   float64 `json:"target_per_s"`
	AchievedPerS float64 `json:"achieved_per_s"`
	// Concurrency and Pipeline are the workers and the pipeline depth the
	// step ran with (the search adds them when rlbench falls behind).
	Concurrency int `json:"concurrency"`
	Pipeline    int `json:"pipeline"`
	// Sent, Errors and Late count the step's requests, its calls without a
	// decision, and its sends more than requests.late's threshold (1 ms)
	// after their due time; ErrorShare is Errors over Sent.
	Sent       int64   `json:"sent"`
	Errors     int64   `json:"errors"`
	Late       int64   `json:"late"`
	ErrorShare float64 `json:"error_share"`
	// P50Us and P99Us are the latency from each request's due time, and
	// P99FromSendUs from its send, in microseconds; LagP99Us is the p99 of
	// each request's send after its due time.
	P50Us         int64 `json:"p50_us"`
	P99Us         int64 `json:"p99_us"`
	P99FromSendUs int64 `json:"p99_from_send_us"`
	LagP99Us      int64 `json:"lag_p99_us"`
	// ServerUsecPerCall is the server's CPU time per decision over the
	// step (INFO commandstats), and ServerCPU the share of one CPU the
	// server used (INFO cpu); zero when unknown. Generator's
	// usec_per_decision is rlbench's own beside it.
	ServerUsecPerCall float64 `json:"server_usec_per_call"`
	ServerCPU         float64 `json:"server_cpu"`
	// Generator is how rlbench's own process fared for CPU over the step.
	Generator *Generator `json:"generator,omitempty"`
	// Audit is what the step's audit found, on the step's own identities:
	// how many it admitted against its bound, and anything it did wrong.
	Audit *StepAudit `json:"audit,omitempty"`
	// Busy counts the requests that found every worker busy when they
	// were due, and Unsent those never sent by the step's end.
	Busy   int64 `json:"busy"`
	Unsent int64 `json:"unsent"`
	// Outcome is held, broke (the limiter broke the SLO), or
	// generator_bound (the SLO broken while rlbench could not keep the
	// schedule: not the limiter's doing; the next step offers the same rate
	// with more workers or pipelining, unless the search ended there).
	// Cause says why a step did not hold: latency (the p99 from the send
	// past the SLO while rlbench had CPU to spare), errors (calls without a
	// decision past it), or, for rlbench's doing, generator_cpu (it used
	// nearly all its CPUs, or waited for one: result.CPUWaitStarved),
	// generator_workers (requests waited for a free worker),
	// generator_unsent (requests never sent), generator_late (sent late
	// otherwise); empty for a step that held.
	Outcome string `json:"outcome"`
	Cause   string `json:"cause,omitempty"`
}

// StepAudit is what a capacity step's audit found.
type StepAudit struct {
	// Allowed counts the audited identities' admissions; ExpectedAllowed
	// what the reference model admits on the same arrivals.
	Allowed         int64 `json:"allowed"`
	ExpectedAllowed int64 `json:"expected_allowed"`
	// MaxWindowAdmitted is the most one identity was admitted within one
	// window, against BoundWindow, what the algorithm promises.
	MaxWindowAdmitted int64 `json:"max_window_admitted"`
	BoundWindow       int64 `json:"bound_window"`
	// Overshoot, ModelMismatches and UnderAdmitted are the step's findings
	// (see Audit); all zero for a limiter that was right at this rate.
	Overshoot       int64 `json:"overshoot"`
	ModelMismatches int64 `json:"model_mismatches"`
	UnderAdmitted   int64 `json:"under_admitted"`
}

// PipelinedRun is the closed-loop run of the capacity run's script,
// pipelined, after the search: how many decisions a second the server gave
// when the round trip was shared by a batch.
type PipelinedRun struct {
	PerS        float64 `json:"per_s"`
	Depth       int     `json:"depth"`
	Connections int     `json:"connections"`
	// ServerCPU is the share of one CPU the server used meanwhile (INFO
	// cpu), and Generator how rlbench fared for CPU.
	ServerCPU float64    `json:"server_cpu"`
	Generator *Generator `json:"generator,omitempty"`
}

// How a capacity search ended (Capacity.End).
const (
	CapacityConverged      = "converged"
	CapacityTopOfRange     = "top_of_range"
	CapacityBelowRange     = "below_range"
	CapacityGeneratorBound = "generator_bound"
	CapacityMaxSteps       = "max_steps"
	CapacityInterrupted    = "interrupted"
)

// What a capacity step found (CapacityStep.Outcome).
const (
	StepHeld           = "held"
	StepBroke          = "broke"
	StepGeneratorBound = "generator_bound"
)

// Why a capacity step did not hold (CapacityStep.Cause).
const (
	CauseLatency          = "latency"
	CauseErrors           = "errors"
	CauseGeneratorCPU     = "generator_cpu"
	CauseGeneratorWorkers = "generator_workers"
	CauseGeneratorUnsent  = "generator_unsent"
	CauseGeneratorLate    = "generator_late"
)

// Wrong reports whether the step's audit found the limiter wrong at its
// rate.
func (a *StepAudit) Wrong() bool {
	return a != nil && (a.Overshoot > 0 || a.ModelMismatches > 0 || a.UnderAdmitted > 0)
}

// BrokenAt is the lowest rate at which a step's audit found the limiter
// wrong, and false when none did.
func (c *Capacity) BrokenAt() (perS float64, ok bool) {
	if c == nil {
		return 0, false
	}
	for _, s := range c.Steps {
		if s.Audit.Wrong() && (!ok || s.TargetPerS < perS) {
			perS, ok = s.TargetPerS, true
		}
	}
	return perS, ok
}

// CombineAudits is the audit of runs on disjoint keys taken as one, each
// field as the segments of one load combine theirs (the rules table):
// counts add up, the busiest window is the busiest of any, and the
// coverage is over every run's decisions. A capacity run's audit combines
// its steps' this way. Nil when no run was audited.
func CombineAudits(runs []*Run) *Audit {
	if m := combineSections(runs, "audit"); m != nil {
		return m.out.Audit
	}
	return nil
}

// CombineAccuracy is the comparisons of runs on disjoint keys with the
// ideal limiter taken as one, as CombineAudits takes their audits: counts
// add up and the shares are taken again from the sums. Nil when no run
// was compared.
func CombineAccuracy(runs []*Run) *Accuracy {
	if m := combineSections(runs, "accuracy"); m != nil {
		return m.out.Accuracy
	}
	return nil
}

// combineSections merges the requests and the section of runs as the
// segments of one load merge theirs; nil when there are no runs.
func combineSections(runs []*Run, section string) *merging {
	if len(runs) == 0 {
		return nil
	}
	m := newMerging(runs[0], runs)
	m.segments = len(runs)
	for _, r := range rules {
		if r.path != "requests" && r.path != section && !strings.HasPrefix(r.path, section+".") {
			continue
		}
		if c := r.segments; c.apply != nil {
			// The combiners of these rows read and write runs only.
			_ = c.apply(m, r.path)
		}
	}
	return m
}
