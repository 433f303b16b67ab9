package main

import (
	"errors"
	"runtime"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// buildResult turns what the runner measured into the result contract.
func buildResult(p *workload.Profile, env *redisenv.Env, runID string, started time.Time, runs []*workload.RunResult, runErr error, thresholds []*report.Threshold) *report.Result {
	res := &report.Result{
		Schema:  report.Schema,
		Tool:    report.Tool{Name: "rlbench", Version: version(), GoVersion: runtime.Version()},
		Profile: profileInfo(p),
		Redis: report.RedisInfo{
			Mode:            string(env.Mode),
			Version:         env.Version,
			Addr:            env.Addr,
			MaxmemoryPolicy: env.MaxmemoryPolicy,
			Note:            env.Note,
		},
		Host:       hostInfo(),
		RunID:      runID,
		StartedAt:  started,
		FinishedAt: time.Now().UTC(),
		Complete:   runErr == nil,
		Runs:       make([]report.Run, 0, len(runs)),
		Thresholds: []report.ThresholdResult{},
	}
	if runErr != nil {
		res.IncompleteReason = runErr.Error()
		if errors.Is(runErr, workload.ErrInterrupted) {
			res.IncompleteReason = "interrupted (Ctrl-C)"
		}
	}
	res.Runs = mergeRepetitions(runs)
	res.Thresholds = report.Evaluate(res, thresholds)
	res.Verdict = report.Verdict(res)
	return res
}

func profileInfo(p *workload.Profile) report.ProfileInfo {
	return report.ProfileInfo{
		Name:        p.Name,
		Path:        p.Path,
		SHA256:      p.Hash,
		Seed:        p.Seed,
		Policy:      report.PolicyInfo{Limit: p.Policy.Limit, WindowMs: p.Policy.WindowMillis(), Burst: p.Policy.Capacity()},
		Algorithms:  p.Algorithms,
		Concurrency: p.Concurrency,
		WarmupS:     p.Warmup.Seconds(),
	}
}

func toRun(r *workload.RunResult) report.Run {
	s := r.Scenario
	run := report.Run{
		Algorithm: r.Algorithm,
		Scenario:  s.Name,
		Shape:     string(s.Shape),
		Params: report.Params{
			Rate:        s.Rate.String(),
			DurationS:   s.Duration.Seconds(),
			Requests:    s.Requests,
			Concurrency: r.Concurrency,
			Limit:       r.Policy.Limit,
			WindowMs:    r.Policy.WindowMillis(),
			Capacity:    r.Policy.Capacity(),
			KeyPrefix:   r.KeyPrefix,
		},
		Identities: r.Identities,
		Requests: report.Requests{
			Sent:            r.Counts.Sent,
			Allowed:         r.Counts.Allowed,
			Denied:          r.Counts.Denied,
			Errors:          r.Counts.Errors,
			Late:            r.Counts.Late,
			Unsent:          r.Counts.Unsent,
			NoScriptReloads: r.Counts.NoScriptReloads,
		},
		Rate:                 report.RateFigures{TargetPerS: r.TargetPerSecond, AchievedPerS: r.AchievedPerSecond()},
		ElapsedS:             r.Elapsed.Seconds(),
		LatencyUs:            latency(workload.Summarize(r.Corrected.All)),
		LatencyUncorrectedUs: latency(workload.Summarize(r.Uncorrected.All)),
		LatencyAllowedUs:     latency(workload.Summarize(r.Corrected.Allowed)),
		LatencyDeniedUs:      latency(workload.Summarize(r.Corrected.Denied)),
		MaxLagUs:             r.MaxLag.Microseconds(),
		Series:               make([]report.Second, len(r.Series)),
		Incomplete:           r.Incomplete,
		Note:                 r.Note,
	}
	if !s.Rate.Max {
		run.Params.Arrival = string(s.Arrival)
	}
	addCardinality(&run, r)
	run.LatencyHDR, _ = workload.EncodeHistogram(r.Corrected.All)
	run.LatencyUncorrectedHDR, _ = workload.EncodeHistogram(r.Uncorrected.All)
	for i, sec := range r.Series {
		run.Series[i] = report.Second{TS: sec.T, Allowed: sec.Allowed, Denied: sec.Denied, Errors: sec.Errors, P99Us: sec.P99Micros}
	}
	for _, e := range r.Errors {
		run.Errors = append(run.Errors, report.ErrorCount{Message: e.Message, Count: e.Count})
	}
	addAudit(&run, r)
	return run
}

func latency(s workload.LatencySummary) report.Latency {
	return report.Latency{Count: s.Count, P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, Max: s.Max, Mean: s.Mean}
}

// mergeRepetitions turns the runner's results into result runs, folding the
// repetitions of each algorithm/scenario into one (medians and spread), in
// the order the runs first appeared.
func mergeRepetitions(runs []*workload.RunResult) []report.Run {
	var order []string
	groups := map[string][]report.Run{}
	for _, r := range runs {
		run := toRun(r)
		k := run.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], run)
	}
	out := make([]report.Run, 0, len(order))
	for _, k := range order {
		out = append(out, report.MergeRepeats(groups[k]))
	}
	return out
}
