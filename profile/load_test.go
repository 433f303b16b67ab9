package profile

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

const goodProfile = `name: demo
policy:
  limit: 100
  window: 1s
  burst: 150
algorithms: [fixed_window, sliding_log]
concurrency: 8
warmup: 500ms
seed: 9
timeout: 1s
redis:
  addr: 127.0.0.1:6379
  username: bench
  password_env: BENCH_REDIS_PASSWORD
  db: 3
scenarios:
  - name: steady
    shape: steady
    rate: 2x
    arrival: poisson
    identities: 20
    duration: 3s
  - name: sat
    shape: steady
    rate: max
    requests: 5000
`

func TestParseProfileGood(t *testing.T) {
	p, err := Parse("profiles/demo.yaml", []byte(goodProfile))
	if err != nil {
		t.Fatal(err)
	}
	want := algorithms.Policy{Limit: 100, Window: time.Second, Burst: 150}
	if p.Policy != want {
		t.Errorf("policy %+v, want %+v", p.Policy, want)
	}
	if p.Name != "demo" || p.Concurrency != 8 || p.Warmup != 500*time.Millisecond || p.Seed != 9 || p.Timeout != time.Second {
		t.Errorf("top-level fields wrong: %+v", p)
	}
	if strings.Join(p.Algorithms, ",") != "fixed_window,sliding_log" {
		t.Errorf("algorithms %v", p.Algorithms)
	}
	if p.Redis == nil || p.Redis.Addr != "127.0.0.1:6379" || p.Redis.DB != 3 || p.Redis.PasswordEnv != "BENCH_REDIS_PASSWORD" {
		t.Errorf("redis %+v", p.Redis)
	}
	if len(p.Scenarios) != 2 {
		t.Fatalf("%d scenarios", len(p.Scenarios))
	}
	s := p.Scenarios[0]
	if s.Rate.Multiple != 2 || s.Arrival != plan.Poisson || s.Identities != 20 || s.Duration != 3*time.Second || s.Line != 17 {
		t.Errorf("scenario 0: %+v", s)
	}
	if got := s.Rate.TargetPerSecond(p.Policy, s.Identities); got != 4000 {
		t.Errorf("2x of 100/s over 20 identities = %v/s, want 4000", got)
	}
	if sat := p.Scenarios[1]; !sat.Rate.Max || sat.Requests != 5000 || sat.Duration != time.Hour {
		t.Errorf("scenario 1: %+v", sat)
	}
	if len(p.Plan(1).Runs) != 4 {
		t.Errorf("plan has %d runs, want 2 scenarios x 2 algorithms", len(p.Plan(1).Runs))
	}
	if len(p.Hash) != 64 {
		t.Errorf("hash %q", p.Hash)
	}
}

