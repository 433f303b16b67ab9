// Package capacity is the capacity shape: a search, step by step, for the
// highest open-loop rate a limiter holds an SLO at (Search, a pure function
// of the steps' outcomes), each step one schedule the engine measures
// (workload.Runner.Measure) and judges against the SLO, whose doing a
// broken step was (the limiter's, or rlbench's, which the search then
// gives more workers or pipelining), and the run that reports what it
// found (result.Capacity). It sits beside the engine: the engine runs it
// as one of its Runner.Shapes and never imports it.
package capacity

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// Shapes gives a runner the capacity shape (workload.Runner.Shapes).
func Shapes() map[plan.Shape]workload.Shape {
	return map[plan.Shape]workload.Shape{plan.ShapeCapacity: Run}
}

// Run makes a capacity run (a workload.Shape). The search (Search) chooses each
// step's rate; each step is one measured open loop at that rate for the
// step's time, on keys of its own, audited as any run is. A step rlbench
// could not keep is offered again with more workers or pipelining where
// the plan allows it, and ends the search as generator-bound where it
// does not: it is never taken for the limiter's doing. After the search, a
// pipelined closed loop of the same script measures the throughput the
// capacity is set beside. The run's result is the step at the capacity
// found, with the audit of every step and the capacity section (see
// result.Capacity).
func Run(ctx context.Context, r *workload.Runner, index, total int, spec plan.Run) (*result.Run, error) {
	c := spec.Capacity
	prog := &workload.Progress{Run: spec, Index: index, Total: total, Started: r.Clock.Now(), Duration: c.Span()}
	if r.Observer != nil {
		r.Observer.RunStarted(prog)
	}
	prefix := strings.TrimSuffix(r.KeyPrefix(spec), ":")
	cores := 1
	if r.Env.Cluster != nil {
		cores = max(r.Env.Cluster.Masters, 1)
	}
	found := searchSteps(ctx, spec, runtime.GOMAXPROCS(0), cores, func(ctx context.Context, step plan.Run, n int) (workload.Measured, error) {
		return r.Measure(ctx, workload.Step{Spec: step, Prefix: fmt.Sprintf("%s~s%d:", prefix, n+1), Warmup: n == 0})
	})
	runErr := found.err
	audited := slices.Clone(found.runs)
	var pipelined *result.PipelinedRun
	if runErr == nil && c.Pipelined > 0 && ctx.Err() == nil {
		p, m, err := pipelinedRun(ctx, r, spec, prefix+"~pipelined:")
		if m != nil {
			audited = append(audited, m)
		}
		pipelined, runErr = p, err
	}
	if found.cut != nil {
		audited = append(audited, found.cut)
	}
	run := capacityRun(spec, found, audited, pipelined)
	if runErr != nil && run != nil {
		run.Incomplete = true
		run.Note = runErr.Error()
		if run.Capacity.End == "" {
			run.Capacity.End = result.CapacityInterrupted
		}
	}
	if r.Observer != nil && run != nil {
		r.Observer.RunFinished(prog, run)
	}
	return run, runErr
}

// stepRunner measures step n of a search: the run spec at the step's
// rate, for the step's time, with the step's workers and pipeline.
type stepRunner func(ctx context.Context, step plan.Run, n int) (workload.Measured, error)

// searched is what a search's steps found: the search itself, each step
// judged with its run (in order), a step cut short by an error (its run,
// when it has one, for the audit), and the error.
type searched struct {
	search *Search
	steps  []result.CapacityStep
	runs   []*result.Run
	cut    *result.Run
	err    error
}

