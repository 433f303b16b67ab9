package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// Plan resolves the profile into the runs it stands for, each repeated
// repeat times (at least once): scenario by scenario, repetition by
// repetition, each algorithm in turn, so runs that are compared side by
// side are also run close in time and the repetitions of one algorithm
// are spread over time rather than run back to back. Each run carries its
// policy, offered rate, concurrency, pipeline, faults and caller, decided
// here once.
func (p *Profile) Plan(repeat int) *plan.Plan {
	reps := max(repeat, 1)
	out := &plan.Plan{
		Profile: p.ResultInfo(),
		Repeat:  reps,
		Seed:    p.Seed,
		Timeout: p.Timeout,
		Warmup:  p.Warmup,

		AuditIdentities: p.Audit.Identities,
		Runs:            make([]plan.Run, 0, len(p.Scenarios)*reps*len(p.Algorithms)),
	}
	for _, s := range p.Scenarios {
		for k := 0; k < reps; k++ {
			for _, a := range p.Algorithms {
				out.Runs = append(out.Runs, p.resolve(s, a, k))
			}
		}
	}
	return out
}

// resolve is the run of algorithm alg in scenario s, repetition rep.
func (p *Profile) resolve(s Scenario, alg string, rep int) plan.Run {
	pol := p.PolicyFor(s)
	r := plan.Run{
		Algorithm:   alg,
		Declaration: p.Declaration(alg),
		Scenario:    s.Name, Group: s.Group, PolicyGroup: s.PolicyGroup, Sweep: s.Sweep,
		Repetition:      rep,
		Shape:           s.Shape,
		Policy:          pol,
		Ideal:           p.IdealFor(pol),
		Cost:            p.runCost(s, alg),
		Identities:      s.Identities,
		Duration:        s.Duration,
		Requests:        s.Requests,
		Concurrency:     p.RunConcurrency(s),
		Pipeline:        p.RunPipeline(s),
		Rate:            s.Rate.String(),
		TargetPerSecond: s.Rate.TargetPerSecond(pol, s.Identities),
		ClosedLoop:      s.Rate.Max,
		Arrival:         s.Arrival,
		Distribution:    s.Distribution,
		ZipfExponent:    s.ZipfExponent,
		Repeats:         s.Repeats,
		Boundary:        s.Boundary,
		Replay:          s.Replay,
		HashTag:         s.HashTag,
		Faults:          s.Faults,
		Client:          p.Client,
		OnError:         s.OnError,
		Fleet:           p.FleetFor(s),
		Planned:         p.PlannedRequests(s),

		AcceptInconclusive: s.AcceptInconclusive,
	}
	if s.Replay != nil {
		// The trace's mean rate at its speed, as people read it.
		r.Rate = strconv.FormatFloat(s.Rate.PerSecond, 'g', 4, 64) + "/s"
	}
	if s.Shape == plan.ShapeCapacity {
		r.Capacity = p.capacityOf(s)
		r.TargetPerSecond = r.Capacity.FromPerSecond
		r.Rate = "capacity"
	}
	if s.Shape == plan.ShapeRamp {
		r.FromPerSecond = s.From.TargetPerSecond(pol, s.Identities)
		for _, st := range s.Stages {
			r.Stages = append(r.Stages, plan.Stage{PerSecond: st.Rate.TargetPerSecond(pol, s.Identities), Duration: st.Duration})
		}
	}
	return r
}

// capacityOf is the capacity search of scenario s, resolved: its rates in
// requests a second under the scenario's policy, and what it may add to
// rlbench.
func (p *Profile) capacityOf(s Scenario) plan.Capacity {
	c, pol := s.Capacity, p.PolicyFor(s)
	conc := p.RunConcurrency(s)
	out := plan.Capacity{
		SLO:            c.SLO,
		FromPerSecond:  c.From.TargetPerSecond(pol, s.Identities),
		ToPerSecond:    c.To.TargetPerSecond(pol, s.Identities),
		Auto:           c.Auto,
		Step:           c.Step,
		Precision:      c.Precision,
		MaxSteps:       c.MaxSteps,
		Confirm:        c.Confirm,
		MaxConcurrency: max(c.AllowConcurrency, conc),
		MaxPipeline:    max(c.AllowPipeline, p.RunPipeline(s).MaxBatch()),
		Pipelined:      c.Pipelined,
		PipelinedDepth: PipelinedRunDepth,
	}
	if c.AllowConcurrency == 0 {
		out.MaxConcurrency = max(conc, min(defaultAllowConcurrency*conc, maxDefaultAllowConcurrency))
	}
	return out
}

// runCost is what each request of algorithm alg asks for in scenario s:
// the scenario's cost when alg is a declared limiter told it (${cost}),
// else one unit.
func (p *Profile) runCost(s Scenario, alg string) algorithms.Cost {
	if d := p.Declaration(alg); d != nil && d.UsesCost() {
		return s.Cost
	}
	return algorithms.Cost{}
}

