package resulttest

import "github.com/rlbench/rlbench/result"

// Capacity is Sample with two capacity runs in one scenario: a fixed
// window whose search converged at 40,000/s (the audit found it wrong at
// 60,000/s), and a sliding log whose search rlbench could not carry past
// 16,000/s (generator-bound on its CPU).
func Capacity() *result.Result {
	r := Sample()
	slo := result.SLO{P99Us: 2000, ErrorShare: 0.001, LagUs: 1000, StepS: 2}
	step := func(rate float64, p50, p99 int64, outcome, cause string) result.CapacityStep {
		return result.CapacityStep{TargetPerS: rate, AchievedPerS: rate, Concurrency: 64, Pipeline: 1, Sent: int64(rate * 2),
			P50Us: p50, P99Us: p99, P99FromSendUs: p99, LagP99Us: 30, ServerCPU: rate / 200000, Outcome: outcome, Cause: cause,
			Audit: &result.StepAudit{Allowed: 1000, ExpectedAllowed: 1000, MaxWindowAdmitted: 100, BoundWindow: 200}}
	}
	broken := step(60000, 900, 5000, result.StepBroke, result.CauseLatency)
	broken.Audit.Overshoot = 3
	fixed := &result.Capacity{SLO: slo, PerS: 40000, BrokePerS: 42000, End: result.CapacityConverged,
		ServerUsecPerDecision: 5, CeilingPerS: 200000, ShareOfCeiling: 0.2, GeneratorUsecPerDecision: 3.1,
		Pipelined: &result.PipelinedRun{PerS: 160000, Depth: 16, Connections: 64}, ShareOfPipelined: 0.25,
		ServerCPUAtCapacity: 0.71, BytesPerIdentity: 62,
		Steps: []result.CapacityStep{step(10000, 150, 600, result.StepHeld, ""), step(20000, 160, 800, result.StepHeld, ""),
			step(40000, 200, 1500, result.StepHeld, ""), broken, step(42000, 300, 2600, result.StepBroke, result.CauseLatency)}}
	cpuBound := step(32000, 500, 9000, result.StepGeneratorBound, result.CauseGeneratorCPU)
	cpuBound.Generator = &result.Generator{CPUShare: 0.97, CPUWaitShare: 0.05, UsecPerDecision: 30.3}
	cpuBound.ServerUsecPerCall = 9
	sliding := &result.Capacity{SLO: slo, PerS: 16000, End: result.CapacityGeneratorBound, GeneratorBoundAtPerS: 32000,
		ServerUsecPerDecision: 9, CeilingPerS: 111111, ShareOfCeiling: 0.144, GeneratorUsecPerDecision: 12.5,
		Steps: []result.CapacityStep{step(8000, 150, 700, result.StepHeld, ""), step(16000, 170, 900, result.StepHeld, ""), cpuBound}}
	base := r.Runs[0]
	base.Scenario, base.Shape, base.Errors = "capacity", "capacity", nil
	base.Requests = result.Requests{Sent: 80000, Allowed: 20000, Denied: 60000}
	base.Rate = result.RateFigures{TargetPerS: 40000, AchievedPerS: 40000}
	one, two := base, base
	one.Capacity = fixed
	two.Algorithm, two.Capacity = "sliding_log", sliding
	r.Runs = []result.Run{one, two}
	r.Profile.Algorithms = []string{"fixed_window", "sliding_log"}
	return r
}
