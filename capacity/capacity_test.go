package capacity

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// modelServer answers a capacity step with the figures a step at its rate
// would show on one Redis core that spends serviceUs of CPU per decision,
// reached through a round trip of rttUs, driven by an rlbench that spends
// genUs of CPU per request sent alone (genPipedUs per request pipelined)
// on one CPU. It is the fake server of the search's tests: deterministic,
// each step adding the step's time to elapsed and never sleeping.
type modelServer struct {
	elapsed           time.Duration
	serviceUs, rttUs  float64
	genUs, genPipedUs float64
	spurious          map[float64]int // rates that break once more each time they are offered, this many times
	steps             []plan.Run
	failAt            int // the step (from 1) that fails; 0: none
}

// measure implements stepRunner.
func (m *modelServer) measure(_ context.Context, step plan.Run, n int) (workload.Measured, error) {
	m.steps = append(m.steps, step)
	m.elapsed += step.Duration
	if m.failAt == n+1 {
		return workload.Measured{}, errors.New("the server went away")
	}
	rate := step.TargetPerSecond
	sent := int64(rate * step.Duration.Seconds())
	// The server: a queue on one core; past full, replies wait seconds.
	util := rate * m.serviceUs / 1e6
	fromSend := 2 * time.Second
	if util < 1 {
		fromSend = time.Duration(m.rttUs/(1-util)) * time.Microsecond
	}
	if m.spurious[rate] > 0 {
		m.spurious[rate]--
		fromSend = 50 * time.Millisecond
	}
	// rlbench: one CPU; past it, it sends late and reads replies late.
	cost := m.genUs
	if step.Pipeline.MaxBatch() > 1 {
		cost = m.genPipedUs
	}
	cpu := rate * cost / 1e6
	lag := 20 * time.Microsecond
	if cpu >= 1 {
		lag, fromSend = time.Second, fromSend+time.Second
	}
	// Workers: each holds a request for its round trip (Little's law).
	var busy int64
	if inFlight := rate * fromSend.Seconds(); inFlight > float64(step.Concurrency) {
		busy = sent / 10
		lag += time.Duration(inFlight/float64(step.Concurrency)) * time.Millisecond
	}
	run := &result.Run{
		Requests:             result.Requests{Sent: sent, Allowed: sent},
		LatencyUs:            result.Latency{P50: (fromSend / 2).Microseconds(), P99: (fromSend + lag).Microseconds()},
		LatencyUncorrectedUs: result.Latency{P99: fromSend.Microseconds()},
		Rate:                 result.RateFigures{TargetPerS: rate, AchievedPerS: rate},
		Generator:            &result.Generator{CPUShare: min(cpu, 1), CPUWaitShare: 0.05},
		Server:               &result.Server{UsecPerCall: m.serviceUs, Calls: sent, Usec: int64(float64(sent) * m.serviceUs)},
	}
	return workload.Measured{Run: run, LagP99: lag, Busy: busy, ServerCPU: min(util, 1), ServerCPUKnown: true}, nil
}

// capacitySpec is a capacity run of the default limiter shape for the
// model: SLO p99 2ms, steps of 2s, automatic from 1000/s.
func capacitySpec(c func(*plan.Capacity)) plan.Run {
	spec := plan.Run{Algorithm: "fixed_window", Scenario: "capacity", Shape: plan.ShapeCapacity, Concurrency: 64, Identities: 100,
		Capacity: plan.Capacity{
			SLO:           plan.SLO{P99: 2 * time.Millisecond, ErrorShare: 0.001, Lag: time.Millisecond},
			FromPerSecond: 1000, ToPerSecond: 1_000_000, Auto: true, Step: 2 * time.Second,
			Precision: 0.05, MaxSteps: 40, Confirm: 2, MaxConcurrency: 256, MaxPipeline: 1,
		}}
	if c != nil {
		c(&spec.Capacity)
	}
	return spec
}