// ResultInfo says which profile produced a result, and what its verdict
// rests on besides the runs.
func (p *Profile) ResultInfo() result.ProfileInfo {
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

// limiterInfos describes the declared limiters for the result.
func limiterInfos(decls []*algorithms.Declaration) []result.LimiterInfo {
	var out []result.LimiterInfo
	for _, d := range decls {
		info := result.LimiterInfo{
			Name: d.Name, Kind: "script", Source: d.SourcePath, Function: d.Function,
			Semantics: string(d.Semantics), Description: d.Describe(), Reply: map[string]int{},
		}
		src := d.Script
		if d.Library != "" {
			info.Kind, src = "function", d.Library
		}
		sum := sha256.Sum256([]byte(src))
		info.SourceSHA256 = hex.EncodeToString(sum[:])
		for _, k := range d.Keys {
			info.Keys = append(info.Keys, k.String())
		}
		for _, a := range d.Args {
			info.Args = append(info.Args, a.String())
		}
		info.Reply["allowed"] = d.Reply.Allowed
		for part := range algorithms.ReplyPartNames() {
			p := algorithms.ReplyPart(part)
			v, ok := d.Reply.Value(p)
			if !ok {
				continue
			}
			name := d.Reply.PartName(p)
			info.Reply[name] = v.Position
			if p.Timed() {
				if info.ReplyUnits == nil {
					info.ReplyUnits = map[string]string{}
				}
				info.ReplyUnits[name] = string(v.Unit)
			}
		}
		info.TimeFrom, info.TimeWhy = string(d.Clock()), d.TimeWhy()
		if d.Semantics == algorithms.SemanticsBound {
			info.Bound = d.Promise.String()
		}
		out = append(out, info)
	}
	return out
}

// RunConcurrency is how many goroutines a run of s uses: the scenario's own
// setting, else the profile's.
func (p *Profile) RunConcurrency(s Scenario) int {
	if s.Concurrency > 0 {
		return s.Concurrency
	}
	return p.Concurrency
}

// MaxConcurrency is the most goroutines any run of the profile uses, which
// sizes the connection pool.
func (p *Profile) MaxConcurrency() int {
	n := p.Concurrency
	for _, s := range p.Scenarios {
		n = max(n, p.RunConcurrency(s))
		if s.Shape == plan.ShapeCapacity {
			n = max(n, p.capacityOf(s).MaxConcurrency)
		}
	}
	return n
}

// PlannedRequests is how many requests a run of s is scheduled to send:
// its offered rate over its duration, or its request count when that is
// smaller; zero when only time bounds it (a closed loop without a count).
func (p *Profile) PlannedRequests(s Scenario) int64 {
	if s.Replay != nil {
		n := s.Replay.RequestsWithin(s.Duration)
		if s.Requests > 0 && s.Requests < n {
			n = s.Requests
		}
		return n
	}
	if target := s.Rate.TargetPerSecond(p.PolicyFor(s), s.Identities); target > 0 {
		n := int64(target * s.Duration.Seconds())
		if s.Requests > 0 && s.Requests < n {
			n = s.Requests
		}
		return n
	}
	return s.Requests
}

// Length is how long a plan takes: a bound in time, plus the requests of
// closed-loop runs that end after a count (their time depends on the
// server).
type Length struct {
	Time               time.Duration
	ClosedLoopRequests int64
}

// PlanLength adds up the runs of pl, each with the warm-up. Sums too large
// for their type stay at its largest value.
func PlanLength(pl *plan.Plan) Length {
	var l Length
	add := func(d time.Duration) { l.Time = time.Duration(saturatingAdd(int64(l.Time), int64(d))) }
	for _, r := range pl.Runs {
		add(pl.Warmup)
		switch {
		case r.ClosedLoop && r.Requests > 0:
			l.ClosedLoopRequests = saturatingAdd(l.ClosedLoopRequests, r.Requests)
		case r.TargetPerSecond > 0 && r.Requests > 0:
			byCount := time.Duration(saturate(float64(r.Requests) / r.TargetPerSecond * float64(time.Second)))
			add(min(r.Duration, byCount))
		default:
			add(r.Duration)
		}
	}
	return l
}

// String says it as people read it: "at most 12.5s plus 4000 requests in
// closed loop".
func (l Length) String() string {
	var parts []string
	switch {
	case l.Time == math.MaxInt64:
		// The runs add up past what a duration holds.
		parts = append(parts, "more than 292 years")
	case l.Time > 0:
		parts = append(parts, "at most "+l.Time.Round(time.Millisecond).String())
	}
	if l.ClosedLoopRequests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests in closed loop", l.ClosedLoopRequests))
	}
	return strings.Join(parts, " plus ")
}
