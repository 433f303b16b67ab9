package workload

import (
	"github.com/rlbench/rlbench/internal/audit"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/faults"
	"github.com/rlbench/rlbench/internal/probe"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// parts is what every part of one run reported, each from its own state
// once it had finished: nothing here is still being written, and nothing
// any part held was freed before it reported.
type parts struct {
	run    plan.Run
	prefix string
	keys   event.KeyScheme
	// rec holds the outcomes, schedule how the schedule ended.
	rec      *recorder
	schedule scheduleEnd
	// planned is how many requests the schedule held (0: only time
	// bounds it).
	planned  int64
	audit    audit.Report
	faults   faults.Report
	probe    probe.Report
	eviction *result.Eviction
	// reference is the reference measured around the run, and cost the
	// limiter's server cost over the trivial script's (zero: not
	// measured).
	reference *result.Reference
	cost      result.CostRatio
	// err is why the run did not finish, or nil.
	err error
}

// assemble is the one place a run's result is built: each part's section
// from what it reported, then the few figures that span sections (the
// audit's heap in the memory section, its fault figures in the faults
// section, the figures relative to the reference), last.
func assemble(p parts) *result.Run {
	run := newRun(p.run, p.prefix, p.keys)

	// The traffic: counts, latency, series and errors, and how the
	// schedule went.
	p.rec.fill(run)
	s := p.schedule
	run.ElapsedS = s.elapsed.Seconds()
	if s.elapsed > 0 {
		run.Rate.AchievedPerS = float64(run.Requests.Sent) / s.elapsed.Seconds()
	}
	run.Requests.Planned, run.Requests.Unsent = p.planned, s.unsent
	run.Requests.NoScriptReloads = s.reloads
	run.Pipeline = s.pipeline
	run.Generator = s.generator
	if s.clock != nil {
		run.ClockOffset = s.clock.Contract()
	}
	run.WindowProbe = s.windowProbe

	// The faults and the caller's policy.
	if f := p.faults; f.Faults != nil {
		run.Faults = f.Faults
		run.Requests.AllowedOnError, run.Requests.DeniedOnError = f.AllowedOnError, f.DeniedOnError
		run.Requests.FaultErrors = f.FaultErrors
	}

	// The audit.
	run.Audit, run.Edge = p.audit.Audit, p.audit.Edge
	p.audit.Faults.Apply(run.Faults)

	// The server, read around the run.
	run.Eviction = p.eviction
	run.Memory, run.Server, run.Cluster = p.probe.Memory, p.probe.Server, p.probe.Cluster
	if run.Memory != nil {
		run.Memory.AuditHeapBytes = p.audit.HeapBytes
	}
	if p.reference != nil {
		run.Reference = p.reference
		run.Relative = result.NewRelative(run, p.cost)
	}

	if p.err != nil {
		run.Incomplete = true
		run.Note = p.err.Error()
	}
	return run
}