// searchSteps runs a capacity search: it measures each step Search asks
// for with measure, judges it against the SLO, adds workers or pipelining
// when rlbench fell behind and the plan allows more, and stops when the
// search ends, ctx ends, or a step fails. procs is how many CPUs rlbench
// may use at once, cores how many serve the limiter (a cluster's masters).
func searchSteps(ctx context.Context, spec plan.Run, procs, cores int, measure stepRunner) searched {
	c := spec.Capacity
	out := searched{search: NewSearch(c)}
	gen := generator{concurrency: spec.Concurrency, pipeline: spec.Pipeline.MaxBatch(), auto: spec.Pipeline.Auto, procs: procs}
	for n := 0; ; n++ {
		rate, ok := out.search.Next()
		if !ok {
			return out
		}
		if ctx.Err() != nil {
			out.err = workload.ErrInterrupted
			return out
		}
		step := gen.apply(spec)
		step.TargetPerSecond, step.Duration, step.Requests = rate, c.Step, 0
		step.Rate = strconv.FormatFloat(rate, 'f', -1, 64) + "/s"
		step.Planned = int64(rate * c.Step.Seconds())
		m, err := measure(ctx, step, n)
		if err != nil {
			out.cut, out.err = m.Run, err
			return out
		}
		figures := stepFiguresOf(m, cores)
		outcome, cause := judgeStep(c.SLO, figures, gen.procs)
		if outcome == StepGeneratorShort && !gen.grow(cause, c) {
			outcome = StepGeneratorBound
		}
		out.search.Record(outcome)
		out.steps, out.runs = append(out.steps, capacityStep(m, step, outcome, cause)), append(out.runs, m.Run)
	}
}

// pipelinedRun is the closed loop of the capacity run's script, pipelined
// as redis-benchmark -P 16 is, on keys under prefix: what the server
// decides a second when a batch shares each round trip.
func pipelinedRun(ctx context.Context, r *workload.Runner, spec plan.Run, prefix string) (*result.PipelinedRun, *result.Run, error) {
	c := spec.Capacity
	run := spec
	run.ClosedLoop, run.TargetPerSecond, run.Rate = true, 0, "max"
	run.Duration, run.Requests, run.Planned = c.Pipelined, 0, 0
	run.Pipeline = plan.Pipeline{Depth: c.PipelinedDepth}
	m, err := r.Measure(ctx, workload.Step{Spec: run, Prefix: prefix})
	if m.Run == nil {
		return nil, nil, err
	}
	p := &result.PipelinedRun{PerS: m.Run.Rate.AchievedPerS, Depth: c.PipelinedDepth, Connections: run.Concurrency,
		ServerCPU: m.ServerCPU, Generator: m.Run.Generator}
	if pp := m.Run.Pipeline; pp != nil {
		p.Depth = pp.Depth
	}
	return p, m.Run, err
}

// generator is what rlbench sends a step's traffic with: its workers and
// its pipeline depth, which the search raises when rlbench falls behind.
type generator struct {
	concurrency, pipeline int
	auto                  bool
	// procs is how many CPUs rlbench's Go code may use at once.
	procs int
}

// apply is spec sent with g's workers and pipeline.
func (g generator) apply(spec plan.Run) plan.Run {
	spec.Concurrency = g.concurrency
	spec.Pipeline = plan.Pipeline{Depth: g.pipeline, Auto: g.auto}
	if g.pipeline <= 1 && !g.auto {
		spec.Pipeline = plan.Pipeline{}
	}
	return spec
}

// grow adds to g what would let it keep a step it could not, for cause:
// pipelining (which costs rlbench less CPU a request) when it ran out of
// CPU, where more workers would only share the same CPU; workers first
// and then pipelining otherwise. It reports false when the plan allows
// nothing more that would help.
func (g *generator) grow(cause string, c plan.Capacity) bool {
	moreWorkers := func() bool {
		if g.concurrency >= c.MaxConcurrency {
			return false
		}
		g.concurrency = min(2*g.concurrency, c.MaxConcurrency)
		return true
	}
	morePipeline := func() bool {
		if g.auto || g.pipeline >= c.MaxPipeline {
			return false
		}
		g.pipeline = c.MaxPipeline
		return true
	}
	if cause == result.CauseGeneratorCPU {
		return morePipeline()
	}
	return moreWorkers() || morePipeline()
}

