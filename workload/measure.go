package workload

import (
	"context"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/audit"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/faults"
	"github.com/rlbench/rlbench/internal/probe"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/plan"
)

// Phase names a step of one measured schedule, in the order they run.
// Each has its own rule for an interrupt (see measure).
type Phase string

// The phases of a measured schedule.
const (
	// PhasePrepare opens the faults and the caller, binds and loads the
	// limiter and warms the connections.
	PhasePrepare Phase = "prepare"
	// PhaseWarmUp sends the plan's warm-up, on keys of its own, and
	// removes them.
	PhaseWarmUp Phase = "warm-up"
	// PhaseStart takes the readings the run is measured against, meets
	// the other segments, and starts what watches the traffic.
	PhaseStart Phase = "start"
	// PhaseTraffic drives the schedule.
	PhaseTraffic Phase = "traffic"
	// PhaseReadings undoes the faults and reads what the run left: the
	// server's liveness, the audit's replay, the key census (TTLs, keys
	// outside the prefix), memory and the server cost.
	PhaseReadings Phase = "readings"
	// PhaseCleanup removes the run's keys and what the run loaded.
	PhaseCleanup Phase = "cleanup"
)

// PhaseObserver is an Observer that is also told as each run enters a
// phase: a census of a million keys takes seconds, and a progress line
// can say what they are spent on.
type PhaseObserver interface {
	RunPhase(p *Progress, phase Phase)
}

// interruptRule is what an interrupt (ctx of measure ending) does to a
// phase.
type interruptRule int

const (
	// abandon: nothing has been measured yet; an interrupt before or
	// during the phase ends the run there, and it is not reported.
	abandon interruptRule = iota
	// cut: the phase stops at the interrupt (the traffic stops issuing
	// and waits for its calls in flight), and what it measured is kept.
	cut
	// finish: the phase runs to its end on a context the first interrupt
	// does not end (it reads what the traffic left, and undoes faults);
	// Runner.Hurry cuts it short.
	finish
)

// phase is one step of a measured schedule and its rule for an interrupt.
type phase struct {
	name Phase
	rule interruptRule
	run  func(ctx context.Context) error
}

// measurement is one measured schedule on its way through its phases:
// what each phase opens for the next. Whatever a phase started is
// stopped by close, however far the schedule got.
type measurement struct {
	r  *Runner
	mc Step

	session  *faults.Session
	lim      algorithms.Limiter
	declared bool
	keys     event.KeyScheme
	target   probe.Target

	prb       *probe.Probe
	evictions *probe.EvictionWatch
	reference *probe.Reference
	watch     *probe.Watch
	offset    event.Offset
	rec       *recorder.Recorder
	aud       *audit.Auditor
	prog      *Progress
	planned   int64

	reloadsBefore   int64
	malformedBefore []algorithms.MalformedPart
	serverBefore    float64
	serverKnown     bool

	// trafficBegan says keys of the run's may exist; finished that the
	// readings took the probe's and the reference's figures.
	trafficBegan, finished bool
	out                    scheduleEnd
	// runErr is why the run did not finish, parts what its readings
	// reported, m what a capacity step reads of it.
	runErr error
	parts  parts
	m      Measured
}

