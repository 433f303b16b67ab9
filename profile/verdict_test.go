package profile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/result"
)

const verdictHead = "policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window, naive_counter]\n"
const verdictScenario = "scenarios:\n  - {shape: steady, rate: 2x, duration: 1s}\n"

func TestVerdictRules(t *testing.T) {
	p, err := Parse("x.yaml", []byte(verdictHead+verdictScenario))
	if err != nil {
		t.Fatal(err)
	}
	if p.ErrorBudget != result.DefaultErrorBudget || p.ExpectBroken != nil {
		t.Errorf("defaults: budget %v, expect_broken %v", p.ErrorBudget, p.ExpectBroken)
	}
	p, err = Parse("x.yaml", []byte(verdictHead+"expect_broken: [naive_counter]\nerror_budget: 2.5%\n"+verdictScenario))
	if err != nil {
		t.Fatal(err)
	}
	if p.ErrorBudget != 0.025 || len(p.ExpectBroken) != 1 || p.ExpectBroken[0] != "naive_counter" {
		t.Errorf("budget %v, expect_broken %v", p.ErrorBudget, p.ExpectBroken)
	}
	if p, err := Parse("x.yaml", []byte(verdictHead+"error_budget: 0\n"+verdictScenario)); err != nil || p.ErrorBudget != 0 {
		t.Errorf("a budget of 0: %v, %v", p, err)
	}
}

func TestVerdictRuleErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a negative control the profile does not run",
			verdictHead + "expect_broken: [sliding_log]\n" + verdictScenario,
			`x.yaml:3: expect_broken[0]: "sliding_log" is not among the algorithms this profile runs (fixed_window, naive_counter)`},
		{"listed twice",
			verdictHead + "expect_broken: [naive_counter, naive_counter]\n" + verdictScenario,
			`x.yaml:3: expect_broken[1]: "naive_counter" is listed twice`},
		{"not a list",
			verdictHead + "expect_broken: naive_counter\n" + verdictScenario,
			`x.yaml:3: expect_broken: want a list, got "naive_counter"`},
		{"a bare number could mean 1% or 100%",
			verdictHead + "error_budget: 1\n" + verdictScenario,
			`x.yaml:3: error_budget: "1" is not a percentage from 0% to 100% like 0.1%`},
		{"more than everything",
			verdictHead + "error_budget: 150%\n" + verdictScenario,
			`x.yaml:3: error_budget: "150%" is not a percentage`},
		{"negative",
			verdictHead + "error_budget: -1%\n" + verdictScenario,
			`x.yaml:3: error_budget: "-1%" is not a percentage`},
		{"not a number",
			verdictHead + "error_budget: NaN%\n" + verdictScenario,
			`x.yaml:3: error_budget: "NaN%" is not a percentage`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

// TestScenarioPolicy: a scenario may override the profile's policy, field
// by field; its runs, its offered rate and its boundary schedule follow
// the scenario's policy.
func TestScenarioPolicy(t *testing.T) {
	p, err := Parse("x.yaml", []byte(`policy: {limit: 25, window: 500ms, burst: 40}
scenarios:
  - {name: plain, shape: steady, rate: 2x, identities: 2, duration: 1s}
  - {name: one, shape: steady, rate: 2x, identities: 2, duration: 1s, policy: {burst: 1}}
  - {name: fast, shape: steady, rate: 2x, identities: 2, duration: 1s, policy: {limit: 500, window: 100ms}}
  - {name: edge, shape: boundary, identities: 1, offset: 140ms, policy: {window: 200ms}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scenario string
		want     algorithms.Policy
		planned  int64
	}{
		{"plain", algorithms.Policy{Limit: 25, Window: 500 * time.Millisecond, Burst: 40}, 200},     // the profile's own
		{"one", algorithms.Policy{Limit: 25, Window: 500 * time.Millisecond, Burst: 1}, 200},        // only the burst changes
		{"fast", algorithms.Policy{Limit: 500, Window: 100 * time.Millisecond, Burst: 40}, 20000},   // 2 x 2 x 5000/s for 1s
		{"edge", algorithms.Policy{Limit: 25, Window: 200 * time.Millisecond, Burst: 40}, 1 + 2*41}, // a prime and two bursts of one more than the capacity
	} {
		s := p.Scenarios[slices.Index(p.ScenarioNames(), tc.scenario)]
		if got := p.PolicyFor(s); got != tc.want {
			t.Errorf("%s: policy %+v, want %+v", tc.scenario, got, tc.want)
		}
		if got := p.PlannedRequests(s); got != tc.planned {
			t.Errorf("%s: %d requests planned, want %d", tc.scenario, got, tc.planned)
		}
	}
	edge := p.Scenarios[3]
	if want := 200*time.Millisecond + time.Millisecond + 140*time.Millisecond; edge.Duration != want {
		t.Errorf("boundary span %s, want the scenario's window + 1ms + offset = %s", edge.Duration, want)
	}
}

func TestScenarioPolicyErrors(t *testing.T) {
	const head = "policy: {limit: 25, window: 500ms}\nscenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"an unknown policy field",
			head + "    policy: {limt: 5}\n",
			`x.yaml:7: scenarios[0].policy.limt: unknown field (did you mean "limit"?`},
		{"a window Redis expiries cannot express",
			head + "    policy:\n      window: 1500us\n",
			`x.yaml:8: scenarios[0].policy.window: 1.5ms is not a whole number of milliseconds`},
		{"bucket state too large to stay exact",
			head + "    policy:\n      window: 24h\n      burst: 1000000\n",
			`x.yaml:7: scenarios[0].policy: capacity 1000000 x window 24h0m0s is too large`},
		{"a boundary offset checked against the scenario's window",
			"policy: {limit: 25, window: 500ms}\nscenarios:\n  - {shape: boundary, offset: 300ms, policy: {window: 200ms}}\n",
			`x.yaml:3: scenarios[0].offset: offset 300ms + spread 0s must be shorter than the window 200ms`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

// TestNegativeControlsOfASubset: --algorithms may run a subset of a
// profile with negative controls: a control it keeps stays expected
// broken, one it leaves out is not expected of the run and is named in a
// warning (a subset without it could not be run before: "not among the
// algorithms this profile runs"); expect_broken is still checked against
// the profile's own list.
func TestNegativeControlsOfASubset(t *testing.T) {
	const src = "policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window, naive_counter, sliding_log]\nexpect_broken: [naive_counter]\n" + verdictScenario
	p, err := ParseWith("x.yaml", []byte(src), Options{Algorithms: []string{"fixed_window", "sliding_log"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `x.yaml:3: expect_broken: naive_counter not run (--algorithms leaves it out): this invocation has no such negative control`
	if len(p.ExpectBroken) != 0 || !slices.Contains(p.Warnings(), want) {
		t.Errorf("expect_broken %v, warnings %q; want none expected and %q", p.ExpectBroken, p.Warnings(), want)
	}
	p, err = ParseWith("x.yaml", []byte(src), Options{Algorithms: []string{"naive_counter"}})
	if err != nil || !slices.Equal(p.ExpectBroken, []string{"naive_counter"}) || len(p.Warnings()) != 0 {
		t.Errorf("a subset with the control: %v, %v", p, err)
	}
	typo := strings.Replace(src, "expect_broken: [naive_counter]", "expect_broken: [naive_countr]", 1)
	if _, err := ParseWith("x.yaml", []byte(typo), Options{Algorithms: []string{"fixed_window"}}); err == nil ||
		!strings.Contains(err.Error(), `x.yaml:3: expect_broken[0]: "naive_countr" is not among the algorithms this profile runs (fixed_window, naive_counter, sliding_log)`) {
		t.Errorf("a name the profile does not list: %v", err)
	}
}