// TestCapacitySearchOnAModelServer runs the search against the model
// server: it must find the rate at which the model's p99
// crosses the SLO, to within the precision, blame rlbench (not the
// limiter) where rlbench was short, add what the plan allows, and spend
// exactly its steps' time.
func TestCapacitySearchOnAModelServer(t *testing.T) {
	// With a round trip of 200us the p99 from the send is 200/(1-u) us:
	// past 2ms at u > 0.9, so at 0.9 x 1e6/serviceUs a second.
	for _, tc := range []struct {
		why          string
		server       modelServer
		c            func(*plan.Capacity)
		end          string
		capacity     float64 // the model's; 0: none held
		boundAt      float64 // generator-bound at this rate
		pipelinedAll bool    // the search went on pipelined
	}{
		{"a server-bound limiter: the capacity is where the server's p99 crosses the SLO",
			modelServer{serviceUs: 20, rttUs: 200, genUs: 5, genPipedUs: 1}, nil,
			result.CapacityConverged, 45000, 0, false},
		{"a costlier script has a lower capacity",
			modelServer{serviceUs: 40, rttUs: 200, genUs: 5, genPipedUs: 1}, nil,
			result.CapacityConverged, 22500, 0, false},
		{"one noisy step below the capacity is offered again, and holds: the capacity stands",
			modelServer{serviceUs: 20, rttUs: 200, genUs: 5, genPipedUs: 1, spurious: map[float64]int{32000: 1}}, nil,
			result.CapacityConverged, 45000, 0, false},
		{"rlbench out of CPU before the server, no pipelining allowed: narrowed in on where it gave out (1e6/40us a second), generator-bound, never blamed on the limiter",
			modelServer{serviceUs: 10, rttUs: 200, genUs: 40, genPipedUs: 4}, nil,
			result.CapacityGeneratorBound, 25000, 25000, false},
		{"rlbench out of CPU, pipelining allowed: it pipelines and finds the server's capacity",
			modelServer{serviceUs: 10, rttUs: 200, genUs: 40, genPipedUs: 4}, func(c *plan.Capacity) { c.MaxPipeline = 16 },
			result.CapacityConverged, 90000, 0, true},
		{"a range below the capacity ends at its top",
			modelServer{serviceUs: 20, rttUs: 200, genUs: 5, genPipedUs: 1}, func(c *plan.Capacity) { c.Auto, c.FromPerSecond, c.ToPerSecond = false, 1000, 30000 },
			result.CapacityTopOfRange, 30000, 0, false},
		{"a range above the capacity: nothing held",
			modelServer{serviceUs: 20, rttUs: 200, genUs: 5, genPipedUs: 1}, func(c *plan.Capacity) { c.Auto, c.FromPerSecond, c.ToPerSecond = false, 60000, 90000 },
			result.CapacityBelowRange, 0, 0, false},
	} {
		srv := tc.server
		spec := capacitySpec(tc.c)
		found := searchSteps(context.Background(), spec, 1, 1, srv.measure)
		held, _, end, boundAt, steps := found.search.Found()
		if found.err != nil || end != tc.end {
			t.Errorf("%s: ended %q (%v), want %q; steps %s", tc.why, end, found.err, tc.end, describeSteps(found.steps))
			continue
		}
		switch {
		case tc.capacity == 0 && held != 0:
			t.Errorf("%s: capacity %v, want none", tc.why, held)
		case tc.end == result.CapacityTopOfRange && held != tc.capacity:
			t.Errorf("%s: capacity %v, want %v", tc.why, held, tc.capacity)
		case (tc.end == result.CapacityConverged || tc.end == result.CapacityGeneratorBound) && (held > tc.capacity || held < tc.capacity/(1+spec.Capacity.Precision)):
			t.Errorf("%s: capacity %v, want within 5%% below %v; steps %s", tc.why, held, tc.capacity, describeSteps(found.steps))
		}
		if tc.server.spurious != nil && countAt(found.steps, 32000) != 2 {
			t.Errorf("%s: the noisy rate was offered %d times, want twice; steps %s", tc.why, countAt(found.steps, 32000), describeSteps(found.steps))
		}
		if tc.boundAt > 0 && (boundAt < tc.boundAt || boundAt > held*(1+spec.Capacity.Precision)) {
			t.Errorf("%s: generator-bound at %v, want at or above %v and within 5%% of the capacity %v", tc.why, boundAt, tc.boundAt, held)
		}
		for _, st := range found.steps {
			if st.Outcome != result.StepGeneratorBound || tc.boundAt == 0 {
				continue
			}
			if n := countAt(found.steps, st.TargetPerS); n != spec.Capacity.Confirm {
				t.Errorf("%s: a rate rlbench could not keep was offered %v %d times, want confirm (%d) times; steps %s",
					tc.why, st.TargetPerS, n, spec.Capacity.Confirm, describeSteps(found.steps))
			}
			if st.Concurrency != spec.Concurrency {
				t.Errorf("%s: rlbench out of CPU with no pipelining allowed went to %d workers (more workers share the same CPU); steps %s",
					tc.why, st.Concurrency, describeSteps(found.steps))
			}
		}
		for _, s := range found.steps {
			if _, noisy := tc.server.spurious[s.TargetPerS]; noisy {
				continue
			}
			if s.Outcome == result.StepBroke && s.TargetPerS < tc.capacity/(1+spec.Capacity.Precision) && tc.capacity > 0 {
				t.Errorf("%s: a step at %v, below the capacity, was blamed on the limiter: %s", tc.why, s.TargetPerS, s.Cause)
			}
			if tc.boundAt > 0 && s.Outcome == result.StepBroke {
				t.Errorf("%s: rlbench was the bottleneck, yet a step at %v was blamed on the limiter: %s", tc.why, s.TargetPerS, s.Cause)
			}
		}
		if last := srv.steps[len(srv.steps)-1]; tc.pipelinedAll != (last.Pipeline.MaxBatch() > 1) {
			t.Errorf("%s: the last step ran pipeline %d", tc.why, last.Pipeline.MaxBatch())
		}
		if got, want := srv.elapsed, time.Duration(steps)*spec.Capacity.Step; got != want || steps != len(srv.steps) || steps != len(found.steps) {
			t.Errorf("%s: %d steps (%d measured, %d recorded) took %s of the model's time, want %s", tc.why, steps, len(srv.steps), len(found.steps), got, want)
		}
		if steps > spec.Capacity.MaxSteps {
			t.Errorf("%s: %d steps, more than %d", tc.why, steps, spec.Capacity.MaxSteps)
		}
	}
}

