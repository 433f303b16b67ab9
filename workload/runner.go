package workload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// Progress describes the run in flight, for progress bars.
type Progress struct {
	Spec  profile.RunSpec
	Index int
	Total int
	// Started is when measuring began; Duration is the planned length.
	Started  time.Time
	Duration time.Duration
	// Planned is the number of requests the schedule holds, when known.
	Planned int64
	rec     *recorder
}

// Done is how many requests have completed so far.
func (p *Progress) Done() int64 {
	if p.rec == nil {
		return 0
	}
	return p.rec.completed()
}

// Observer is told when runs start and finish (the command line draws a
// progress bar from it). A nil Observer is fine.
type Observer interface {
	RunStarted(p *Progress)
	RunFinished(p *Progress, r *result.Run)
}

// ErrInterrupted ends a run that was stopped (Ctrl-C); what was measured is
// still returned, marked incomplete.
var ErrInterrupted = errors.New("interrupted")

// AbortError ends a run because Redis stopped answering.
type AbortError struct {
	After time.Duration
	Last  string
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("aborted: no successful call for %s (last error: %s)", e.After.Round(time.Second), e.Last)
}

// DefaultAbortAfter is how long a run tolerates only errors before giving up.
const DefaultAbortAfter = 10 * time.Second

// Runner executes a profile's plan against one Redis and reports what it
// measured as the result contract.
type Runner struct {
	Profile *profile.Profile
	// Env is the Redis under test: its client, and where it came from (the
	// probes reset its statistics only on a Private server, note that
	// other clients move the figures of any other, and read no server
	// figures from an Embedded one).
	Env *redisenv.Env
	// RunID names this invocation; every key lives under rlbench:<RunID>:.
	RunID string
	// Clock defaults to the wall clock.
	Clock Clock
	// Observer may be nil.
	Observer Observer
	// KeepKeys leaves the run's keys in Redis for inspection.
	KeepKeys bool
	// AbortAfter ends a run whose calls have only failed for this long;
	// zero means DefaultAbortAfter.
	AbortAfter time.Duration
	// Repeat runs every run this many times (on fresh keys each time), so
	// noisy figures can be reported as medians with their spread. Zero or
	// one means once.
	Repeat int
	// Segments, when set, runs one segment of the profile's identities in
	// step with the processes that run the others.
	Segments Segments
	// ShareCPUs leaves one CPU to a Redis on this machine while the runs
	// last (when the clock can tune the process): a generator competing
	// with the server for cores measures its own contention.
	ShareCPUs bool
	// NewLimiter builds each run's limiter by name; nil means
	// algorithms.New. It lets a caller run, and audit, a limiter of its
	// own under a registered name.
	NewLimiter func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error)
}

// NewRunID returns a short random run id.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RunPrefix is the prefix of every key this invocation writes.
func (r *Runner) RunPrefix() string { return redisenv.KeyPrefixRoot + r.RunID + ":" }

// KeyPrefix is the prefix of one run's keys:
// rlbench:<run-id>:<algorithm>:<scenario>:.
func (r *Runner) KeyPrefix(spec profile.RunSpec) string {
	scenario := spec.Scenario.Name
	if r.Repeat > 1 {
		scenario += fmt.Sprintf("~r%d", spec.Repetition+1)
	}
	return r.RunPrefix() + spec.Algorithm + ":" + scenario + ":"
}

// Run executes every run of the plan in order and returns the result: the
// profile and the server it ran on, and each run's figures, repetitions
// folded into one run each. Only the tool's own description, the
// thresholds and the verdict are left to the caller. When ctx ends, the
// run in flight stops issuing, waits for calls in flight, and is kept
// marked incomplete, the result is marked incomplete and the error is
// ErrInterrupted; later runs are skipped. When Redis stops answering, the
// run is aborted the same way with an *AbortError.
func (r *Runner) Run(ctx context.Context) (*result.Result, error) {
	if r.Clock == nil {
		r.Clock = RealClock{}
	}
	if r.RunID == "" {
		r.RunID = NewRunID()
	}
	if r.AbortAfter <= 0 {
		r.AbortAfter = DefaultAbortAfter
	}
	res := &result.Result{
		Schema:     result.Schema,
		Profile:    profileInfo(r.Profile),
		Redis:      redisInfo(r.Env),
		RunID:      r.RunID,
		StartedAt:  time.Now().UTC(),
		Thresholds: []result.ThresholdResult{},
	}
	if t, ok := r.Clock.(ProcessTuner); ok && r.ShareCPUs && r.Env.Mode != redisenv.Embedded && r.Env.OnThisMachine() {
		defer t.ShareCPUs()()
	}
	res.Host = hostInfo()
	res.Segment = r.Segments.contract(r.Profile)
	var runs []result.Run
	err := r.waitForStart(ctx)
	if err == nil {
		runs, err = r.runPlan(ctx)
	}
	res.Runs = result.MergeRepetitions(runs)
	res.FinishedAt = time.Now().UTC()
	res.Complete = err == nil
	switch {
	case errors.Is(err, ErrInterrupted):
		res.IncompleteReason = "interrupted (Ctrl-C)"
	case err != nil:
		res.IncompleteReason = err.Error()
	}
	return res, err
}

