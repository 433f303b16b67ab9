package profile

import (
	"math"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

// TestDurationsThatMultiplyAreCheckedForOverflow: wherever a profile
// multiplies or adds up durations it gives (a capacity search's steps, a
// ramp's stages, a caller's doubling backoff and its retries), a total
// past MaxDuration is refused at its line, never wrapped around into a
// short or negative length that validate prints as "at most 0s", a run
// takes for a step of thousands of hours, or the memory check as "8 EiB
// ()".
func TestDurationsThatMultiplyAreCheckedForOverflow(t *testing.T) {
	withMachine(t, 8<<30, 4096, 2)
	const head = "policy: {limit: 100, window: 1s}\nscenarios:\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a thousand steps of a year wrap around int64",
			head + "  - shape: capacity\n    slo: {p99: 2ms}\n    step: 8760h\n    max_steps: 1000\n",
			`x.yaml:6: scenarios[0].max_steps: 1000 steps of 8760h0m0s and a pipelined run of 2s make the scenario last more than 8760h0m0s`},
		{"steps that fit, and a pipelined run that tips them over",
			head + "  - shape: capacity\n    slo: {p99: 2ms}\n    step: 4380h\n    max_steps: 2\n    pipelined: 1h\n",
			`x.yaml:6: scenarios[0].max_steps: 2 steps of 4380h0m0s and a pipelined run of 1h0m0s make the scenario last more than 8760h0m0s`},
		{"a thousand stages of a year",
			head + "  - shape: ramp\n    from: 1x\n    stages:\n" + repeatStage(1000, "{rate: 2x, duration: 8760h}"),
			`x.yaml:5: scenarios[0].stages: the stages last more than 8760h0m0s`},
		{"a backoff that doubles past any duration",
			"policy: {limit: 100, window: 1s}\nclient: {timeout: 1s, retries: 10, backoff: 8760h, on_error: fail_open}\nscenarios:\n  - shape: steady\n    rate: 1x\n    duration: 1s\n",
			`x.yaml:2: client.backoff: 8760h0m0s doubled for each of 10 retries makes a call wait more than 8760h0m0s`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

func repeatStage(n int, stage string) string {
	out := ""
	for range n {
		out += "      - " + stage + "\n"
	}
	return out
}

// TestAPlanLongerThanADurationSaysSo: runs that add up past what a
// duration holds are said to, not printed as the largest duration.
func TestAPlanLongerThanADurationSaysSo(t *testing.T) {
	pl := &plan.Plan{}
	for range 400 {
		pl.Runs = append(pl.Runs, plan.Run{Duration: MaxDuration})
	}
	if got := PlanLength(pl); got.Time != math.MaxInt64 || got.String() != "more than 292 years" {
		t.Errorf("length %v: %q", time.Duration(got.Time), got.String())
	}
}
