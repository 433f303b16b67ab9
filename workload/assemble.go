package workload

import (
	"time"

	"github.com/rlbench/rlbench/internal/audit"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/faults"
	"github.com/rlbench/rlbench/internal/probe"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// parts is what every part of one run reported, each from its own state
// once it had finished: nothing here is still being written, and nothing
// any part held was freed before it reported.
type parts struct {
	run    plan.Run
	prefix string
	// planned is the share of the run's planned requests this process
	// sends.
	planned int64
	keys    event.KeyScheme
	// rec holds the outcomes, schedule how the schedule ended.
	rec      *recorder.Recorder
	schedule scheduleEnd
	audit    audit.Report
	faults   faults.Report
	probe    probe.Report
	eviction *result.Eviction
	// memoryOverTime is rlbench's and the server's memory through the
	// traffic.
	memoryOverTime *result.MemoryOverTime
	// reference is the reference measured around the run, and cost the
	// limiter's server cost over the trivial script's (zero: not
	// measured).
	reference *result.Reference
	cost      result.CostRatio
	// err is why the run did not finish, or nil.
	err error
	// happenings are what the watch saw that nobody scheduled; timeout
	// bounds a call, so that the errors a happening caused fall within it
	// and the timeout after it.
	happenings []probe.Happening
	timeout    time.Duration
	// takesTime says the limiter's requests carry their caller's clock,
	// which a fleet's instances skew.
	takesTime bool
}

// assemble is the one place a run's result is built: each part's section
// from what it reported, then the few figures that span sections (the
// audit's heap in the memory section, its fault figures in the faults
// section, the figures relative to the reference), last.
func assemble(p parts) *result.Run {
	run := newRun(p.run, p.prefix, p.keys)
	// What each call of the limiter was given before it timed out.
	callTimeout := p.timeout
	if c := p.run.Client; c != nil && c.Timeout > 0 {
		callTimeout = c.Timeout
	}
	run.Params.CallTimeoutMs = float64(callTimeout.Microseconds()) / 1000

	// The traffic: counts, latency, series and errors, and how the
	// schedule went.
	p.rec.Fill(run)
	s := p.schedule
	run.ElapsedS = s.elapsed.Seconds()
	if s.elapsed > 0 {
		run.Rate.AchievedPerS = float64(run.Requests.Sent) / s.elapsed.Seconds()
	}
	if s.drawn > 0 {
		// A segment offered its share of the load's rate; the segments'
		// targets add up to the load's, as their achieved rates do.
		run.Rate.TargetPerS *= float64(s.owned) / float64(s.drawn)
	}
	run.Requests.Unsent = s.unsent
	run.Requests.Planned = p.planned
	run.Requests.NoScriptReloads = s.reloads
	run.ReplyMalformed = s.malformed
	run.Pipeline = s.pipeline
	run.Generator = s.generator
	if s.clock != nil {
		run.ClockOffset = s.clock.Contract()
		run.WindowLocation = s.windows
	}

	// The faults and the caller's policy.
	if f := p.faults; f.Faults != nil {
		run.Faults = f.Faults
		run.Requests.AllowedOnError, run.Requests.DeniedOnError = f.AllowedOnError, f.DeniedOnError
		run.Requests.FaultErrors = f.FaultErrors
	}

	// What nobody scheduled, and the errors it caused: the server's, not
	// the limiter's, so they are left out of the error budget.
	if len(p.happenings) > 0 {
		if run.Faults == nil {
			run.Faults = &result.Faults{Windows: []result.FaultWindow{}}
		}
		var inWindows int64
		for _, h := range p.happenings {
			w := unscheduledWindow(h, p.rec.Start, p.timeout, run.Timeline)
			run.Faults.Windows = append(run.Faults.Windows, w)
			inWindows += w.Window.Errors + w.Recovery.Errors
		}
		// Only failures of the connection are what a server that stalled,
		// restarted or closed connections explains; an error it answered
		// (OOM, NOPERM, a script's) stays the run's.
		// (Those a scheduled fault already excused are not again.) A
		// server the limiter's own script held for a call's timeout on
		// each call stalled by the limiter's doing: its timeouts stay the
		// run's.
		excused := max(min(inWindows, connectionErrors(run.Errors)-run.Requests.FaultErrors, run.Requests.Errors-run.Requests.FaultErrors), 0)
		if s := p.probe.Server; s != nil && s.Calls > 0 && callTimeout > 0 && s.UsecPerCall >= float64(callTimeout.Microseconds()) {
			excused = 0
		}
		run.Faults.Errors += excused
		run.Requests.FaultErrors += excused
	}

	// The audit.
	run.Audit, run.Edge = p.audit.Audit, p.audit.Edge
	run.Accuracy = p.audit.Accuracy
	p.audit.Faults.Apply(run.Faults)

	// The fleet: each instance's clock and share, and its part in what
	// the audit found past the bound.
	run.Fleet = fleetSection(p.run, p.rec, p.audit.InExcess, p.takesTime)

	// The server, read around the run.
	run.Eviction = p.eviction
	run.Memory, run.Server, run.Cluster = p.probe.Memory, p.probe.Server, p.probe.Cluster
	run.Unavailable = p.probe.Unavailable
	if run.Memory != nil {
		run.Memory.AuditHeapBytes = p.audit.HeapBytes
	}
	run.MemoryOverTime = p.memoryOverTime
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
