package capacity

import (
	"time"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// cpuBoundShare is the share of the CPUs rlbench may use past which a
// step's rlbench counts as out of CPU: its own work, not the server's,
// then sets the pace of its replies.
const cpuBoundShare = 0.9

// serverBusyShare is the share of a CPU the server's process may use over
// a step past which it counts as saturated: its queue, not rlbench's CPU,
// then sets the latency.
const serverBusyShare = 0.9

// workersBusyShare is the share of a step's requests that may find every
// worker busy before the step counts as short of workers.
const workersBusyShare = 0.01

// stepFigures are what a capacity step is judged on.
type stepFigures struct {
	// p99 is the latency from the due time, p99FromSend from the send,
	// lagP99 the send after the due time.
	p99, p99FromSend, lagP99 time.Duration
	errorShare               float64
	sent, unsent, busy       int64
	// generator is how rlbench fared for CPU (nil: unknown).
	generator *result.Generator
	// serverCPU is the share of a CPU each of the cores that serve the
	// limiter used (zero: unknown).
	serverCPU float64
}

// stepFiguresOf reads the figures of a measured step, whose server has
// cores cores (its masters).
func stepFiguresOf(m workload.Measured, cores int) stepFigures {
	run := m.Run
	f := stepFigures{
		p99:         time.Duration(run.LatencyUs.P99) * time.Microsecond,
		p99FromSend: time.Duration(run.LatencyUncorrectedUs.P99) * time.Microsecond,
		lagP99:      m.LagP99,
		sent:        run.Requests.Sent, unsent: run.Requests.Unsent, busy: m.Busy,
		generator: run.Generator,
	}
	if f.sent > 0 {
		f.errorShare = float64(run.Requests.Errors) / float64(f.sent)
	}
	if m.ServerCPUKnown {
		f.serverCPU = m.ServerCPU / float64(max(cores, 1))
	}
	return f
}

// serverSaturated reports whether the server used nearly all of its CPU.
func (f stepFigures) serverSaturated() bool { return f.serverCPU >= serverBusyShare }

// waitedForWorkers reports whether requests waited for a free worker.
func (f stepFigures) waitedForWorkers() bool {
	return f.busy > 0 && float64(f.busy) >= workersBusyShare*float64(f.sent)
}

// cpuBound reports whether rlbench ran out of CPU over the step: it used
// nearly all that procs CPUs give, or waited for one as long as the
// summary notes (other processes held them).
func (f stepFigures) cpuBound(procs int) bool {
	g := f.generator
	return g != nil && (g.CPUWaitShare >= result.CPUWaitStarved || g.CPUShare >= cpuBoundShare*float64(max(procs, 1)))
}

// judgeStep says whether a step held the SLO and, when it did not, whose
// doing that was, and why (a result.Cause...). Calls without a decision
// past the SLO are the limiter's (the server's), and so is any break while
// the server used nearly all its CPU: it was the limit, however rlbench
// fared, and requests that queued for it, in rlbench's connections as in
// its own, waited for the limiter. Otherwise a p99 from the due time past
// the SLO is the limiter's when its p99 from the send is past it too and
// rlbench had CPU to spare; when rlbench was out of CPU, or the server
// answered within the SLO once asked, the lateness is rlbench's, and so
// is a send lag past the SLO or a request never sent: the step is short of
// generator, and says nothing of the limiter.
func judgeStep(slo plan.SLO, f stepFigures, procs int) (StepOutcome, string) {
	late := f.lagP99 > slo.Lag || f.unsent > 0
	switch {
	case f.p99 <= slo.P99 && f.errorShare <= slo.ErrorShare && !late:
		return StepHeld, ""
	case f.errorShare > slo.ErrorShare:
		return StepBroke, result.CauseErrors
	case f.serverSaturated():
		return StepBroke, result.CauseLatency
	case f.p99FromSend > slo.P99 && !f.cpuBound(procs):
		return StepBroke, result.CauseLatency
	case f.cpuBound(procs):
		return StepGeneratorShort, result.CauseGeneratorCPU
	case f.waitedForWorkers():
		return StepGeneratorShort, result.CauseGeneratorWorkers
	case f.unsent > 0:
		return StepGeneratorShort, result.CauseGeneratorUnsent
	default:
		return StepGeneratorShort, result.CauseGeneratorLate
	}
}
