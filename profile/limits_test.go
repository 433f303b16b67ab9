package profile

import (
	"math"
	"path/filepath"
	"testing"
)

// withMachine makes the profile checks see a machine of memoryBytes, with
// openFiles files and cpus CPUs, for the rest of the test.
func withMachine(t *testing.T, memoryBytes, openFiles int64, cpus int) {
	t.Helper()
	saved := machine
	machine = machineLimits{memoryBytes: memoryBytes, openFiles: openFiles, cpus: cpus}
	t.Cleanup(func() { machine = saved })
}

// TestSizesAreBoundedByTheMachine: every number that makes rlbench
// allocate is checked at load against what the machine can hold, and the
// error names the file, the line and the field.
func TestSizesAreBoundedByTheMachine(t *testing.T) {
	withMachine(t, 8<<30, 4096, 2)
	const policy = "policy: {limit: 100, window: 1s}\n"
	const steady = "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"the issue's pool of two billion goroutines and connections",
			policy + "concurrency: 2000000000\n" + steady,
			`x.yaml:2: concurrency: 2000000000 goroutines with a connection each take about 238 TiB, more than this machine can spare (4 GiB, half of its 8 GiB)`},
		{"a scenario's own concurrency is checked the same way",
			policy + steady + "    concurrency: 100000000\n",
			`x.yaml:7: scenarios[0].concurrency: 100000000 goroutines with a connection each take about 11.9 TiB`},
		{"more connections than the process may open files",
			policy + "concurrency: 5000\n" + steady,
			`x.yaml:2: concurrency: 5000 connections need as many open files, and this process may open 4096 (ulimit -n)`},
		{"the issue's audit of two billion identities",
			policy + "audit: {identities: 2147483647}\n" + steady,
			`x.yaml:2: audit.identities: auditing 2147483647 identities takes about 80 GiB, more than this machine can spare (4 GiB`},
		{"a run whose audit would keep more decisions than memory holds",
			policy + "scenarios:\n  - name: s\n    shape: steady\n    rate: 1000000/s\n    identities: 10\n    duration: 24h\n",
			`x.yaml:3: scenarios[0]: a run takes about 1.26 TiB (1.26 TiB to keep 86400000000 audited decisions`},
		{"a run whose per-second series would not fit",
			policy + "audit: {identities: 0}\nscenarios:\n  - name: s\n    shape: steady\n    rate: 1/s\n    duration: 8760h\n",
			`x.yaml:4: scenarios[0]: a run takes about 1.77 TiB (1.77 TiB for 31536001 seconds of per-second series`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

// TestShippedProfilesFitASmallMachine: what profiles/ ships runs on a
// small machine (4 GiB, 1024 open files).
func TestShippedProfilesFitASmallMachine(t *testing.T) {
	withMachine(t, 4<<30, 1024, 2)
	paths, _ := filepath.Glob("../profiles/*.yaml")
	if len(paths) == 0 {
		t.Fatal("no profiles found")
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestRatesAndDurationsThatCannotRun: a rate whose first request after the
// first would be due after the run ends, a rate beyond the generator, and
// durations whose arithmetic would overflow are errors at load, with the
// line of the field.
func TestRatesAndDurationsThatCannotRun(t *testing.T) {
	const policy = "policy: {limit: 100, window: 1s}\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"the issue's tiny absolute rate",
			policy + "scenarios:\n  - name: s\n    shape: steady\n    rate: 1e-300/s\n    duration: 300ms\n",
			`x.yaml:5: scenarios[0].rate: 1e-300/s over 300ms offers no request after the first`},
		{"the issue's tiny relative rate",
			policy + "scenarios:\n  - name: s\n    shape: steady\n    rate: 1e-300x\n    duration: 300ms\n",
			`x.yaml:5: scenarios[0].rate: 1e-300x over 300ms offers no request after the first`},
		{"a rate just too slow for its duration",
			policy + "scenarios:\n  - name: s\n    shape: steady\n    rate: 1/m\n    duration: 30s\n",
			`x.yaml:5: scenarios[0].rate: 0.016666666666666666/s over 30s offers no request after the first (the next is due after 1m0s)`},
		{"a relative rate beyond the generator",
			"policy: {limit: 1000000000, window: 1ms}\nscenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n",
			`x.yaml:5: scenarios[0].rate: 2x is 2e+13/s here, more than 10000000/s`},
		{"a cardinality rate too slow for its duration",
			policy + "scenarios:\n  - name: c\n    shape: cardinality\n    identities: [10, 100]\n    rate: 1e-9x\n    duration: 1s\n",
			`x.yaml:6: scenarios[0].rate: 1e-09x over 1s offers no request after the first (the next is due after 277h46m39.999999999s)`},
		{"the issue's boundary stagger whose span overflowed",
			policy + "scenarios:\n  - name: b\n    shape: boundary\n    identities: 10\n    stagger: 2000000h\n",
			`x.yaml:6: scenarios[0].stagger: must be at most 8760h0m0s`},
		{"a stagger each within bounds whose span is not",
			policy + "scenarios:\n  - name: b\n    shape: boundary\n    identities: 50\n    stagger: 8000h\n",
			`x.yaml:6: scenarios[0].stagger: 49 x 8000h0m0s between 50 identities makes the scenario last 392000h0m1.011s, more than 8760h0m0s`},
		{"an offset whose default stagger would overflow",
			"policy: {limit: 100, window: 1000h}\nscenarios:\n  - name: b\n    shape: boundary\n    offset: 2000000h\n",
			`x.yaml:5: scenarios[0].offset: must be at most 8760h0m0s`},
		{"a duration at the edge of time.Duration",
			policy + "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 2562047h\n",
			`x.yaml:6: scenarios[0].duration: must be at most 8760h0m0s`},
		{"a timeout the engine adds grace periods to",
			policy + "timeout: 2562047h\n" + "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n",
			`x.yaml:2: timeout: must be at most 8760h0m0s`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}

// TestPlanLengthSaturates: adding up a plan never wraps around to a
// negative length.
func TestPlanLengthSaturates(t *testing.T) {
	withMachine(t, 1<<50, 4096, 2)
	p, err := Parse("x.yaml", []byte("policy: {limit: 1, window: 1s}\nwarmup: 8760h\nscenarios:\n"+
		"  - {name: a, shape: steady, rate: max, duration: 8760h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Plan(100)
	if l := PlanLength(plan); l.Time != math.MaxInt64 {
		t.Errorf("a plan of %d runs of two years each has length %s, want the longest time.Duration", len(plan.Runs), l.Time)
	}
}