// TestCapacitySearchAddsWorkers: requests that wait for a free worker while
// the server answers in time are rlbench's shortfall: the search doubles
// the workers, offers the rate again, and goes on; the steps say so.
func TestCapacitySearchAddsWorkers(t *testing.T) {
	// A slow round trip (5ms) at 20,000/s holds 100 requests in flight:
	// 64 workers are too few, 128 enough.
	srv := &modelServer{serviceUs: 10, rttUs: 1000, genUs: 5, genPipedUs: 1}
	spec := capacitySpec(func(c *plan.Capacity) {
		c.SLO.P99 = 20 * time.Millisecond
		c.Auto, c.FromPerSecond, c.ToPerSecond = false, 10000, 80000
	})
	found := searchSteps(context.Background(), spec, 1, 1, srv.measure)
	var grew bool
	for _, s := range found.steps {
		if s.Outcome == result.StepGeneratorBound && s.Cause == result.CauseGeneratorWorkers && s.Concurrency == 64 {
			grew = true
		}
	}
	last := srv.steps[len(srv.steps)-1]
	if !grew || last.Concurrency <= 64 || last.Concurrency > spec.Capacity.MaxConcurrency {
		t.Errorf("workers not added as they should be (last step %d workers); steps %s", last.Concurrency, describeSteps(found.steps))
	}
}

