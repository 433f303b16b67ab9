package profile

import (
	"testing"
)

// TestParsePipeline: the profile's pipeline applies to every scenario that
// gives none, a scenario's own wins, and without either each request goes
// alone.
func TestParsePipeline(t *testing.T) {
	const head = "policy: {limit: 100, window: 1s}\n"
	const steady = "  - {name: s, shape: steady, rate: 2x, duration: 1s}\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want map[string]string // scenario -> pipeline in effect
	}{
		{"not given: one request at a time",
			head + "scenarios:\n" + steady,
			map[string]string{"s": "1"}},
		{"the profile's depth for every scenario",
			head + "pipeline: 16\nscenarios:\n" + steady + "  - {name: c, shape: steady, rate: max, duration: 1s}\n",
			map[string]string{"s": "16", "c": "16"}},
		{"auto at the top, a depth for the closed loop that cannot batch what is queued",
			head + "pipeline: auto\nscenarios:\n" + steady + "  - {name: c, shape: steady, rate: max, duration: 1s, pipeline: 8}\n",
			map[string]string{"s": "auto", "c": "8"}},
		{"a scenario turns it off with 1",
			head + "pipeline: 32\nscenarios:\n  - {name: e, shape: boundary, identities: 2, pipeline: 1}\n",
			map[string]string{"e": "1"}},
		{"every shape takes it, sizes included",
			head + "scenarios:\n  - {name: r, shape: ramp, stages: [{rate: 2x, duration: 1s}], pipeline: 4}\n" +
				"  - {name: k, shape: cardinality, identities: [1000, 2000], distribution: sequential, rate: max, pipeline: 64}\n",
			map[string]string{"r": "4", "k-1k": "64", "k-2k": "64"}},
	} {
		p, err := Parse("x.yaml", []byte(tc.yaml))
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		got := map[string]string{}
		for _, s := range p.Scenarios {
			got[s.Name] = p.RunPipeline(s).String()
		}
		for name, want := range tc.want {
			if got[name] != want {
				t.Errorf("%s: scenario %s pipelines %s, want %s", tc.why, name, got[name], want)
			}
		}
	}
}

// TestParsePipelineErrors: a depth that is not one, out of range, or auto
// where nothing is ever queued, names the file, the line and the field.
func TestParsePipelineErrors(t *testing.T) {
	const head = "policy: {limit: 100, window: 1s}\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a word that is not auto",
			head + "pipeline: lots\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n",
			`x.yaml:2: pipeline: "lots" is not a depth like 16, or auto`},
		{"zero is no depth",
			head + "scenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 1s\n    pipeline: 0\n",
			`x.yaml:7: scenarios[0].pipeline: 0 is not a depth from 1 (no pipelining) to 1024`},
		{"past the most one connection may have in flight",
			head + "pipeline: 5000\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n",
			`x.yaml:2: pipeline: 5000 is not a depth from 1 (no pipelining) to 1024`},
		{"auto in a closed loop, given by the scenario",
			head + "scenarios:\n  - name: c\n    shape: steady\n    rate: max\n    duration: 1s\n    pipeline: auto\n",
			`x.yaml:7: scenarios[0].pipeline: pipeline: auto batches the requests an open loop has queued, and a closed loop (rate: max) queues none`},
		{"auto in a closed loop, from the top level",
			head + "pipeline: auto\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n  - {name: c, shape: steady, rate: max, duration: 1s}\n",
			`x.yaml:5: scenarios[1]: pipeline: auto batches the requests an open loop has queued`},
		{"a list is not a depth",
			head + "pipeline: [16]\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n",
			`x.yaml:2: pipeline: want a single value, got a list`},
	} {
		wantProfileError(t, tc.why, tc.yaml, tc.want)
	}
}
