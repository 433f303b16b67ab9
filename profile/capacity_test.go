package profile

import (
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

// TestParseCapacityProfile: a capacity scenario resolves into the plan's
// search: its SLO, its range in requests a second (2x with the policy),
// what it may add to rlbench, and a length that bounds every step.
func TestParseCapacityProfile(t *testing.T) {
	p, err := Parse("c.yaml", []byte(`policy: {limit: 100, window: 10s}
concurrency: 32
scenarios:
  - name: auto
    shape: capacity
    slo: {p99: 2ms}
    identities: 1000
  - name: ranged
    shape: capacity
    slo: {p99: 500us, errors: 1%, lag: 2ms}
    range: [2x, 100000/s]
    step: 1s
    precision: 2%
    max_steps: 12
    confirm: 1
    allow: {concurrency: 100, pipeline: 16}
    pipelined: 0s
    identities: 500
    pipeline: 4
`))
	if err != nil {
		t.Fatal(err)
	}
	pl := p.Plan(1)
	auto, ranged := pl.Runs[0], pl.Runs[len(p.Algorithms)]
	want := plan.Capacity{
		SLO:           plan.SLO{P99: 2 * time.Millisecond, ErrorShare: DefaultSLOErrors, Lag: DefaultSLOLag},
		FromPerSecond: DefaultCapacityFrom, ToPerSecond: AutoCapacityTo, Auto: true, Step: DefaultCapacityStep,
		Precision: DefaultCapacityPrecision, MaxSteps: DefaultCapacityMaxSteps, Confirm: DefaultCapacityConfirm,
		// Workers may grow fourfold by default; pipelining only when allowed.
		MaxConcurrency: 128, MaxPipeline: 1,
		Pipelined: DefaultPipelinedRun, PipelinedDepth: PipelinedRunDepth,
	}
	if auto.Capacity != want || auto.Shape != plan.ShapeCapacity || auto.TargetPerSecond != DefaultCapacityFrom {
		t.Errorf("auto: %+v at %v/s, want %+v", auto.Capacity, auto.TargetPerSecond, want)
	}
	if auto.Duration != time.Duration(DefaultCapacityMaxSteps)*DefaultCapacityStep+DefaultPipelinedRun {
		t.Errorf("auto: duration %s, want every step and the pipelined run", auto.Duration)
	}
	want = plan.Capacity{
		SLO: plan.SLO{P99: 500 * time.Microsecond, ErrorShare: 0.01, Lag: 2 * time.Millisecond},
		// 2x of 10/s for 500 identities.
		FromPerSecond: 10000, ToPerSecond: 100000, Step: time.Second, Precision: 0.02, MaxSteps: 12, Confirm: 1,
		MaxConcurrency: 100, MaxPipeline: 16, PipelinedDepth: PipelinedRunDepth,
	}
	if ranged.Capacity != want || ranged.Pipeline.Depth != 4 {
		t.Errorf("ranged: %+v, pipeline %v; want %+v", ranged.Capacity, ranged.Pipeline, want)
	}
	if n := pl.MaxConcurrency(); n != 128 || p.MaxConcurrency() != 128 {
		t.Errorf("the pool holds %d (plan) or %d (profile) connections, want room for the search's 128 workers", n, p.MaxConcurrency())
	}
}

// TestParseCapacityProfileErrors: bad capacity input names file, line and
// field, once.
func TestParseCapacityProfileErrors(t *testing.T) {
	const head = "policy: {limit: 100, window: 10s}\nscenarios:\n  - name: c\n    shape: capacity\n"
	for _, tc := range []struct {
		why, yaml, want string
	}{
		{"an SLO is required", head + "    identities: 10\n",
			`c.yaml:3: scenarios[0].slo: missing: give the objective`},
		{"its p99 is required", head + "    slo: {errors: 1%}\n",
			`c.yaml:5: scenarios[0].slo.p99: missing`},
		{"an SLO's fields are checked", head + "    slo: {p99: 2ms, latency: 1ms}\n",
			`c.yaml:5: scenarios[0].slo.latency: unknown field (known: p99, errors, lag)`},
		{"errors is a percentage", head + "    slo: {p99: 2ms, errors: 0.1}\n",
			`c.yaml:5: scenarios[0].slo.errors: "0.1" is not a percentage`},
		{"a range goes up", head + "    slo: {p99: 2ms}\n    range: [5000/s, 1000/s]\n",
			`c.yaml:6: scenarios[0].range: the range must go up: 1000/s (1000/s) is not above 5000/s (5000/s)`},
		{"a range holds two rates", head + "    slo: {p99: 2ms}\n    range: [5000/s]\n",
			`c.yaml:6: scenarios[0].range: want auto, or a list of two rates`},
		{"a range is open loop", head + "    slo: {p99: 2ms}\n    range: [1000/s, max]\n",
			`c.yaml:6: scenarios[0].range[1]: a capacity search is open loop`},
		{"from belongs to range: auto", head + "    slo: {p99: 2ms}\n    range: [1000/s, 5000/s]\n    from: 2000/s\n",
			`c.yaml:7: scenarios[0].from: has no meaning with a range of two rates`},
		{"from is open loop", head + "    slo: {p99: 2ms}\n    from: max\n",
			`c.yaml:6: scenarios[0].from: a capacity search is open loop`},
		{"past the highest rate", head + "    slo: {p99: 2ms}\n    range: [1000/s, 20000000/s]\n",
			`c.yaml:6: scenarios[0].range[1]: "20000000/s" is more than 10000000/s`},
		{"a step too short to send twice", head + "    slo: {p99: 2ms}\n    from: 10/s\n    step: 50ms\n",
			`c.yaml:6: scenarios[0].from: 10/s over a step of 50ms offers no request after the first`},
		{"precision is a share above nothing", head + "    slo: {p99: 2ms}\n    precision: 0%\n",
			`c.yaml:6: scenarios[0].precision: 0% is not a share above 0%`},
		{"confirm fits in max_steps", head + "    slo: {p99: 2ms}\n    max_steps: 2\n    confirm: 3\n",
			`c.yaml:7: scenarios[0].confirm: 3 is more than max_steps (2)`},
		{"allow's pipeline is bounded", head + "    slo: {p99: 2ms}\n    allow: {pipeline: 5000}\n",
			`c.yaml:6: scenarios[0].allow.pipeline: 5000 is more than 1024`},
		{"faults would be blamed on the limiter", head + "    slo: {p99: 2ms}\n    faults: [{kind: pause, at: 1s, for: 100ms}]\n",
			`scenarios[0].faults: a capacity search takes what breaks its SLO for the limiter's doing`},
		{"a capacity scenario takes no duration", head + "    slo: {p99: 2ms}\n    duration: 10s\n",
			`c.yaml:6: scenarios[0].duration: unknown field`},
	} {
		_, err := Parse("c.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
			continue
		}
		if n := len(err.(Errors)); n != 1 {
			t.Errorf("%s: %d errors, want one:\n%v", tc.why, n, err)
		}
	}
	_, err := ParseWith("c.yaml", []byte(head+"    slo: {p99: 2ms}\n"), Options{Segmented: true})
	if err == nil || !strings.Contains(err.Error(), "c.yaml:4: scenarios[0].shape: --segment: scenario c searches for a capacity") {
		t.Errorf("segmented: %v", err)
	}
}
