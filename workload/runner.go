package workload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/probe"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// Progress describes the run in flight, for progress bars.
type Progress struct {
	Run   plan.Run
	Index int
	Total int
	// Started is when measuring began; Duration is the planned length.
	Started  time.Time
	Duration time.Duration
	// Planned is the number of requests the schedule holds, when known.
	Planned int64
	rec     *recorder.Recorder
	// identities is how many identities this process sends for, bound
	// the run's limiter's promise for one, trend the sampling of memory.
	identities int
	bound      func(time.Duration) int64
	trend      *probe.Trend
}

// Done is how many requests have completed so far.
func (p *Progress) Done() int64 {
	if p.rec == nil {
		return 0
	}
	return p.rec.Completed()
}

// InFlight is how many requests have gone out and not yet been answered
// (or failed).
func (p *Progress) InFlight() int64 {
	if p.rec == nil {
		return 0
	}
	return p.rec.InFlight()
}

// traffic is the run's traffic as a watcher reads it (event.Watcher):
// the requests in flight, the admission bound so far, the latest reading
// of the server (at most probe.TrendInterval old while the traffic goes
// on).
func (p *Progress) traffic() *event.Traffic {
	return &event.Traffic{Run: p.Run, Started: p.Started, Planned: p.Planned, InFlight: p.InFlight,
		AdmissionBound: p.admissionBound, Server: func() event.ServerReading { return p.trend.Latest().ServerReading }}
}

