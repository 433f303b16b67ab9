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
)

// RunSpec is one run of a plan: one algorithm in one scenario.
type RunSpec struct {
	Scenario  Scenario
	Algorithm string
	// Repetition counts from 0 when the plan repeats each run.
	Repetition int
}

// Plan lists the runs of the profile: scenario by scenario, each algorithm in
// turn, so runs that are compared side by side are also run close in time.
func (p *Profile) Plan() []RunSpec {
	var out []RunSpec
	for _, s := range p.Scenarios {
		for _, a := range p.Algorithms {
			out = append(out, RunSpec{Scenario: s, Algorithm: a})
		}
	}
	return out
}

// Client is what a run needs from go-redis: the scripts, plus PING, SCAN and
// UNLINK for pool warm-up and cleanup. *redis.Client satisfies it.
type Client interface {
	algorithms.Redis
	redis.Cmdable
}

// Progress describes the run in flight, for progress bars.
type Progress struct {
	Spec  RunSpec
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
	RunFinished(p *Progress, r *RunResult)
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

// Runner executes a profile's plan against one Redis.
type Runner struct {
	Profile *Profile
	Client  Client
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
	// NewLimiter builds each run's limiter by name; nil means
	// algorithms.New. It lets a caller run, and audit, a limiter of its
	// own under a registered name.
	NewLimiter func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error)
	// Mode says where the Redis came from: the probes reset its statistics
	// only on a Private server, note that other clients move the figures of
	// any other, and read no server figures from an Embedded one. Empty
	// counts as External.
	Mode redisenv.Mode
}