// Measure makes one measured schedule, as a list of phases (see Phase):
// each opens what the next needs, and each has its own rule for an
// interrupt. Before the traffic an interrupt ends the schedule unreported
// (the warm-up's keys removed); the traffic stops issuing at it and keeps
// what it measured; the readings after the traffic go on to their end,
// unless Runner.Hurry says otherwise, so that a run whose traffic ended
// is still judged on its keys. Whatever the interrupt, the run's keys are
// removed (unless kept on purpose), and a schedule during which ctx ended
// reports ErrInterrupted: an interrupted schedule is never complete.
func (r *Runner) Measure(ctx context.Context, mc Step) (Measured, error) {
	ms := &measurement{r: r, mc: mc}
	hurry, stopHurry := r.hurryContext(ctx)
	defer stopHurry()
	defer ms.close()
	phases := []phase{
		{PhasePrepare, abandon, ms.prepare},
		{PhaseWarmUp, abandon, ms.warmUp},
		{PhaseStart, abandon, ms.start},
		{PhaseTraffic, cut, ms.traffic},
		{PhaseReadings, finish, ms.readings},
	}
	for _, ph := range phases {
		ms.tell(ph.name)
		switch ph.rule {
		case abandon:
			if ctx.Err() != nil {
				return Measured{}, ErrInterrupted
			}
			if err := ph.run(ctx); err != nil {
				if ctx.Err() != nil {
					return Measured{}, ErrInterrupted
				}
				return Measured{}, err
			}
		case cut:
			ms.runErr = ph.run(ctx)
		case finish:
			ms.runErr = ph.run(hurry)
		}
		if ph.rule != abandon && ms.runErr == nil && ctx.Err() != nil {
			ms.runErr = ErrInterrupted
		}
	}
	ms.tell(PhaseCleanup)
	ms.cleanUp()
	if ms.runErr == nil && ctx.Err() != nil {
		// Interrupted while the keys were removed: the run was measured,
		// but the invocation was not let finish.
		ms.runErr = ErrInterrupted
	}
	ms.parts.err = ms.runErr
	ms.m.Run = assemble(ms.parts)
	if prog := mc.Progress; prog != nil {
		for _, s := range r.Sinks {
			if a, ok := s.(event.Assessor); ok {
				a.RunAssessed(prog.traffic(), ms.m.Run)
			}
		}
		if r.Observer != nil {
			r.Observer.RunFinished(prog, ms.m.Run)
		}
	}
	return ms.m, ms.runErr
}

// hurryContext is a context that ctx's end does not end and Runner.Hurry
// does, for what an interrupt lets finish.
func (r *Runner) hurryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if r.Hurry != nil {
		go func() {
			select {
			case <-r.Hurry:
				cancel()
			case <-hctx.Done():
			}
		}()
	}
	return hctx, cancel
}

// tell tells a phase observer that the run enters phase.
func (ms *measurement) tell(name Phase) {
	if ms.mc.Progress == nil {
		return
	}
	if o, ok := ms.r.Observer.(PhaseObserver); ok {
		o.RunPhase(ms.mc.Progress, name)
	}
}

// prepare opens the faults and the caller, binds the limiter, loads it
// (its script or library) and warms the connections.
func (ms *measurement) prepare(ctx context.Context) error {
	r, pl, spec := ms.r, ms.r.Plan, ms.mc.Spec
	var err error
	if ms.session, err = faults.Open(ctx, faults.Config{Run: spec, Env: r.Env, Timeout: pl.Timeout, Clock: r.Clock}); err != nil {
		return err
	}
	rdb := ms.session.Redis()
	if rdb == nil {
		rdb = r.Env.Client
	}
	if ms.lim, err = bindLimiter(spec, pl.Seed, rdb, r.NewLimiter); err != nil {
		return err
	}
	setup, cancel := context.WithTimeout(ctx, pl.Timeout+5*time.Second)
	defer cancel()
	if err := ms.lim.Load(setup); err != nil {
		return err
	}
	redisenv.WarmPool(setup, r.Env.Client, spec.Concurrency)
	ms.session.Warm(setup, spec.Concurrency)
	_, ms.declared = ms.lim.(interface{ Keys(string) []string })
	ms.keys = ms.keyScheme(ms.mc.Prefix)
	ms.target = probe.Target{Env: r.Env, Timeout: pl.Timeout, RunPrefix: r.RunPrefix()}
	return nil
}

// keyScheme names the keys of the run's identities under prefix.
func (ms *measurement) keyScheme(prefix string) event.KeyScheme {
	return event.NewKeyScheme(prefix, ms.mc.Spec.HashTag, ms.declared, ms.r.Env.Cluster != nil)
}