func TestParseProfileDefaults(t *testing.T) {
	p, err := Parse("dir/min.yaml", []byte("policy: {limit: 5, window: 250ms}\nscenarios:\n  - shape: steady\n    rate: 10/s\n    duration: 1s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "min" || p.Concurrency != DefaultConcurrency || p.Seed != DefaultSeed || p.Timeout != DefaultTimeout {
		t.Errorf("defaults not applied: %+v", p)
	}
	if strings.Join(p.Algorithms, ",") != strings.Join(algorithms.Default(), ",") {
		t.Errorf("algorithms %v, want the default four", p.Algorithms)
	}
	if s := p.Scenarios[0]; s.Name != "steady" || s.Arrival != plan.Uniform || s.Identities != DefaultIdentities {
		t.Errorf("scenario defaults: %+v", s)
	}
}

// TestParseProfileErrors: every bad input names file, line and field.
func TestParseProfileErrors(t *testing.T) {
	const head = "policy:\n  limit: 100\n  window: 1s\n"
	const scen = "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"unknown top-level field, with a hint",
			head + "concurrence: 4\n" + scen,
			`x.yaml:4: concurrence: unknown field (did you mean "concurrency"? known:`},
		{"unknown scenario field",
			head + scen + "    burst_size: 3\n",
			`x.yaml:9: scenarios[0].burst_size: unknown field`},
		{"the issue's example: a rate that is not a rate",
			head + "scenarios:\n  - name: s\n    shape: steady\n    rate: fast\n    duration: 1s\n",
			`x.yaml:7: scenarios[0].rate: "fast" is not a rate like 500/s, 2x or max`},
		{"wrong type: a list where a number goes",
			"policy:\n  limit: [1, 2]\n  window: 1s\n" + scen,
			`x.yaml:2: policy.limit: want a single value, got a list`},
		{"wrong type: text where a number goes",
			"policy:\n  limit: lots\n  window: 1s\n" + scen,
			`x.yaml:2: policy.limit: "lots" is not a whole number`},
		{"negative limit",
			"policy:\n  limit: -5\n  window: 1s\n" + scen,
			`x.yaml:2: policy.limit: must be at least 1, got -5`},
		{"a window that is not a duration",
			"policy:\n  limit: 5\n  window: 60\n" + scen,
			`x.yaml:3: policy.window: "60" is not a duration like 10s, 250ms or 1m`},
		{"a window Redis expiries cannot express",
			"policy:\n  limit: 5\n  window: 1500us\n" + scen,
			`x.yaml:3: policy.window: 1.5ms is not a whole number of milliseconds`},
		{"unknown algorithm",
			head + "algorithms: [fixed_window, token_bukket]\n" + scen,
			`x.yaml:4: algorithms[1]: unknown algorithm "token_bukket" (did you mean "token_bucket"?`},
		{"unknown shape",
			head + "scenarios:\n  - shape: spike\n    rate: 2x\n",
			`x.yaml:5: scenarios[0].shape: unknown shape "spike" (known: steady, boundary, cardinality, ramp, capacity, replay)`},
		{"a misspelt shape gets a hint",
			head + "scenarios:\n  - shape: steddy\n    rate: 2x\n",
			`x.yaml:5: scenarios[0].shape: unknown shape "steddy" (did you mean "steady"? known: steady, boundary, cardinality, ramp, capacity, replay)`},
		{"steady takes zipf or uniform, not sequential",
			head + scen + "    distribution: sequential\n",
			`x.yaml:9: scenarios[0].distribution: "sequential" is not uniform or zipf`},
		{"a Zipf exponent without Zipf draws",
			head + scen + "    zipf_exponent: 1.5\n",
			`x.yaml:9: scenarios[0].zipf_exponent: has no meaning with distribution left to the arrivals (only with zipf)`},
		{"a ramp without stages",
			head + "scenarios:\n  - shape: ramp\n    from: 1x\n",
			`x.yaml:5: scenarios[0].stages: missing: give the stages`},
		{"a ramp stage without its duration",
			head + "scenarios:\n  - shape: ramp\n    stages:\n      - {rate: 2x}\n",
			`x.yaml:7: scenarios[0].stages[0].duration: missing`},
		{"a ramp is open loop",
			head + "scenarios:\n  - shape: ramp\n    stages:\n      - {rate: max, duration: 1s}\n",
			`x.yaml:7: scenarios[0].stages[0].rate: a ramp is open loop`},
		{"missing policy",
			scen,
			`x.yaml:1: policy: missing`},
		{"missing duration and requests",
			head + "scenarios:\n  - shape: steady\n    rate: 2x\n",
			`x.yaml:5: scenarios[0].duration: missing`},
		{"two scenarios with one name",
			head + scen + "  - name: s\n    shape: steady\n    rate: max\n    duration: 1s\n",
			`x.yaml:9: scenarios[1].name: "s" is already the name of scenarios[0]`},
		{"YAML syntax error",
			"policy:\n  limit: 5\n window: 1s\n",
			`x.yaml:2: invalid YAML: did not find expected key`},
		{"password in place of the variable name",
			head + "redis:\n  password_env: hunter2!\n" + scen,
			`x.yaml:5: redis.password_env: "hunter2!" is not an environment variable name`},
		{"bucket state too large to stay exact",
			"policy:\n  limit: 1\n  window: 24h\n  burst: 1000000\n" + scen,
			`x.yaml:1: policy: capacity 1000000 x window 24h0m0s is too large`},
		{"empty file",
			"",
			`x.yaml: the profile is empty`},
		{"a bucket that does not divide the window, with one that does",
			"policy:\n  limit: 5\n  window: 1200ms\n  bucket: 500ms\n" + scen,
			`x.yaml:4: policy.bucket: 500ms does not divide the window 1.2s; give a width like 600ms`},
		{"a bucket of a fraction of a millisecond",
			"policy:\n  limit: 5\n  window: 1s\n  bucket: 1500us\n" + scen,
			`x.yaml:4: policy.bucket: 1.5ms is not a whole number of milliseconds`},
		{"a limit x window too large for the sliding counter's exact comparison",
			"policy:\n  limit: 100000000\n  window: 24h\n  burst: 1\nalgorithms: [fixed_window, sliding_counter]\n" + scen,
			`x.yaml:1: policy: sliding_counter cannot run under 100000000 per 24h0m0s (burst 1): limit 100000000 x window 24h0m0s is too large`},
		{"a scenario's own policy is checked like the profile's, where it stands",
			head + scen + "    policy: {limit: 5, window: 1s, bucket: 300ms}\n",
			`x.yaml:9: scenarios[0].policy.bucket: 300ms does not divide the window 1s`},
		{"an ideal that is no ideal limiter, with the ones there are",
			head + "ideal: fixed_window\n" + scen,
			`x.yaml:4: ideal: unknown ideal "fixed_window" (known: sliding_window, token_bucket)`},
		{"a scenario's own policy is checked against every limiter listed",
			head + "algorithms: [sliding_counter]\n" + scen + "    policy: {limit: 100000000, window: 24h, burst: 1}\n",
			`x.yaml:10: scenarios[0].policy: sliding_counter cannot run under 100000000 per 24h0m0s (burst 1)`},
		{"an empty fleet section, which ran without a fleet and said nothing",
			head + "fleet:\n" + scen,
			`x.yaml:4: fleet: is empty: give it a value, or leave the line out`},
		{"an empty redis section",
			head + "redis: ~\n" + scen,
			`x.yaml:4: redis: is empty: give it a value, or leave the line out`},
		{"an empty value deep in a scenario",
			head + scen + "    identities: null\n",
			`x.yaml:9: scenarios[0].identities: is empty: give it a value, or leave the line out`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		err  bool
	}{
		{"500/s", Rate{PerSecond: 500}, false},
		{"30000/m", Rate{PerSecond: 500}, false}, // per minute
		{"2/ms", Rate{PerSecond: 2000}, false},   // per millisecond
		{"2x", Rate{Multiple: 2}, false},         // relative to the policy
		{"0.5x", Rate{Multiple: 0.5}, false},     // under the limit
		{"max", Rate{Max: true}, false},          // closed loop
		{"fast", Rate{}, true},                   // not a rate
		{"500", Rate{}, true},                    // no unit: ambiguous
		{"-5/s", Rate{}, true},                   // negative
		{"0x", Rate{}, true},                     // zero offers nothing
		{"500/fortnight", Rate{}, true},          // unknown unit
		{"100000000/s", Rate{}, true},            // beyond any generator
	} {
		got, err := ParseRate(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseRate(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// TestScenarioPolicyBucket: a scenario's policy carries the profile's
// bucket width unless it names its own, and the profile lists each policy
// its runs enforce once.
func TestScenarioPolicyBucket(t *testing.T) {
	p, err := Parse("c.yaml", []byte(`policy: {limit: 10, window: 500ms, bucket: 100ms}
algorithms: [sliding_buckets, gcra]
scenarios:
  - {name: fast, shape: steady, rate: 2x, identities: 4, duration: 1s}
  - {name: hour, shape: steady, rate: 100/s, identities: 4, duration: 1s, policy: {window: 1h}}
  - {name: coarse, shape: steady, rate: 100/s, identities: 4, duration: 1s, policy: {window: 1h, bucket: 1s}}
  - {name: again, shape: steady, rate: 100/s, identities: 4, duration: 1s, policy: {window: 1h}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, time.Second, 100 * time.Millisecond} {
		if got := p.PolicyFor(p.Scenarios[i]).BucketWidth(); got != want {
			t.Errorf("%s: bucket %s, want %s", p.Scenarios[i].Name, got, want)
		}
	}
	if got := p.Policies(); len(got) != 3 {
		t.Errorf("policies %v, want the profile's and two of scenarios", got)
	}
}

// TestParseRampAndSteadyZipf: a ramp's duration is its stages' total and
// its rate their average; steady takes a Zipf distribution.
func TestParseRampAndSteadyZipf(t *testing.T) {
	p, err := Parse("r.yaml", []byte(`policy: {limit: 10, window: 1s}
scenarios:
  - name: ramp
    shape: ramp
    identities: 4
    from: 1x
    stages:
      - {rate: 3x, duration: 2s}
      - {rate: 3x, duration: 1s}
  - name: hot
    shape: steady
    rate: 100/s
    duration: 1s
    identities: 50
    distribution: zipf
`))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Scenarios[0]
	// 4 identities x 10/s: 40/s rising to 120/s over 2s (160 requests),
	// then 120/s for 1s: 280 requests in 3s.
	if r.Duration != 3*time.Second || len(r.Stages) != 2 || math.Abs(r.Rate.PerSecond-280.0/3) > 1e-9 || p.PlannedRequests(r) != 280 {
		t.Errorf("ramp: %s over %d stages at %v/s, %d planned; want 3s, 2 stages, 93.3/s, 280", r.Duration, len(r.Stages), r.Rate.PerSecond, p.PlannedRequests(r))
	}
	if h := p.Scenarios[1]; h.Distribution != plan.ZipfIdentities || h.ZipfExponent != plan.DefaultZipfExponent {
		t.Errorf("steady zipf: %s with exponent %v", h.Distribution, h.ZipfExponent)
	}
}

// TestAlgorithmsReplaced: the command line may replace the algorithms list
// with built-ins and the profile's own limiters; the profile is then
// checked as if it listed them, so a threshold that selects no run, or an
// unknown name, is still an error.
func TestAlgorithmsReplaced(t *testing.T) {
	const src = `policy: {limit: 10, window: 1s}
algorithms:
  - fixed_window
  - name: mine
    script: mine.lua
    keys: ["${identity}"]
    reply: {allowed: 1}
    semantics: fixed_window
scenarios:
  - {name: s, shape: steady, rate: 2x, duration: 1s}
thresholds:
  - "*/* audit.overshoot == 0"
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.lua"), []byte("return 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadWith(context.Background(), path, Options{Algorithms: []string{"gcra", "mine"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Algorithms, ",") != "gcra,mine" || len(p.Declared) != 1 || p.Declaration("mine") == nil {
		t.Errorf("algorithms %v, declared %d; want gcra and the profile's own", p.Algorithms, len(p.Declared))
	}
	p, err = LoadWith(context.Background(), path, Options{Algorithms: []string{"gcra"}})
	if err != nil || len(p.Declared) != 0 {
		t.Errorf("a declared limiter not named is dropped: %v, %v", p, err)
	}
	_, err = LoadWith(context.Background(), path, Options{Algorithms: []string{"gcra", "sliding_countr"}})
	if err == nil || !strings.Contains(err.Error(), `unknown algorithm "sliding_countr" (did you mean "sliding_counter"?`) {
		t.Errorf("an unknown name: %v", err)
	}
	strict := strings.Replace(src, `"*/* audit.overshoot == 0"`, `"fixed_window/* audit.overshoot == 0"`, 1)
	if err := os.WriteFile(path, []byte(strict), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWith(context.Background(), path, Options{Algorithms: []string{"gcra"}}); err == nil || !strings.Contains(err.Error(), "selector fixed_window/* matches no run (algorithms: gcra;") {
		t.Errorf("a threshold left without a run: %v", err)
	}
}

// TestIdealOfEachRun: a profile that names no ideal sets each run beside
// the one its policy describes (a bucket when it gives a burst); one that
// names an ideal sets every run beside it.
func TestIdealOfEachRun(t *testing.T) {
	const doc = "policy: {limit: 100, window: 1s}\nscenarios:\n  - {name: plain, shape: steady, rate: 2x, duration: 1s}\n" +
		"  - {name: bursty, shape: steady, rate: 2x, duration: 1s, policy: {burst: 150}}\n"
	p, err := Parse("x.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]algorithms.Ideal{}
	for _, r := range p.Plan(1).Runs {
		got[r.Scenario] = r.Ideal
	}
	if got["plain"] != algorithms.IdealSlidingWindow || got["bursty"] != algorithms.IdealTokenBucket {
		t.Errorf("ideals by default %v, want sliding_window for plain and token_bucket for bursty", got)
	}
	p, err = Parse("x.yaml", []byte("ideal: token_bucket\n"+doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Plan(1).Runs {
		if r.Ideal != algorithms.IdealTokenBucket {
			t.Errorf("%s: ideal %q, want the profile's token_bucket", r.Key(), r.Ideal)
		}
	}
}