// admissionBound is the most units the run's limiter promises to admit,
// all the identities this process sends for together, within the first d
// of the traffic: its bound for one identity over d, times the
// identities. It reports false for a limiter without a bound.
func (p *Progress) admissionBound(d time.Duration) (int64, bool) {
	if p.bound == nil || d < 0 {
		return 0, false
	}
	return p.bound(d) * int64(p.identities), true
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

// Runner executes a plan against one Redis and reports what it measured as
// the result contract.
type Runner struct {
	// Plan is what to run, resolved (profile.Profile.Plan makes one).
	Plan *plan.Plan
	// Env is the Redis under test: its client, and where it came from (the
	// probes reset its statistics only on a Private server, note that
	// other clients move the figures of any other, and read no server
	// figures from an Embedded one).
	Env *redisenv.Env
	// RunID names this invocation; every key lives under rlbench:<RunID>:.
	RunID string
	// Clock defaults to the wall clock.
	Clock event.Clock
	// Observer may be nil.
	Observer Observer
	// KeepKeys leaves the run's keys in Redis for inspection.
	KeepKeys bool
	// AbortAfter ends a run whose calls have only failed for this long;
	// zero means DefaultAbortAfter.
	AbortAfter time.Duration
	// Segments, when set, runs one segment of the plan's identities in
	// step with the processes that run the others.
	Segments Segments
	// ShareCPUs leaves one CPU to a Redis on this machine while the runs
	// last (when the clock can tune the process): a generator competing
	// with the server for cores measures its own contention.
	ShareCPUs bool
	// Sinks take every outcome of every run's traffic (not the
	// warm-up's), beside the audit and the faults' recorder: the live
	// metrics. Their Record must be cheap: it runs on the request path.
	Sinks []event.Sink
	// Hurry, once closed, cuts short what an interrupt (ctx of Run
	// ending) lets finish: the readings after the traffic, which a census
	// of a million keys makes last seconds. The run's keys are removed all
	// the same. nil: nothing hurries.
	Hurry <-chan struct{}
	// NewLimiter builds each run's limiter by name; nil means
	// algorithms.New. It lets a caller run, and audit, a limiter of its
	// own under a registered name.
	NewLimiter func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error)
	// Shapes makes the runs of the shapes that are not one measured
	// schedule, by shape: capacity.Shapes gives the capacity search. A
	// plan with a shape the runner was not given fails at that run.
	Shapes map[plan.Shape]Shape
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
func (r *Runner) KeyPrefix(spec plan.Run) string {
	scenario := spec.Scenario
	if r.Plan.Repeat > 1 {
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
// run is aborted the same way with an *AbortError. Every text the result
// keeps is cut to result.MaxTextBytes.
func (r *Runner) Run(ctx context.Context) (*result.Result, error) {
	if r.Clock == nil {
		r.Clock = event.RealClock{}
	}
	if r.RunID == "" {
		r.RunID = NewRunID()
	}
	if r.AbortAfter <= 0 {
		r.AbortAfter = DefaultAbortAfter
	}
	res := &result.Result{
		Schema:     result.Schema,
		Profile:    r.Plan.Profile,
		Redis:      redisInfo(r.Env),
		RunID:      r.RunID,
		StartedAt:  time.Now().UTC(),
		Thresholds: []result.ThresholdResult{},
	}
	if t, ok := r.Clock.(event.ProcessTuner); ok && r.ShareCPUs && r.Env.Mode != redisenv.Embedded && r.Env.OnThisMachine() {
		defer t.ShareCPUs()()
	}
	res.Host = hostInfo()
	res.Segment = r.Segments.contract(r.Plan)
	var runs []result.Run
	keyspace := r.keyspace(ctx)
	err := r.Segments.waitForStart(ctx, r.Clock)
	if err == nil {
		runs, err = r.runPlan(ctx)
	}
	if !r.KeepKeys {
		r.removeFromOtherDatabases(keyspace)
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
	res.ClipTexts()
	return res, err
}

func (r *Runner) runPlan(ctx context.Context) ([]result.Run, error) {
	var runs []result.Run
	for i, spec := range r.Plan.Runs {
		if ctx.Err() != nil {
			return runs, ErrInterrupted
		}
		run, err := r.runOne(ctx, i, len(r.Plan.Runs), spec)
		if run != nil {
			runs = append(runs, *run)
		}
		if err != nil {
			return runs, err
		}
	}
	if ctx.Err() != nil {
		// The interrupt came as the last run ended: the invocation was
		// not let finish.
		return runs, ErrInterrupted
	}
	return runs, nil
}

// runOne makes one run: one measured schedule, or a run of a shape of
// its own (Runner.Shapes).
func (r *Runner) runOne(ctx context.Context, index, total int, spec plan.Run) (*result.Run, error) {
	if shape, ok := r.Shapes[spec.Shape]; ok {
		return shape(ctx, r, index, total, spec)
	}
	if spec.Shape == plan.ShapeCapacity {
		return nil, fmt.Errorf("%s: shape capacity needs the capacity search, which this runner was not given (Runner.Shapes)", spec.Key())
	}
	m, err := r.Measure(ctx, Step{Spec: spec, Prefix: r.KeyPrefix(spec), Warmup: true, Reference: true,
		Progress: &Progress{Run: spec, Index: index, Total: total}})
	return m.Run, err
}

// Step is one measured schedule: the run it makes, the prefix its keys
// live under, whether the plan's warm-up comes first and the reference is
// measured around it, and the progress the observer is told of (nil:
// none). A run is one step; a shape of its own (Runner.Shapes) makes a
// run of many.
type Step struct {
	Spec              plan.Run
	Prefix            string
	Warmup, Reference bool
	Progress          *Progress
}

// Measured is what one measured schedule produced: the run's result, and
// what a shape of its own (a capacity search's step) reads of it besides.
type Measured struct {
	Run *result.Run
	// LagP99 is the p99 of each request's send after its due time.
	LagP99 time.Duration
	// Busy counts the requests that found every connection busy when they
	// were due.
	Busy int64
	// ServerCPU is the share of one CPU the server used over the traffic
	// (INFO cpu), and ServerCPUKnown whether it could be read.
	ServerCPU      float64
	ServerCPUKnown bool
}

// Shape makes the runs of a shape the engine does not run itself as one
// measured schedule: a capacity search measures many (Runner.Measure), on
// keys of their own, and reports one run of them. index and total place
// the run in the plan, for the observer.
type Shape func(ctx context.Context, r *Runner, index, total int, spec plan.Run) (*result.Run, error)

// removeRunKeys removes the keys of a run under prefix. When the census
// counted them, and there were no more than the identities (at most one
// key each, the key scheme's), it removes the identities' keys by name,
// and when that removed as many as the census counted, none is left: a
// SCAN of a million keys costs Redis more than naming them (1.4 s of its
// CPU against 0.9 s, measured on 7.0.15). Otherwise, or when the count
// differs (another key per identity, keys that expired meanwhile), a SCAN
// removes what is left. A declared limiter's keys, a cluster's and a
// segment's are removed by SCAN alone.
func (r *Runner) removeRunKeys(prefix string, keys event.KeyScheme, declared bool, identities int, m *result.Memory) {
	byName := m != nil && !m.CensusFailed && m.Keys > 0 && !declared && r.Env.Cluster == nil && r.Segments.Segment.Whole() &&
		m.Keys <= int64(identities) && int64(identities) <= 2*m.Keys
	if byName {
		removed, err := r.Env.RemoveNamed(prefix, identities, func(i int) string { return keys.Key(uint64(i)) })
		if err == nil && removed == m.Keys {
			return
		}
	}
	if !r.Env.Access.Allows(redisenv.CmdScan) && !declared && r.Env.Cluster == nil {
		// No SCAN to find them: the identities' keys, by name.
		_, _ = r.Env.RemoveNamed(prefix, identities, func(i int) string { return keys.Key(uint64(i)) })
		return
	}
	_ = r.Env.RemoveKeys(prefix)
}

// keyspace is each logical database's keys as the invocation starts, on
// a single server (nil elsewhere, or when INFO keyspace is refused).
func (r *Runner) keyspace(ctx context.Context) map[int]redisenv.DBKeys {
	single, ok := r.Env.Client.(*redis.Client)
	if !ok || r.Env.Mode == redisenv.Embedded {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.Plan.Timeout)
	defer cancel()
	k, _ := redisenv.Keyspace(ctx, single)
	return k
}

// removeFromOtherDatabases removes the invocation's keys that a script
// wrote in other logical databases than the run's and no run's readings
// removed (a run interrupted before them): every database that gained
// keys since before, swept for the invocation's prefix (on a private
// server, for every key).
func (r *Runner) removeFromOtherDatabases(before map[int]redisenv.DBKeys) {
	single, ok := r.Env.Client.(*redis.Client)
	if !ok || before == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Plan.Timeout+30*time.Second)
	defer cancel()
	_, _ = redisenv.SweepOtherDatabases(ctx, single, r.Env.Mode, r.RunPrefix(), before, 0)
}

// serverOffset estimates how far the server's clock is from this one, for
// placing failed calls on the server's timeline; without an answer, the
// two clocks are taken for one.
func (r *Runner) serverOffset(ctx context.Context) event.Offset {
	ctx, cancel := context.WithTimeout(ctx, r.Plan.Timeout)
	defer cancel()
	offset, err := event.EstimateOffset(ctx, r.Env.Client, r.Clock, event.DefaultOffsetSamples/2)
	if err != nil {
		return event.Offset{}
	}
	return offset
}

// faultsGrace is how much longer than its duration a run's fault bins
// reach: calls in flight at the end, and a schedule that ran late.
const faultsGrace = 10 * time.Second

// traffic is what one schedule sends and where its outcomes go.
type traffic struct {
	run plan.Run
	// limiter is what the requests call (the caller around the limiter in
	// a run with faults or a client); windows is the limiter itself.
	limiter, windows algorithms.Limiter
	keys             event.KeyScheme
	rec              *recorder.Recorder
	sinks            []event.Sink
	boundaries       []event.BoundarySink
	// quiet says since when calls without an answer are not explained by
	// a fault (unix nanos; nil: never).
	quiet func() int64
}

// runSchedule runs one run's traffic, watching for a Redis that has
// stopped answering.
func (r *Runner) runSchedule(ctx context.Context, t traffic) (out scheduleEnd, err error) {
	s := t.run
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	d := &scheduler{
		limiter:     t.limiter,
		windows:     t.windows,
		sinks:       t.sinks,
		boundaries:  t.boundaries,
		keys:        t.keys,
		clock:       r.Clock,
		rec:         t.rec,
		concurrency: s.Concurrency,
		callCtx:     context.WithoutCancel(ctx),
		segment:     r.Segments.Segment,
	}
	d.fleet = newFleetRoute(s.Fleet, r.Plan.Seed, d.callCtx, r.Clock, t.rec.Start)
	t.rec.CountInstances(s.Fleet.Instances())
	note := d.setPipeline(s.Pipeline, r.Env.Client)
	if d.piped != nil {
		d.fleet.pipe(t.windows, d.piped)
	}
	defer func() { out.pipeline = d.pipelineFigures(s.Pipeline, t.rec.Completed(), note) }()
	d.lastSuccess.Store(t.rec.Start.UnixNano())
	stopWatch := r.watch(runCtx, d, cancel, t.quiet)
	defer stopWatch()

	picker, err := arrivals.NewPicker(s, r.Plan.Seed)
	if err != nil {
		return scheduleEnd{}, err
	}
	switch {
	case s.Shape == plan.ShapeBoundary:
		if out, err = d.boundary(runCtx, r.Env.Client, s); err != nil {
			return out, err
		}
	case s.ClosedLoop:
		out = d.closedLoop(runCtx, arrivals.Shared(picker), s.Duration, s.Requests)
	case s.Replay != nil:
		replay, err := arrivals.OpenReplay(runCtx, s, r.Plan.Seed)
		if err != nil {
			return scheduleEnd{}, err
		}
		out = d.openLoop(runCtx, replay, s.Duration)
		replay.Close()
		if err := replay.Err(); err != nil {
			return out, fmt.Errorf("replaying the trace: %w", err)
		}
	default:
		out = d.openLoop(runCtx, arrivals.For(s, picker, r.Plan.Seed), s.Duration)
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
func (r *Runner) watch(ctx context.Context, d *scheduler, cancel context.CancelCauseFunc, quiet func() int64) (stop func()) {
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
				if quiet != nil {
					ok = max(ok, quiet())
				}
				if bad > ok && time.Duration(bad-ok) > r.AbortAfter {
					cancel(&AbortError{After: time.Duration(bad - ok), Last: d.rec.LastError()})
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// identityShare is how many of a run's identities a segment sends for.
func identityShare(seg plan.Segment, identities int) int {
	if seg.Whole() || identities <= 0 {
		return identities
	}
	return seg.Share(identities)
}

// plannedShare is the part of a run's planned requests a segment sends:
// its share of the identities.
func plannedShare(planned int64, seg plan.Segment, identities int) int64 {
	if identities <= 0 {
		return planned
	}
	return planned * int64(identityShare(seg, identities)) / int64(identities)
}
