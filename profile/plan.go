package profile

import (
	"fmt"
	"strings"
	"time"
)

// RunSpec is one run of a plan: one algorithm in one scenario.
type RunSpec struct {
	Scenario  Scenario
	Algorithm string
	// Repetition counts from 0 when the plan repeats each run.
	Repetition int
}

// Key names the run as algorithm/scenario, as results and thresholds do.
func (r RunSpec) Key() string { return r.Algorithm + "/" + r.Scenario.Name }

// Plan lists the runs of the profile, each repeated repeat times (at least
// once): scenario by scenario, repetition by repetition, each algorithm in
// turn, so runs that are compared side by side are also run close in time
// and the repetitions of one algorithm are spread over time rather than
// run back to back.
func (p *Profile) Plan(repeat int) []RunSpec {
	reps := max(repeat, 1)
	out := make([]RunSpec, 0, len(p.Scenarios)*reps*len(p.Algorithms))
	for _, s := range p.Scenarios {
		for k := 0; k < reps; k++ {
			for _, a := range p.Algorithms {
				out = append(out, RunSpec{Scenario: s, Algorithm: a, Repetition: k})
			}
		}
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
	}
	return n
}

// PlannedRequests is how many requests a run of s is scheduled to send:
// its offered rate over its duration, or its request count when that is
// smaller; zero when only time bounds it (a closed loop without a count).
func (p *Profile) PlannedRequests(s Scenario) int64 {
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

// Length adds up the runs of plan, each with its warm-up. Sums too large
// for their type stay at its largest value.
func (p *Profile) Length(plan []RunSpec) Length {
	var l Length
	add := func(d time.Duration) { l.Time = time.Duration(saturatingAdd(int64(l.Time), int64(d))) }
	for _, spec := range plan {
		s := spec.Scenario
		add(p.Warmup)
		target := s.Rate.TargetPerSecond(p.PolicyFor(s), s.Identities)
		switch {
		case s.Rate.Max && s.Requests > 0:
			l.ClosedLoopRequests = saturatingAdd(l.ClosedLoopRequests, s.Requests)
		case target > 0 && s.Requests > 0:
			byCount := time.Duration(saturate(float64(s.Requests) / target * float64(time.Second)))
			add(min(s.Duration, byCount))
		default:
			add(s.Duration)
		}
	}
	return l
}

// String says it as people read it: "at most 12.5s plus 4000 requests in
// closed loop".
func (l Length) String() string {
	var parts []string
	if l.Time > 0 {
		parts = append(parts, "at most "+l.Time.Round(time.Millisecond).String())
	}
	if l.ClosedLoopRequests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests in closed loop", l.ClosedLoopRequests))
	}
	return strings.Join(parts, " plus ")
}
