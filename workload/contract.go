package workload

import (
	"os"
	"runtime"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// newRun starts the result of one run: what it is and the parameters it
// ran with. Its figures are filled in as they are measured.
func newRun(p *profile.Profile, spec profile.RunSpec, prefix string, concurrency int) *result.Run {
	s := spec.Scenario
	pol := p.PolicyFor(s)
	run := &result.Run{
		Algorithm:     spec.Algorithm,
		Scenario:      s.Name,
		Shape:         string(s.Shape),
		ScenarioGroup: s.Group,
		Identities:    s.Identities,
		Params: result.Params{
			Rate:        s.Rate.String(),
			DurationS:   s.Duration.Seconds(),
			Requests:    s.Requests,
			Concurrency: concurrency,
			Limit:       pol.Limit,
			WindowMs:    pol.WindowMillis(),
			Capacity:    pol.Capacity(),
			KeyPrefix:   prefix,
		},
		Rate: result.RateFigures{TargetPerS: s.Rate.TargetPerSecond(pol, s.Identities)},
	}
	if spec.Algorithm == algorithms.SlidingBucketsName {
		run.Params.BucketMs = pol.BucketWidth().Milliseconds()
	}
	switch {
	case s.Shape == profile.ShapeBoundary:
		b := s.Boundary
		run.Params.Boundary = &result.BoundaryParams{
			Burst:     b.Burst,
			OffsetMs:  float64(b.Offset.Microseconds()) / 1000,
			SpreadMs:  float64(b.Spread.Microseconds()) / 1000,
			StaggerMs: float64(b.Stagger.Microseconds()) / 1000,
		}
	case !s.Rate.Max:
		run.Params.Arrival = string(s.Arrival)
	}
	if pl := p.RunPipeline(s); pl.MaxBatch() > 1 {
		run.Params.Pipeline = pl.String()
	}
	run.Params.Distribution = string(s.Distribution)
	run.Params.ZipfExponent = s.ZipfExponent
	run.Params.Repeats = s.Repeats
	if s.Shape == profile.ShapeRamp {
		run.Params.FromPerS = s.From.TargetPerSecond(pol, s.Identities)
		for _, st := range s.Stages {
			run.Params.Stages = append(run.Params.Stages, result.StageParams{
				TargetPerS: st.Rate.TargetPerSecond(pol, s.Identities), DurationS: st.Duration.Seconds(),
			})
		}
	}
	return run
}

// profileInfo says which profile produced a result, and what its verdict
// rests on besides the runs.
func profileInfo(p *profile.Profile) result.ProfileInfo {
	info := result.ProfileInfo{
		Name:        p.Name,
		Path:        p.Path,
		SHA256:      p.Hash,
		Seed:        p.Seed,
		Policy:      result.PolicyInfo{Limit: p.Policy.Limit, WindowMs: p.Policy.WindowMillis(), Burst: p.Policy.Capacity(), BucketMs: p.Policy.Bucket.Milliseconds()},
		Algorithms:  p.Algorithms,
		Concurrency: p.Concurrency,
		WarmupS:     p.Warmup.Seconds(),
		Limiters:    limiterInfos(p.Declared),

		ReportIdentities: p.Report.Identities,
	}
	budget := p.ErrorBudget
	info.ExpectBroken, info.ErrorBudget = p.ExpectBroken, &budget
	return info
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
// wall; nil for a run that sent nothing.
func generatorFigures(t schedstat.Times, wall time.Duration) *result.Generator {
	if wall <= 0 {
		return nil
	}
	return &result.Generator{CPUShare: t.Run.Seconds() / wall.Seconds(), CPUWaitShare: t.Wait.Seconds() / wall.Seconds()}
}