// warmUp sends the plan's warm-up on keys of its own, and removes them,
// interrupted or not.
func (ms *measurement) warmUp(ctx context.Context) error {
	r, pl := ms.r, ms.r.Plan
	if pl.Warmup <= 0 || !ms.mc.Warmup {
		return nil
	}
	warm := ms.mc.Spec
	warm.Duration, warm.Requests = pl.Warmup, 0
	warmPrefix := strings.TrimSuffix(ms.mc.Prefix, ":") + "~warmup:"
	_, _ = r.runSchedule(ctx, traffic{run: warm, limiter: ms.lim, windows: ms.lim, keys: ms.keyScheme(warmPrefix), rec: recorder.New(r.Clock.Now())})
	r.removeRunKeys(warmPrefix, ms.keyScheme(warmPrefix), ms.declared, warm.Identities, nil)
	return ctx.Err()
}

// start takes the readings the run is measured against, meets the other
// segments, and starts what watches the traffic: evictions, the
// reference, the server's view of resets, the audit, memory over time.
func (ms *measurement) start(ctx context.Context) error {
	r, pl, spec := ms.r, ms.r.Plan, ms.mc.Spec
	ms.prb = probe.Start(ctx, ms.target, probe.Config{Limiter: ms.lim, Keys: ms.keys, Identities: spec.Identities, Seed: pl.Seed,
		Reference: !spec.Faults.Any() && ms.mc.Reference, Fill: spec.Shape == plan.ShapeCardinality})
	if ms.mc.Progress != nil {
		if err := r.Segments.meet(ctx, r.Env.Client, r.Clock, r.Plan, ms.mc.Progress.Index, r.RunID); err != nil {
			return err
		}
	}
	ms.evictions = probe.WatchEvictions(ctx, ms.target)
	if !spec.Faults.Any() && ms.mc.Reference {
		// Trivial calls would go through the faults too: no reference.
		ms.reference = probe.StartReference(ctx, ms.target, spec.ClosedLoop, spec.Concurrency)
	}
	ms.reloadsBefore, ms.malformedBefore = ms.lim.NoScriptReloads(), malformedReplies(ms.lim)
	// The server's clock, for placing failed calls and what the watch sees.
	ms.offset = ms.session.Offset()
	if ms.session == nil {
		ms.offset = r.serverOffset(ctx)
	}
	ms.watch = probe.StartWatch(ms.target, r.Clock, ms.offset, algorithms.DeletesKeys(ms.lim))
	ms.rec = recorder.New(r.Clock.Now())
	ms.aud = audit.New(ms.auditConfig())
	ms.planned = spec.Planned
	if spec.Shape == plan.ShapeBoundary {
		ms.planned = spec.Boundary.Requests(spec.Identities)
	}
	if spec.Replay != nil {
		// A trace's identities send unequal shares: the segment's is
		// what its own identities sent.
		ms.planned = spec.Replay.Share(ms.planned, r.Segments.Segment)
	} else {
		ms.planned = plannedShare(ms.planned, r.Segments.Segment, spec.Identities)
	}
	// A capacity step's progress is no observer's: it is still what the
	// live figures and the memory over time read.
	ms.prog = ms.mc.Progress
	if ms.prog == nil {
		ms.prog = &Progress{Run: spec}
	}
	prog := ms.prog
	prog.Started, prog.Duration, prog.Planned, prog.rec = ms.rec.Start, spec.Duration, ms.planned, ms.rec
	prog.identities = identityShare(r.Segments.Segment, spec.Identities)
	if b, ok := ms.lim.(algorithms.Bounded); ok {
		prog.bound = b.Bound
	}
	prog.trend = probe.StartTrend(ctx, ms.target, ms.rec.Start)
	return ctx.Err()
}