// plan is the profile's plan with each run repeated: scenario by scenario,
// repetition by repetition, each algorithm in turn, so repetitions of one
// algorithm are spread over time rather than run back to back.
func (r *Runner) plan() []RunSpec {
	reps := max(r.Repeat, 1)
	var out []RunSpec
	for _, s := range r.Profile.Scenarios {
		for k := 0; k < reps; k++ {
			for _, a := range r.Profile.Algorithms {
				out = append(out, RunSpec{Scenario: s, Algorithm: a, Repetition: k})
			}
		}
	}
	return out
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
func (r *Runner) KeyPrefix(spec RunSpec) string {
	scenario := spec.Scenario.Name
	if r.Repeat > 1 {
		scenario += fmt.Sprintf("~r%d", spec.Repetition+1)
	}
	return r.RunPrefix() + spec.Algorithm + ":" + scenario + ":"
}

// Run executes every run of the plan in order and returns what each
// measured. When ctx ends, the run in flight stops issuing, waits for calls
// in flight, and is returned marked incomplete with ErrInterrupted; later
// runs are skipped. When Redis stops answering, the run is aborted the same
// way with an *AbortError.
func (r *Runner) Run(ctx context.Context) ([]*RunResult, error) {
	if r.Clock == nil {
		r.Clock = RealClock{}
	}
	if r.RunID == "" {
		r.RunID = NewRunID()
	}
	if r.AbortAfter <= 0 {
		r.AbortAfter = DefaultAbortAfter
	}
	plan := r.plan()
	var results []*RunResult
	for i, spec := range plan {
		if ctx.Err() != nil {
			return results, ErrInterrupted
		}
		res, err := r.runOne(ctx, i, len(plan), spec)
		if res != nil {
			results = append(results, res)
		}
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

func (r *Runner) concurrency(s Scenario) int {
	if s.Concurrency > 0 {
		return s.Concurrency
	}
	return r.Profile.Concurrency
}

func (r *Runner) runOne(ctx context.Context, index, total int, spec RunSpec) (*RunResult, error) {
	p := r.Profile
	newLimiter := r.NewLimiter
	if newLimiter == nil {
		newLimiter = algorithms.New
	}
	lim, err := newLimiter(spec.Algorithm, r.Client, p.Policy)
	if err != nil {
		return nil, err
	}
	setup, cancel := context.WithTimeout(ctx, p.Timeout+5*time.Second)
	defer cancel()
	if err := lim.Load(setup); err != nil {
		return nil, err
	}
	conc := r.concurrency(spec.Scenario)
	r.warmPool(setup, conc)

	prefix := r.KeyPrefix(spec)
	if p.Warmup > 0 {
		warm := spec
		warm.Scenario.Duration = p.Warmup
		warm.Scenario.Requests = 0
		warmPrefix := strings.TrimSuffix(prefix, ":") + "~warmup:"
		r.drive(ctx, lim, warm, warmPrefix, newRecorder(r.Clock.Now()))
		r.cleanup(warmPrefix)
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
	}

	probe := r.startProbe(ctx)
	reloadsBefore := lim.NoScriptReloads()
	rec := newRecorder(r.Clock.Now())
	rec.audit = newAuditor(lim, spec.Scenario.Identities, p.Audit, p.Seed)
	res := &RunResult{
		Algorithm:       spec.Algorithm,
		Repetition:      spec.Repetition,
		Scenario:        spec.Scenario,
		Policy:          p.Policy,
		KeyPrefix:       prefix,
		Identities:      spec.Scenario.Identities,
		Concurrency:     conc,
		Started:         rec.start,
		TargetPerSecond: spec.Scenario.Rate.TargetPerSecond(p.Policy, spec.Scenario.Identities),
	}
	prog := &Progress{Spec: spec, Index: index, Total: total, Started: rec.start, Duration: spec.Scenario.Duration, rec: rec}
	if res.TargetPerSecond > 0 {
		prog.Planned = int64(res.TargetPerSecond * spec.Scenario.Duration.Seconds())
		if spec.Scenario.Requests > 0 && spec.Scenario.Requests < prog.Planned {
			prog.Planned = spec.Scenario.Requests
		}
	} else if spec.Scenario.Requests > 0 {
		prog.Planned = spec.Scenario.Requests
	}
	if r.Observer != nil {
		r.Observer.RunStarted(prog)
	}

	out, runErr := r.drive(ctx, lim, spec, prefix, rec)
	rec.fill(res)
	res.Elapsed = out.elapsed
	res.Counts.Unsent = out.unsent
	res.Counts.NoScriptReloads = lim.NoScriptReloads() - reloadsBefore
	res.Audit = rec.audit.result()
	res.ClockOffset = out.clock
	if runErr != nil {
		res.Incomplete = true
		res.Note = runErr.Error()
	}
	probe.finish(ctx, prefix, res, runErr)
	if !r.KeepKeys {
		r.cleanup(prefix)
	}
	if r.Observer != nil {
		r.Observer.RunFinished(prog, res)
	}
	return res, runErr
}

// drive runs one scenario's traffic against lim under prefix, watching for a
// Redis that has stopped answering.
func (r *Runner) drive(ctx context.Context, lim algorithms.Limiter, spec RunSpec, prefix string, rec *recorder) (issued, error) {
	s := spec.Scenario
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	d := &drive{
		limiter:     lim,
		prefix:      prefix,
		clock:       r.Clock,
		rec:         rec,
		concurrency: r.concurrency(s),
		callCtx:     context.WithoutCancel(ctx),
	}
	d.lastSuccess.Store(rec.start.UnixNano())
	stopWatch := r.watch(runCtx, d, cancel)
	defer stopWatch()

	picker, err := s.picker(r.Profile.Seed)
	if err != nil {
		return issued{}, err
	}
	var out issued
	switch {
	case s.Shape == ShapeBoundary:
		if out, err = r.driveBoundary(runCtx, d, s); err != nil {
			return out, err
		}
	case s.Rate.Max:
		out = d.closed(runCtx, Shared(picker), s.Duration, s.Requests)
	default:
		target := s.Rate.TargetPerSecond(r.Profile.Policy, s.Identities)
		out = d.open(runCtx, NewPacer(s.Arrival, target, r.Profile.Seed), picker, s.Duration, s.Requests)
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
func (r *Runner) watch(ctx context.Context, d *drive, cancel context.CancelCauseFunc) (stop func()) {
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
				if bad > ok && time.Duration(bad-ok) > r.AbortAfter {
					cancel(&AbortError{After: time.Duration(bad - ok), Last: d.rec.lastError()})
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// warmPool opens the connections the run will use before it is timed.
func (r *Runner) warmPool(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Client.Ping(ctx).Err() }()
	}
	wg.Wait()
}

// cleanup removes a run's keys, even after Ctrl-C.
func (r *Runner) cleanup(prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = redisenv.DeletePrefix(ctx, r.Client, prefix)
}
