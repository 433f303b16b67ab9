package profile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

const fleetHead = "policy:\n  limit: 10\n  window: 1s\nconcurrency: 8\n"

// TestParseFleetSweep: a fleet spreads its instances' clocks evenly over
// ±clock_skew, drifting over ±drift a minute; a scenario's clock_skew list
// becomes one scenario per step, named <name>-skew<step>, whose runs carry
// the fleet spread over that step; a single clock_skew spreads it anew
// without a new name; a scenario that gives none takes the fleet's.
func TestParseFleetSweep(t *testing.T) {
	p, err := Parse("f.yaml", []byte(fleetHead+`algorithms: [fixed_window, fixed_window_client_time]
fleet:
  instances: 4
  clock_skew: 250ms
  drift: 6ms/min
scenarios:
  - name: sweep
    shape: steady
    rate: 3x
    duration: 2s
    clock_skew: [0, 50ms, 1.5s, 250us]
  - name: one
    shape: steady
    rate: 3x
    duration: 2s
    clock_skew: 10ms
  - name: plain
    shape: boundary
`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Scenarios {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "sweep-skew0,sweep-skew50ms,sweep-skew1.5s,sweep-skew250us,one,plain" {
		t.Fatalf("scenarios %s", got)
	}
	if f := p.Fleet; f == nil || f.Instances() != 4 || f.Skew != 250*time.Millisecond || f.Drift != 6*time.Millisecond ||
		!slices.Equal(f.Offsets, plan.Spread(4, 250*time.Millisecond)) || f.Offsets[0] != -250*time.Millisecond || f.Offsets[3] != 250*time.Millisecond ||
		!slices.Equal(f.DriftPerMinute, []time.Duration{-6 * time.Millisecond, -2 * time.Millisecond, 2 * time.Millisecond, 6 * time.Millisecond}) {
		t.Fatalf("fleet %+v", p.Fleet)
	}
	pl := p.Plan(1)
	want := map[string]time.Duration{"sweep-skew0": 0, "sweep-skew50ms": 50 * time.Millisecond, "sweep-skew1.5s": 1500 * time.Millisecond,
		"sweep-skew250us": 250 * time.Microsecond, "one": 10 * time.Millisecond, "plain": 250 * time.Millisecond}
	for _, r := range pl.Runs {
		f := r.Fleet
		if f == nil || f.Instances() != 4 || f.Skew != want[r.Scenario] || f.Offsets[3] != want[r.Scenario] || f.Offsets[0] != -want[r.Scenario] || f.Drift != 6*time.Millisecond {
			t.Errorf("%s: fleet %+v, want spread over ±%s", r.Key(), f, want[r.Scenario])
		}
		if wantSweep := strings.HasPrefix(r.Scenario, "sweep-"); (r.Sweep == "sweep") != wantSweep {
			t.Errorf("%s: sweep %q", r.Key(), r.Sweep)
		}
	}
	if len(pl.Runs) != 6*2 {
		t.Errorf("%d runs, want 6 scenarios x 2 limiters", len(pl.Runs))
	}
}

// TestParseFleetOffsetsAndDefaults: listed offsets make the instances,
// ahead and behind; without a fleet no run has one; one instance sits at
// the true time.
func TestParseFleetOffsetsAndDefaults(t *testing.T) {
	p, err := Parse("f.yaml", []byte(fleetHead+`fleet:
  offsets: [-1s, 0, 40ms]
  sticky: true
scenarios:
  - {name: s, shape: steady, rate: 2x, duration: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Fleet; !f.Listed || !f.Sticky || !slices.Equal(f.Offsets, []time.Duration{-time.Second, 0, 40 * time.Millisecond}) || f.DriftPerMinute != nil {
		t.Errorf("fleet %+v", f)
	}
	p, err = Parse("f.yaml", []byte(fleetHead+"scenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Plan(1).Runs {
		if r.Fleet != nil || r.Sweep != "" {
			t.Errorf("%s: a fleet without a fleet section", r.Key())
		}
	}
	if got := plan.Spread(1, time.Second); !slices.Equal(got, []time.Duration{0}) {
		t.Errorf("one instance spread: %v", got)
	}
}

// TestParseFleetErrors: a wrong fleet, or a clock_skew it cannot take,
// names file, line and field.
func TestParseFleetErrors(t *testing.T) {
	const steady = "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"no instances and no offsets", "fleet:\n  clock_skew: 1s\n" + steady,
			`f.yaml:6: fleet.instances: missing: how many application instances send the load`},
		{"too many instances", "fleet:\n  instances: 65\n" + steady,
			`f.yaml:6: fleet.instances: 65 is more than 64`},
		{"both a spread and offsets", "fleet:\n  instances: 2\n  clock_skew: 1s\n  offsets: [0, 1s]\n" + steady,
			`f.yaml:8: fleet.offsets: give either clock_skew`},
		{"offsets for other instances", "fleet:\n  instances: 3\n  offsets: [0, 1s]\n" + steady,
			`f.yaml:7: fleet.offsets: lists 2 offsets for 3 instances`},
		{"an offset that is not a duration", "fleet:\n  offsets: [0, soon]\n" + steady,
			`f.yaml:6: fleet.offsets[1]: "soon" is not a duration like 250ms, -1.5s or 0`},
		{"a clock an hour off", "fleet:\n  offsets: [0, -1h]\n" + steady,
			`f.yaml:6: fleet.offsets[1]: -1h is further than 10m0s from the true time`},
		{"a skew of an hour", "fleet:\n  instances: 2\n  clock_skew: 1h\n" + steady,
			`f.yaml:7: fleet.clock_skew: 1h0m0s is more than 10m0s`},
		{"a drift without its unit of time", "fleet:\n  instances: 2\n  drift: 5ms\n" + steady,
			`f.yaml:7: fleet.drift: "5ms" is not a drift like 5ms/min, 100us/s or 1s/h`},
		{"a drift of two seconds a minute", "fleet:\n  instances: 2\n  drift: 2s/min\n" + steady,
			`f.yaml:7: fleet.drift: 2s/min is more than 1s a minute`},
		{"more instances than workers", "fleet:\n  instances: 9\n" + steady,
			`f.yaml:6: fleet.instances: 9 instances each need a worker of their own, and scenario s runs 8 (its concurrency)`},
		{"sticky in a closed loop", "fleet:\n  instances: 2\n  sticky: true\nscenarios:\n  - name: s\n    shape: steady\n    rate: max\n    duration: 1s\n",
			`f.yaml:7: fleet.sticky: true needs an open loop, and scenario s runs a closed loop (rate: max)`},
		{"a clock_skew without a fleet", "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n    clock_skew: [0, 1s]\n",
			`f.yaml:10: scenarios[0].clock_skew: needs the profile's fleet section`},
		{"a clock_skew with listed offsets", "fleet:\n  offsets: [0, 1s]\n" + steady + "    clock_skew: 1s\n",
			`f.yaml:12: scenarios[0].clock_skew: the fleet lists each instance's offset`},
		{"a negative step", "fleet:\n  instances: 2\n" + steady + "    clock_skew: [0, -1s]\n",
			`f.yaml:12: scenarios[0].clock_skew[1]: -1s is negative`},
		{"a step listed twice", "fleet:\n  instances: 2\n" + steady + "    clock_skew: [10ms, 10ms]\n",
			`f.yaml:12: scenarios[0].clock_skew[1]: 10ms is listed twice`},
		{"an empty sweep", "fleet:\n  instances: 2\n" + steady + "    clock_skew: []\n",
			`f.yaml:12: scenarios[0].clock_skew: the list is empty`},
	} {
		_, err := Parse("f.yaml", []byte(fleetHead+tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.why, err, tc.want)
		}
	}
}

// TestFleetWarnings: a fleet whose clocks reach no limiter (the built-ins
// read Redis TIME), or a declared limiter given no time, is warned about
// with the file and line; a client-time built-in, or a declared limiter
// given ${now_ms}, is what a fleet is for.
func TestFleetWarnings(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.lua"), []byte("local n = redis.call('INCR', KEYS[1])\nreturn {1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const mine = `  - name: mine
    script: mine.lua
    keys: ["m:{${identity}}"]
    args: [%s]
    reply: {allowed: 1}
    semantics: fixed_window
`
	const tail = "fleet:\n  instances: 2\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n"
	for _, tc := range []struct {
		why, algorithms string
		want            []string
	}{
		{"built-ins that read TIME", "algorithms: [fixed_window, sliding_log]\n",
			[]string{"f.yaml:6: fleet: no limiter of the profile takes its time from its caller"}},
		{"a client-time reference beside them", "algorithms: [fixed_window, fixed_window_client_time]\n", nil},
		{"a declared limiter given no time", "algorithms:\n" + strings.Replace(mine, "%s", `"${limit}"`, 1),
			[]string{"algorithms: mine takes no time argument (no argument carries the time; the script does not call TIME",
				"fleet: no limiter of the profile takes its time from its caller"}},
		{"a declared limiter given the time", "algorithms:\n" + strings.Replace(mine, "%s", `"${now_ms}"`, 1), nil},
	} {
		path := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(path, []byte(fleetHead+tc.algorithms+tail), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		got := p.Warnings()
		if len(got) != len(tc.want) {
			t.Fatalf("%s: warnings %q, want %d", tc.why, got, len(tc.want))
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: warning %q, want %q", tc.why, got[i], w)
			}
		}
	}
}