func (r *Runner) runPlan(ctx context.Context) ([]result.Run, error) {
	plan := r.Profile.Plan(r.Repeat)
	var runs []result.Run
	for i, spec := range plan {
		if ctx.Err() != nil {
			return runs, ErrInterrupted
		}
		run, err := r.runOne(ctx, i, len(plan), spec)
		if run != nil {
			runs = append(runs, *run)
		}
		if err != nil {
			return runs, err
		}
	}
	return runs, nil
}

func (r *Runner) runOne(ctx context.Context, index, total int, spec profile.RunSpec) (*result.Run, error) {
	p := r.Profile
	faults, err := r.openFaults(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer faults.close()
	lim, err := r.newLimiter(spec, faults.redis())
	if err != nil {
		return nil, err
	}
	faults.useLimiter(lim)
	defer r.unload(lim)
	setup, cancel := context.WithTimeout(ctx, p.Timeout+5*time.Second)
	defer cancel()
	if err := lim.Load(setup); err != nil {
		return nil, err
	}
	conc := p.RunConcurrency(spec.Scenario)
	r.warmPool(setup, r.Env.Client, conc)
	faults.warm(setup, conc)

	prefix := r.KeyPrefix(spec)
	if p.Warmup > 0 {
		warm := spec
		warm.Scenario.Duration = p.Warmup
		warm.Scenario.Requests = 0
		warmPrefix := strings.TrimSuffix(prefix, ":") + "~warmup:"
		r.runSchedule(ctx, lim, warm, warmPrefix, newRecorder(r.Clock.Now()))
		r.cleanup(warmPrefix)
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
	}

	keys := r.keyScheme(lim, spec, prefix)
	probe := r.startProbe(ctx, lim, spec.Scenario.Identities, keys)
	if err := r.meet(ctx, index); err != nil {
		probe.self.stop()
		return nil, err
	}
	evictions := r.watchEvictions(ctx)
	var reference *referenceSampler
	if !spec.Scenario.HasFaults() {
		// Trivial calls would go through the faults too: no reference.
		reference = r.startReference(ctx, spec.Scenario.Rate.Max, conc)
	}
	reloadsBefore := lim.NoScriptReloads()
	rec := newRecorder(r.Clock.Now())
	rec.audit = newAuditor(lim, spec.Scenario.Identities, p.Audit, p.Seed)
	if b := spec.Scenario.Boundary; spec.Scenario.Shape == profile.ShapeBoundary {
		// Around the boundary: the first burst, the second, and as much
		// again on either side.
		reach := 2 * (b.Offset + b.Spread).Milliseconds()
		rec.audit.watchEdges(-reach-1, reach+1)
	}
	run := newRun(p, spec, prefix, conc)
	run.Params.HashTag = string(keys.tag)
	prog := &Progress{Spec: spec, Index: index, Total: total, Started: rec.start, Duration: spec.Scenario.Duration,
		Planned: plannedShare(p.PlannedRequests(spec.Scenario), r.Segments.Segment, spec.Scenario.Identities), rec: rec}
	if r.Observer != nil {
		r.Observer.RunStarted(prog)
	}

	sched := faults.begin(ctx, rec, lim, prefix, spec.Scenario.Duration+faultsGrace)
	cpuBefore, cpuKnown := schedstat.Read(schedstat.Self)
	out, runErr := r.runSchedule(ctx, sched, spec, prefix, rec)
	if cpuAfter, ok := schedstat.Read(schedstat.Self); cpuKnown && ok {
		run.Generator = generatorFigures(cpuAfter.Sub(cpuBefore), out.elapsed)
	}
	faults.end(ctx, runErr != nil)
	reference.halt(ctx)
	rec.fill(run)
	rec.audit.setStateEvents(faults.stateEvents())
	if runErr == nil {
		runErr = r.checkServer(ctx, run)
	}
	evictions.finish(ctx, run, faults.serverSwitches())
	run.ElapsedS = out.elapsed.Seconds()
	if out.elapsed > 0 {
		run.Rate.AchievedPerS = float64(run.Requests.Sent) / out.elapsed.Seconds()
	}
	run.Requests.Unsent = out.unsent
	run.Pipeline = out.pipeline
	run.Requests.NoScriptReloads = lim.NoScriptReloads() - reloadsBefore
	auditHeap := rec.audit.heapBytes()
	run.Audit, run.Edge = rec.audit.result()
	faults.fill(run, out.elapsed, rec.audit.faultFigures())
	setAuditCoverage(run.Audit, run.Requests.Decisions())
	if out.clock != nil {
		run.ClockOffset = out.clock.contract()
	}
	if runErr != nil {
		run.Incomplete = true
		run.Note = runErr.Error()
	}
	probe.finish(ctx, prefix, run, runErr, faults.serverSwitches())
	if run.Memory != nil {
		run.Memory.AuditHeapBytes = auditHeap
	}
	reference.finish(ctx, run, lim, prefix, runErr)
	if !r.KeepKeys {
		r.cleanup(prefix)
	}
	if r.Observer != nil {
		r.Observer.RunFinished(prog, run)
	}
	return run, runErr
}

// runSchedule runs one scenario's traffic against lim under prefix,
// watching for a Redis that has stopped answering.
func (r *Runner) runSchedule(ctx context.Context, lim algorithms.Limiter, spec profile.RunSpec, prefix string, rec *recorder) (out scheduleEnd, err error) {
	s := spec.Scenario
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	keys := r.keyScheme(lim, spec, prefix)
	d := &scheduler{
		limiter:     lim,
		prefix:      keys.head,
		tail:        keys.tail,
		clock:       r.Clock,
		rec:         rec,
		concurrency: r.Profile.RunConcurrency(s),
		callCtx:     context.WithoutCancel(ctx),
		segment:     r.Segments.Segment,
	}
	pipeline := r.Profile.RunPipeline(s)
	if _, caller := lim.(*caller); caller && pipeline.MaxBatch() > 1 {
		// The profile refuses this; a Runner built otherwise must too.
		return scheduleEnd{}, fmt.Errorf("scenario %s: pipeline %s sends requests together, and the faults and the client section need each limiter call on its own", s.Name, pipeline)
	}
	note := d.setPipeline(pipeline, r.Env.Client)
	defer func() { out.pipeline = d.pipelineFigures(pipeline, rec.completed(), note) }()
	d.lastSuccess.Store(rec.start.UnixNano())
	stopWatch := r.watch(runCtx, d, cancel)
	defer stopWatch()

	picker, err := newPicker(s, r.Profile.Seed)
	if err != nil {
		return scheduleEnd{}, err
	}
	switch {
	case s.Shape == profile.ShapeBoundary:
		if out, err = r.scheduleBoundary(runCtx, d, s); err != nil {
			return out, err
		}
	case s.Rate.Max:
		out = d.closedLoop(runCtx, Shared(picker), s.Duration, s.Requests)
	default:
		out = d.openLoop(runCtx, r.pacer(s), picker, s.Duration, s.Requests)
	}
	if out.interrupted {
		var abort *AbortError
		if errors.As(context.Cause(runCtx), &abort) {
			return out, abort
		}
		return out, ErrInterrupted
	}
	return out, nil
}

// watch aborts the run (through cancel) when calls have only failed for
// AbortAfter: a Redis that went away should end the run in seconds, not at
// the end of its schedule.
func (r *Runner) watch(ctx context.Context, d *scheduler, cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				ok, bad := d.lastSuccess.Load(), d.lastError.Load()
				ok = max(ok, d.rec.faults.quietSince())
				if bad > ok && time.Duration(bad-ok) > r.AbortAfter {
					cancel(&AbortError{After: time.Duration(bad - ok), Last: d.rec.lastError()})
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// warmPool opens the connections the run will use before it is timed (to
// every master of a cluster).
func (r *Runner) warmPool(ctx context.Context, rdb redis.UniversalClient, n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = redisenv.Ping(ctx, rdb) }()
	}
	wg.Wait()
}

// cleanup removes a run's keys, even after Ctrl-C, and on a fresh
// connection when the run's have died.
func (r *Runner) cleanup(prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := redisenv.NewProbeClient(r.Env.Client)
	defer rdb.Close()
	_ = rdb.Do(ctx, func(c redis.Cmdable) error {
		_, err := redisenv.DeletePrefix(ctx, c, prefix)
		return err
	})
}

// pacer is the open-loop schedule of scenario s: a ramp through its
// stages, or a constant or Poisson rate.
func (r *Runner) pacer(s profile.Scenario) Pacer {
	p := r.Profile
	pol := p.PolicyFor(s)
	if s.Shape == profile.ShapeRamp {
		stages := make([]RampStage, len(s.Stages))
		for i, st := range s.Stages {
			stages[i] = RampStage{PerSecond: st.Rate.TargetPerSecond(pol, s.Identities), Duration: st.Duration}
		}
		return NewRampPacer(s.From.TargetPerSecond(pol, s.Identities), stages, s.Arrival == profile.Poisson, p.Seed)
	}
	return NewPacer(s.Arrival, s.Rate.TargetPerSecond(pol, s.Identities), p.Seed)
}

// plannedShare is the part of a run's planned requests a segment sends:
// its share of the identities.
func plannedShare(planned int64, seg profile.Segment, identities int) int64 {
	if seg.Whole() || identities <= 0 {
		return planned
	}
	return planned * int64(seg.Share(identities)) / int64(identities)
}
