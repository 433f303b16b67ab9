package workload

import (
	"os"
	"runtime"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// newRun starts the result of one run: what it is and the parameters it
// ran with, under prefix with keys keys. Its figures are filled in by
// assemble.
func newRun(s plan.Run, prefix string, keys event.KeyScheme) *result.Run {
	pol := s.Policy
	run := &result.Run{
		Algorithm:     s.Algorithm,
		Scenario:      s.Scenario,
		Shape:         string(s.Shape),
		ScenarioGroup: s.Group,
		PolicyGroup:   s.PolicyGroup,
		Identities:    s.Identities,
		Params: result.Params{
			Rate:        s.Rate,
			DurationS:   s.Duration.Seconds(),
			Requests:    s.Requests,
			Concurrency: s.Concurrency,
			Limit:       pol.Limit,
			WindowMs:    pol.WindowMillis(),
			Capacity:    pol.Capacity(),
			KeyPrefix:   prefix,
			HashTag:     string(keys.Tag),

			AcceptInconclusive: s.AcceptInconclusive,
		},
		Rate: result.RateFigures{TargetPerS: s.TargetPerSecond},
	}
	if s.Algorithm == algorithms.SlidingBucketsName {
		run.Params.BucketMs = pol.BucketWidth().Milliseconds()
	}
	switch {
	case s.Shape == plan.ShapeBoundary:
		b := s.Boundary
		run.Params.Boundary = &result.BoundaryParams{
			Burst:     b.Burst,
			OffsetMs:  float64(b.Offset.Microseconds()) / 1000,
			SpreadMs:  float64(b.Spread.Microseconds()) / 1000,
			StaggerMs: float64(b.Stagger.Microseconds()) / 1000,
		}
	case !s.ClosedLoop:
		run.Params.Arrival = string(s.Arrival)
	}
	if s.Pipeline.MaxBatch() > 1 {
		run.Params.Pipeline = s.Pipeline.String()
	}
	if !s.Cost.IsOne() {
		run.Params.Cost = s.Cost.String()
	}
	run.Params.Distribution = string(s.Distribution)
	run.Params.ZipfExponent = s.ZipfExponent
	run.Params.Repeats = s.Repeats
	if r := s.Replay; r != nil {
		sum := r.Trace
		run.Params.Replay = &result.ReplayParams{
			Trace: sum.Spec.File, SHA256: sum.SHA256, Format: string(sum.Spec.Format), Identity: sum.Spec.Identity,
			Speed: r.Speed, Loop: r.Loop, StartS: sum.Part.Start.Seconds(), PartS: sum.Period.Seconds(),
			Requests: sum.Requests, HeaviestShare: float64(sum.Heaviest) / float64(max(sum.Requests, 1)),
			SkippedLines: sum.Skipped, ReorderedLines: sum.Reordered,
		}
	}
	if s.Shape == plan.ShapeRamp {
		run.Params.FromPerS = s.FromPerSecond
		for _, st := range s.Stages {
			run.Params.Stages = append(run.Params.Stages, result.StageParams{TargetPerS: st.PerSecond, DurationS: st.Duration.Seconds()})
		}
	}
	if c := s.Client; c != nil {
		run.Params.OnError = string(s.OnError)
		run.Params.Client = &result.ClientParams{
			TimeoutMs: float64(c.Timeout.Microseconds()) / 1000, Retries: c.Retries, BackoffMs: float64(c.Backoff.Microseconds()) / 1000,
		}
	}
	return run
}

// redisInfo describes the server the runs used, without credentials.
func redisInfo(env *redisenv.Env) result.RedisInfo {
	info := result.RedisInfo{
		Mode:            string(env.Mode),
		Version:         env.Version,
		Addr:            env.Addr,
		MaxmemoryPolicy: env.MaxmemoryPolicy,
		Note:            env.Note,
	}
	if c := env.Cluster; c != nil {
		info.Cluster = &result.ClusterInfo{Masters: c.Masters, Replicas: c.Replicas, Nodes: c.Nodes}
	}
	if a := env.Access; a != nil {
		info.Access = &result.Access{User: a.User, CheckedBy: a.CheckedBy}
		for _, r := range a.Refused {
			info.Access.Refused = append(info.Access.Refused, result.RefusedCommand{Command: r.Command, Reason: r.Reason})
		}
	}
	for _, m := range env.Missing {
		info.Unavailable = append(info.Unavailable, result.Unavailable{Figure: m.What, Command: m.Command, Reason: m.Reason})
	}
	return info
}

// hostInfo describes the machine the load came from, with the GOMAXPROCS
// the runs had.
func hostInfo() result.HostInfo {
	name, _ := os.Hostname()
	h := result.HostInfo{Name: name, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if on, known := schedstat.Autogroup(); known {
		h.SchedAutogroup = &on
	}
	return h
}

// generatorFigures is rlbench's own CPU over a run's traffic of length
// wall, in which it sent sent requests; nil for a run that took no time.
func generatorFigures(t schedstat.Times, wall time.Duration, sent int64) *result.Generator {
	if wall <= 0 {
		return nil
	}
	g := &result.Generator{CPUShare: t.Run.Seconds() / wall.Seconds(), CPUWaitShare: t.Wait.Seconds() / wall.Seconds()}
	if sent > 0 {
		g.UsecPerDecision = float64(t.Run.Microseconds()) / float64(sent)
	}
	return g
}