// auditConfig is how the run's audit judges it.
func (ms *measurement) auditConfig() audit.Config {
	pl, spec := ms.r.Plan, ms.mc.Spec
	c := audit.Config{Limiter: ms.lim, Identities: spec.Identities, Sample: pl.AuditIdentities, Seed: pl.Seed,
		Fleet: spec.Fleet, FleetStart: ms.rec.Start, Ideal: spec.Ideal}
	if b := spec.Boundary; spec.Shape == plan.ShapeBoundary {
		// Around the boundary: the first burst, the second, and as much
		// again on either side.
		reach := 2 * (b.Offset + b.Spread).Milliseconds()
		c.EdgeFromMs, c.EdgeToMs = -reach-1, reach+1
	}
	if ms.session != nil {
		c.Timeline = audit.Timeline{Faults: spec.Faults, Start: ms.rec.Start, Offset: ms.session.Offset()}
		// A session that only follows a Sentinel-managed primary calls the
		// limiter as it is: its failed requests are taken as below.
		c.UnseenFromOutcomes = !ms.session.Caller()
	} else {
		// Without a caller of its own, a failed request is one call: the
		// audit takes those that may have run as calls whose outcome is
		// unknown, placed on the server's clock.
		c.UnseenFromOutcomes = true
		c.Timeline.Offset = ms.offset
	}
	return c
}

// traffic drives the run's schedule; an interrupt stops it issuing, and
// it waits for the calls in flight. It reports why the traffic ended
// early, or nil.
func (ms *measurement) traffic(ctx context.Context) error {
	r, spec := ms.r, ms.mc.Spec
	// A watcher counts the traffic's outcomes from before the observer is
	// told the run started.
	watched := ms.prog.traffic()
	for _, s := range r.Sinks {
		if w, ok := s.(event.Watcher); ok {
			w.TrafficStarted(watched)
			defer w.TrafficEnded(watched)
		}
	}
	if ms.mc.Progress != nil && r.Observer != nil {
		r.Observer.RunStarted(ms.prog)
	}
	t := traffic{run: spec, limiter: ms.session.Begin(ctx, ms.rec.Start, ms.lim, ms.keys, spec.Duration+faultsGrace, ms.aud), windows: ms.lim,
		keys: ms.keys, rec: ms.rec, quiet: ms.session.QuietSince}
	if ms.aud != nil {
		t.sinks = append(t.sinks, ms.aud)
		t.boundaries = append(t.boundaries, ms.aud)
	}
	if s := ms.session.Sink(); s != nil {
		t.sinks = append(t.sinks, s)
	}
	t.sinks = append(t.sinks, r.Sinks...)
	cpuBefore, cpuKnown := schedstat.Read(schedstat.Self)
	ms.serverBefore, ms.serverKnown = probe.ServerCPUSeconds(ctx, ms.target)
	ms.trafficBegan = true
	out, err := r.runSchedule(ctx, t)
	if cpuAfter, ok := schedstat.Read(schedstat.Self); cpuKnown && ok {
		out.generator = generatorFigures(cpuAfter.Sub(cpuBefore), out.elapsed, ms.rec.Completed())
	}
	ms.out = out
	ms.m.LagP99, ms.m.Busy = ms.rec.LagQuantile(99), out.busy
	return err
}