// TestCapacitySearchStopsOnAFailedStep: a step that fails ends the search
// with the error, keeping what it measured.
func TestCapacitySearchStopsOnAFailedStep(t *testing.T) {
	srv := &modelServer{serviceUs: 20, rttUs: 200, genUs: 5, failAt: 3}
	found := searchSteps(context.Background(), capacitySpec(nil), 1, 1, srv.measure)
	if found.err == nil || len(found.steps) != 2 {
		t.Errorf("error %v after %d steps, want the server's after 2", found.err, len(found.steps))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if found := searchSteps(ctx, capacitySpec(nil), 1, 1, srv.measure); !errors.Is(found.err, workload.ErrInterrupted) || len(found.steps) != 0 {
		t.Errorf("a cancelled search: %v after %d steps", found.err, len(found.steps))
	}
}

// TestJudgeStep: whose doing a step's broken SLO was. Each row says why.
func TestJudgeStep(t *testing.T) {
	slo := plan.SLO{P99: 2 * time.Millisecond, ErrorShare: 0.001, Lag: time.Millisecond}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	quiet := &result.Generator{CPUShare: 0.4, CPUWaitShare: 0.1}
	for _, tc := range []struct {
		why   string
		f     stepFigures
		want  StepOutcome
		cause string
	}{
		{"everything within: held", stepFigures{p99: ms(1.5), p99FromSend: ms(1.4), lagP99: ms(0.1), sent: 1000, generator: quiet}, StepHeld, ""},
		{"the server answered late once asked, rlbench had CPU to spare: the limiter's",
			stepFigures{p99: ms(5), p99FromSend: ms(4.8), lagP99: ms(0.2), sent: 1000, generator: quiet}, StepBroke, result.CauseLatency},
		{"calls without a decision past the SLO are the server's, whatever else",
			stepFigures{p99: ms(1), p99FromSend: ms(1), lagP99: ms(5), errorShare: 0.01, sent: 1000, generator: quiet}, StepBroke, result.CauseErrors},
		{"answered in time once asked, sent late: rlbench's",
			stepFigures{p99: ms(3), p99FromSend: ms(1), lagP99: ms(2), sent: 1000, generator: quiet}, StepGeneratorShort, result.CauseGeneratorLate},
		{"answered in time once asked, sends within the lag, yet their sum past the p99: rlbench's",
			stepFigures{p99: ms(2.5), p99FromSend: ms(1.9), lagP99: ms(0.9), sent: 1000, generator: quiet}, StepGeneratorShort, result.CauseGeneratorLate},
		{"answered late from the send while rlbench was out of CPU: rlbench's",
			stepFigures{p99: ms(9), p99FromSend: ms(5), lagP99: ms(4), sent: 1000, generator: &result.Generator{CPUShare: 0.95}}, StepGeneratorShort, result.CauseGeneratorCPU},
		{"answered late from the send while rlbench was out of CPU, but the server used all of its own: the server was the limit",
			stepFigures{p99: ms(9), p99FromSend: ms(5), lagP99: ms(0.5), sent: 1000, generator: &result.Generator{CPUShare: 0.95}, serverCPU: 0.97}, StepBroke, result.CauseLatency},
		{"answered in time once asked, but requests queued for busy connections while the server used all of its CPU: the server was the limit",
			stepFigures{p99: ms(9), p99FromSend: ms(1.5), lagP99: ms(7), sent: 1000, busy: 400, generator: &result.Generator{CPUShare: 0.6, CPUWaitShare: 0.9}, serverCPU: 0.94}, StepBroke, result.CauseLatency},
		{"the same queue with the server at 80% of its CPU: rlbench's",
			stepFigures{p99: ms(9), p99FromSend: ms(1.5), lagP99: ms(7), sent: 1000, busy: 400, generator: &result.Generator{CPUShare: 0.6, CPUWaitShare: 0.9}, serverCPU: 0.8}, StepGeneratorShort, result.CauseGeneratorCPU},
		{"answered late from the send while rlbench waited for a CPU others held: rlbench's",
			stepFigures{p99: ms(9), p99FromSend: ms(5), lagP99: ms(4), sent: 1000, generator: &result.Generator{CPUShare: 0.3, CPUWaitShare: 0.4}}, StepGeneratorShort, result.CauseGeneratorCPU},
		{"requests that waited for a free worker are rlbench's",
			stepFigures{p99: ms(3), p99FromSend: ms(1.5), lagP99: ms(1.5), sent: 1000, busy: 50, generator: quiet}, StepGeneratorShort, result.CauseGeneratorWorkers},
		{"requests never sent are rlbench's, though every latency held",
			stepFigures{p99: ms(1), p99FromSend: ms(1), lagP99: ms(0.5), sent: 1000, unsent: 3, generator: quiet}, StepGeneratorShort, result.CauseGeneratorUnsent},
		{"a step without the scheduler's figures is judged on latency alone",
			stepFigures{p99: ms(5), p99FromSend: ms(4.8), lagP99: ms(0.2), sent: 1000}, StepBroke, result.CauseLatency},
	} {
		got, cause := judgeStep(slo, tc.f, 1)
		if got != tc.want || cause != tc.cause {
			t.Errorf("%s: %v %q, want %v %q", tc.why, got, cause, tc.want, tc.cause)
		}
	}
}

// countAt counts the steps at rate.
func countAt(steps []result.CapacityStep, rate float64) int {
	n := 0
	for _, s := range steps {
		if s.TargetPerS == rate {
			n++
		}
	}
	return n
}

// describeSteps writes steps briefly, for failures.
func describeSteps(steps []result.CapacityStep) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString("\n  ")
		b.WriteString(strings.Join([]string{strconv.FormatFloat(s.TargetPerS, 'f', 0, 64) + "/s", strconv.Itoa(s.Concurrency), s.Outcome, s.Cause}, " "))
	}
	return b.String()
}