// capacityStep is the contract's record of one step.
func capacityStep(m workload.Measured, spec plan.Run, o StepOutcome, cause string) result.CapacityStep {
	run := m.Run
	s := result.CapacityStep{
		TargetPerS: spec.TargetPerSecond, AchievedPerS: run.Rate.AchievedPerS,
		Concurrency: spec.Concurrency, Pipeline: spec.Pipeline.MaxBatch(),
		Sent: run.Requests.Sent, Errors: run.Requests.Errors, Late: run.Requests.Late,
		P50Us: run.LatencyUs.P50, P99Us: run.LatencyUs.P99, P99FromSendUs: run.LatencyUncorrectedUs.P99,
		LagP99Us:  m.LagP99.Microseconds(),
		ServerCPU: m.ServerCPU, Generator: run.Generator,
		Outcome: o.String(), Cause: cause, Busy: m.Busy, Unsent: run.Requests.Unsent,
	}
	if q := run.Requests; q.Sent > 0 {
		s.ErrorShare = float64(q.Errors) / float64(q.Sent)
	}
	if sv := run.Server; sv != nil {
		s.ServerUsecPerCall = sv.UsecPerCall
	}
	if a := run.Audit; a != nil {
		s.Audit = &result.StepAudit{Allowed: a.Allowed, ExpectedAllowed: a.ExpectedAllowed, MaxWindowAdmitted: a.MaxWindowAdmitted,
			BoundWindow: a.BoundWindow, Overshoot: a.Overshoot, ModelMismatches: a.ModelMismatches, UnderAdmitted: a.UnderAdmitted}
	}
	return s
}

// capacityRun is a capacity run's result: the step at the capacity found
// (the last that held at that rate; the first step when none held), with
// the audit of every run in audited (each step, the pipelined run and a
// step cut short, on keys of their own) and the capacity section; nil
// when nothing was measured.
func capacityRun(spec plan.Run, found searched, audited []*result.Run, pipelined *result.PipelinedRun) *result.Run {
	if len(audited) == 0 {
		return nil
	}
	held, broke, end, boundAt, _ := found.search.Found()
	steps, stepRuns := found.steps, found.runs
	at := 0
	for i, s := range steps {
		if s.Outcome == result.StepHeld && s.TargetPerS == held {
			at = i
		}
	}
	run := audited[0]
	if at < len(stepRuns) {
		run = stepRuns[at]
	}
	combined := result.CombineAudits(audited)
	if run.Memory != nil {
		for _, p := range audited {
			if p.Memory != nil {
				run.Memory.AuditHeapBytes = max(run.Memory.AuditHeapBytes, p.Memory.AuditHeapBytes)
			}
		}
	}
	run.Audit = combined
	run.Accuracy = result.CombineAccuracy(audited)
	c := spec.Capacity
	out := &result.Capacity{
		SLO: result.SLO{P99Us: c.SLO.P99.Microseconds(), ErrorShare: c.SLO.ErrorShare, LagUs: c.SLO.Lag.Microseconds(),
			StepS: c.Step.Seconds()},
		PerS: held, BrokePerS: broke, End: end, GeneratorBoundAtPerS: boundAt,
		Pipelined: pipelined, Steps: steps,
	}
	// The server's CPU per decision over every step's calls: the
	// workload's own mix of admissions and denials, fresh keys and used
	// ones.
	var usec, calls int64
	var genUsec float64
	var genSent int64
	for _, p := range stepRuns {
		if p.Server != nil {
			usec, calls = usec+p.Server.Usec, calls+p.Server.Calls
		}
		if g := p.Generator; g != nil && g.UsecPerDecision > 0 {
			genUsec, genSent = genUsec+g.UsecPerDecision*float64(p.Requests.Sent), genSent+p.Requests.Sent
		}
	}
	if genSent > 0 {
		// rlbench's own, beside the server's: which of the two the
		// search measured.
		out.GeneratorUsecPerDecision = genUsec / float64(genSent)
	}
	if calls > 0 && usec > 0 {
		out.ServerUsecPerDecision = float64(usec) / float64(calls)
		cores := 1.0
		if run.Cluster != nil && len(run.Cluster.Nodes) > 0 {
			cores = float64(len(run.Cluster.Nodes))
		}
		out.CeilingPerS = cores * 1e6 / out.ServerUsecPerDecision
		out.ShareOfCeiling = held / out.CeilingPerS
	}
	if pipelined != nil && pipelined.PerS > 0 {
		out.ShareOfPipelined = held / pipelined.PerS
	}
	if held > 0 && at < len(steps) {
		out.ServerCPUAtCapacity = steps[at].ServerCPU
		if m := run.Memory; m != nil {
			out.BytesPerIdentity = m.BytesPerIdentity
		}
	}
	run.Capacity = out
	return run
}