// readings reads what the run's traffic left, each part on its own state,
// in the order the server is read: the faults undone, the reference
// stopped, the server asked whether it is still there, then the audit's
// replay, then the probes' readings with the run's keys still there,
// then the server cost. It runs whatever ended the traffic (an error
// ends some readings early, see probe.Probe.Finish), and reports the
// traffic's error, or the server's.
func (ms *measurement) readings(ctx context.Context) error {
	r, spec, runErr := ms.r, ms.mc.Spec, ms.runErr
	// The progress keeps its trend: its last reading is what the
	// observers read of the finished run.
	memoryOverTime := ms.prog.trend.Stop(ctx)
	if serverAfter, ok := probe.ServerCPUSeconds(ctx, ms.target); ms.serverKnown && ok && ms.out.elapsed > 0 {
		ms.m.ServerCPU, ms.m.ServerCPUKnown = max(serverAfter-ms.serverBefore, 0)/ms.out.elapsed.Seconds(), true
	}
	ms.out.reloads = ms.lim.NoScriptReloads() - ms.reloadsBefore
	watched := ms.watch != nil
	var explained func(from, to time.Time) bool
	if ms.session != nil {
		explained = ms.session.Explains
	}
	seen := unscheduled(ms.watch.Stop(), spec.Faults, ms.rec.Start, ms.offset, explained)
	ms.watch = nil
	ms.out.malformed = malformedSince(ms.malformedBefore, malformedReplies(ms.lim))

	ms.session.End(ctx, runErr != nil)
	ms.reference.Halt(ctx)
	if runErr == nil {
		sent, errs := ms.rec.Counts()
		runErr = probe.CheckServer(ctx, ms.target, spec.Key(), errs, sent, ms.rec.ErrorCounts())
		if runErr == nil && !spec.Faults.Any() && len(seen.Happenings) == 0 && len(ms.session.Switches()) == 0 {
			// Inside a fault, scheduled or not (a failover among them),
			// the errors are the fault's, and the audit knows their
			// windows.
			runErr = probe.CheckRefusals(ms.target, spec.Key(), sent, errs, ms.rec.ErrorCounts(), r.Plan.Profile.Budget())
		}
	}
	p := parts{run: spec, prefix: ms.mc.Prefix, planned: ms.planned, keys: ms.keys, rec: ms.rec, schedule: ms.out, err: runErr,
		happenings: seen.Happenings, timeout: r.Plan.Timeout, takesTime: algorithms.TakesCallerTime(ms.lim), memoryOverTime: memoryOverTime}
	p.eviction = ms.evictions.Finish(ctx, ms.session.Switches())
	if p.eviction != nil && watched {
		// The watch placed every eviction and restart of the traffic on
		// its timeline, and the audit judged from the state they left.
		p.eviction.Audited = true
	}
	p.audit = ms.aud.Finish(ms.session.StateLosses(), seen.Resets)
	p.faults = ms.session.Finish(ms.out.elapsed)
	p.probe = ms.prb.Finish(ctx, ms.mc.Prefix, runErr, ms.session.Switches())
	p.reference, p.cost = ms.reference.Finish(ctx, ms.lim, ms.mc.Prefix, runErr)
	ms.finished = true
	ms.parts = p
	return runErr
}

// cleanUp removes the run's keys (unless they are kept on purpose) and
// the keys its server cost was measured on.
func (ms *measurement) cleanUp() {
	r := ms.r
	if ms.trafficBegan && !r.KeepKeys {
		r.removeRunKeys(ms.mc.Prefix, ms.keys, ms.declared, ms.mc.Spec.Identities, ms.parts.probe.Memory)
	}
	if ms.reference != nil {
		cost := probe.CostPrefix(ms.mc.Prefix)
		if r.Env.Access.Allows(redisenv.CmdScan) || r.Env.Cluster != nil {
			_ = r.Env.RemoveKeys(cost)
		} else {
			// No SCAN to find them: the identities the cost decided, by
			// name.
			_, _ = r.Env.RemoveNamed(cost, probe.CostKeys, func(i int) string { return probe.CostKey(cost, i) })
		}
	}
}

// close stops whatever a phase started and no later phase finished, and
// releases what prepare opened: the limiter's library, the faults'
// clients and servers.
func (ms *measurement) close() {
	if !ms.finished {
		if ms.prb != nil {
			ms.prb.Stop()
		}
		ms.reference.Halt(context.Background())
		ms.watch.Stop()
		if ms.prog != nil {
			ms.prog.trend.Stop(context.Background())
		}
	}
	if ms.lim != nil {
		unload(ms.lim, ms.r.Plan.Timeout)
	}
	ms.session.Close()
}
