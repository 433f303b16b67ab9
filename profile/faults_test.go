package profile

import (
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

const faultsProfile = `name: outage
policy: {limit: 100, window: 1s}
algorithms: [fixed_window, token_bucket]
client:
  timeout: 50ms
  retries: 1
  backoff: 10ms
  on_error: [fail_open, fail_closed]
scenarios:
  - name: outage
    shape: steady
    rate: 2x
    identities: 100
    duration: 20s
    faults:
      - {at: 5s, for: 2s, kind: pause}
      - {at: 10s, kind: restart}
      - {at: 14s, for: 1s, kind: latency, add: 50ms, jitter: 5ms}
      - {at: 16s, for: 1s, kind: bandwidth, rate: 10KB/s}
      - {at: 18s, kind: failover, for: 100ms}
`

func TestParseFaultsAndClient(t *testing.T) {
	p, err := Parse("faults.yaml", []byte(faultsProfile))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Client
	if c == nil || c.Timeout != 50*time.Millisecond || c.Retries != 1 || c.Backoff != 10*time.Millisecond ||
		len(c.OnError) != 2 || c.OnError[0] != plan.FailOpen || c.OnError[1] != plan.FailClosed {
		t.Fatalf("client %+v", c)
	}
	// One scenario per policy, each named after it, the faults on both.
	if len(p.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want one per policy", len(p.Scenarios))
	}
	for i, want := range []struct {
		name   string
		policy plan.ErrorPolicy
	}{{"outage-fail_open", plan.FailOpen}, {"outage-fail_closed", plan.FailClosed}} {
		s := p.Scenarios[i]
		if s.Name != want.name || s.OnError != want.policy || s.PolicyGroup != "outage" || len(s.Faults) != 5 {
			t.Errorf("scenario %d: %s %s group %q, %d faults", i, s.Name, s.OnError, s.PolicyGroup, len(s.Faults))
		}
	}
	f := p.Scenarios[0].Faults
	if f[0].Kind != plan.FaultPause || f[0].At != 5*time.Second || f[0].End() != 7*time.Second || f[0].Line != 16 {
		t.Errorf("pause %+v", f[0])
	}
	if f[1].Kind != plan.FaultRestart || f[1].For != 0 {
		t.Errorf("restart %+v", f[1])
	}
	if f[2].Add != 50*time.Millisecond || f[2].Jitter != 5*time.Millisecond || f[3].RateKBps != 10 {
		t.Errorf("latency %+v, bandwidth %+v", f[2], f[3])
	}
	if !p.Scenarios[0].Faults.NeedsProxy() {
		t.Error("network faults and a failover go through the proxy")
	}
	if got := len(p.Plan(1).Runs); got != 4 {
		t.Errorf("plan has %d runs, want 2 policies x 2 algorithms", got)
	}
	// A single policy keeps the scenario's name.
	one, err := Parse("one.yaml", []byte(strings.Replace(faultsProfile, "[fail_open, fail_closed]", "local", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Scenarios) != 1 || one.Scenarios[0].Name != "outage" || one.Scenarios[0].OnError != plan.FailLocal || one.Scenarios[0].PolicyGroup != "" {
		t.Errorf("one policy: %+v", one.Scenarios)
	}
	// A threshold selects the runs of one policy by their name.
	th, err := Parse("th.yaml", []byte(faultsProfile+"thresholds: [\"*/outage-fail_closed faults.policy_excess == 0\"]\n"))
	if err != nil || len(th.Thresholds) != 1 {
		t.Errorf("threshold on a policy's runs: %v", err)
	}
}

func TestParseFaultErrors(t *testing.T) {
	const head = "policy: {limit: 10, window: 1s}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 10s\n    faults:\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a kind nobody knows, with a hint",
			head + "      - {at: 1s, for: 1s, kind: pasue}\n",
			`x.yaml:7: scenarios[0].faults[0].kind: unknown fault "pasue" (did you mean "pause"?`},
		{"no kind",
			head + "      - {at: 1s, for: 1s}\n",
			`x.yaml:7: scenarios[0].faults[0].kind: missing (known: pause, stall`},
		{"no start",
			head + "      - {for: 1s, kind: pause}\n",
			`x.yaml:7: scenarios[0].faults[0].at: missing`},
		{"a pause needs a duration",
			head + "      - {at: 1s, kind: pause}\n",
			`x.yaml:7: scenarios[0].faults[0].for: missing: how long the pause lasts`},
		{"a restart has none",
			head + "      - {at: 1s, for: 1s, kind: restart}\n",
			`x.yaml:7: scenarios[0].faults[0].for: a restart happens at once`},
		{"latency needs add",
			head + "      - {at: 1s, for: 1s, kind: latency}\n",
			`x.yaml:7: scenarios[0].faults[0].add: missing`},
		{"jitter beyond the delay",
			head + "      - {at: 1s, for: 1s, kind: latency, add: 5ms, jitter: 10ms}\n",
			`scenarios[0].faults[0].jitter: 10ms is more than add (5ms)`},
		{"add on a pause",
			head + "      - {at: 1s, for: 1s, kind: pause, add: 5ms}\n",
			`scenarios[0].faults[0].add: has no meaning for a pause fault`},
		{"a bandwidth without its unit",
			head + "      - {at: 1s, for: 1s, kind: bandwidth, rate: 10}\n",
			`scenarios[0].faults[0].rate: "10" is not a bandwidth like 10KB/s`},
		{"a fault that outlasts the scenario",
			head + "      - {at: 9s, for: 2s, kind: pause}\n",
			`x.yaml:7: scenarios[0].faults[0].at: pause at 9s for 2s does not fit in the scenario's 10s`},
		{"faults that overlap",
			head + "      - {at: 1s, for: 2s, kind: pause}\n      - {at: 2s, for: 1s, kind: latency, add: 5ms}\n",
			`x.yaml:8: scenarios[0].faults[1].at: 2s starts before scenarios[0].faults[0] (pause at 1s for 2s) is over`},
		{"a field faults do not have",
			head + "      - {at: 1s, for: 1s, kind: pause, mode: write}\n",
			`scenarios[0].faults[0].mode: unknown field`},
		{"faults on the boundary shape",
			"policy: {limit: 10, window: 1s}\nscenarios:\n  - shape: boundary\n    faults: [{at: 1s, kind: restart}]\n",
			`x.yaml:4: scenarios[0].faults: the boundary shape schedules its requests around each identity's window`},
		{"process control on a server rlbench does not start",
			"redis: {addr: 10.0.0.5:6379}\n" + head + "      - {at: 1s, kind: restart}\n",
			`x.yaml:8: scenarios[0].faults[0].kind: restart runs only on a private redis-server, and the profile's redis section names a server rlbench did not start`},
		{"flushing the script cache of a shared server",
			"redis: {addr: 10.0.0.5:6379}\n" + head + "      - {at: 1s, kind: flush_scripts}\n",
			`scenarios[0].faults[0].kind: flush_scripts runs only on a private redis-server`},
		{"faults on a private cluster",
			"redis: {cluster: {masters: 3}}\n" + head + "      - {at: 1s, for: 1s, kind: pause}\n",
			`x.yaml:8: scenarios[0].faults[0].kind: faults run on a single redis-server, and the profile's redis section names a Redis Cluster`},
		{"the caller's policy on a cluster",
			"redis: {cluster: {masters: 3}}\nclient: {on_error: fail_open}\npolicy: {limit: 10, window: 1s}\nscenarios:\n  - {shape: steady, rate: 1x, duration: 2s}\n",
			`x.yaml:2: client: the caller's policy runs on a single redis-server, and the profile's redis section names a Redis Cluster`},
		{"the client without a policy",
			"client: {timeout: 50ms}\n" + head + "      - {at: 1s, for: 1s, kind: pause}\n",
			`x.yaml:1: client.on_error: missing`},
		{"an unknown policy",
			"client: {on_error: [fail_open, fail_silently]}\n" + head + "      - {at: 1s, for: 1s, kind: pause}\n",
			`x.yaml:1: client.on_error[1]: unknown error policy "fail_silently" (known: fail_open, fail_closed, local)`},
		{"a policy twice",
			"client: {on_error: [local, local]}\n" + head + "      - {at: 1s, for: 1s, kind: pause}\n",
			`client.on_error[1]: "local" is listed twice`},
		{"a retry storm",
			"client: {on_error: fail_open, retries: 50}\n" + head + "      - {at: 1s, for: 1s, kind: pause}\n",
			`client.retries: 50 is more than 10`},
		{"a split name that takes another scenario's",
			"client: {on_error: [fail_open, fail_closed]}\npolicy: {limit: 10, window: 1s}\nscenarios:\n  - {name: a, shape: steady, rate: 1x, duration: 2s}\n  - {name: a-fail_open, shape: steady, rate: 1x, duration: 2s}\n",
			`x.yaml:4: name: "a-fail_open", the name of its run under fail_open, is already the name of another scenario`},
	} {
		_, err := Parse("x.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
		}
	}
}

// TestFaultsOnExternal: --redis turns a private profile into one against
// a server rlbench does not start; the faults that need a private one are
// then refused with their file and line, and the message says what works.
func TestFaultsOnExternal(t *testing.T) {
	if _, err := Parse("faults.yaml", []byte(faultsProfile)); err != nil {
		t.Fatal(err)
	}
	_, err := ParseWith("faults.yaml", []byte(faultsProfile), Options{Target: TargetServer})
	if err == nil {
		t.Fatal("a restart and a failover on --redis were accepted")
	}
	for _, want := range []string{
		"faults.yaml:17: scenarios[0].faults[1].kind: restart runs only on a private redis-server, and --redis names a server rlbench did not start",
		"faults.yaml:20: scenarios[0].faults[4].kind: failover",
		"pause (needs CLIENT PAUSE, an @admin command)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 2 {
		t.Errorf("%d errors, want one per fault (not per policy's copy):\n%v", n, err)
	}
	if _, err := ParseWith("faults.yaml", []byte(faultsProfile), Options{Target: TargetCluster}); err == nil || !strings.Contains(err.Error(), "faults.yaml:16: scenarios[0].faults[0].kind: faults run on a single redis-server, and --redis-cluster names a Redis Cluster") {
		t.Errorf("faults on --redis-cluster: %v", err)
	}
	okProfile := []byte("policy: {limit: 10, window: 1s}\nscenarios:\n  - {shape: steady, rate: 1x, duration: 5s, faults: [{at: 1s, for: 1s, kind: pause}, {at: 3s, for: 1s, kind: reset}]}\n")
	if _, err := ParseWith("ok.yaml", okProfile, Options{Target: TargetServer}); err != nil {
		t.Errorf("a pause and a reset work on any server: %v", err)
	}
	// One process injects a scenario's faults for the whole load: a
	// segment of it is refused at the first fault's line.
	_, err = ParseWith("ok.yaml", okProfile, Options{Segmented: true})
	if err == nil || !strings.Contains(err.Error(), "ok.yaml:3: scenarios[0].faults[0]: --segment: scenario steady schedules faults") {
		t.Errorf("faults in a segment: %v", err)
	}
}

// TestPipelineRefusedWithFaultsOrClient: a pipeline sends a connection's
// queued requests together, and the caller's policy and the faults' counts
// need each call on its own: the profile says where, at the pipeline field
// that set it.
func TestPipelineRefusedWithFaultsOrClient(t *testing.T) {
	for _, tc := range []struct {
		why, yaml, want string
	}{
		{"the scenario's own pipeline, with faults",
			"policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window]\nscenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 2s\n    pipeline: 16\n    faults: [{at: 1s, for: 100ms, kind: pause}]\n",
			"p.yaml:8: scenarios[0].pipeline: pipeline: 16 sends a connection's queued requests together, and its faults (line 9) needs each limiter call on its own"},
		{"the profile's pipeline, under a client section (a policy per scenario split in two, reported once)",
			"policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window]\npipeline: auto\nclient: {timeout: 50ms, on_error: [fail_open, fail_closed]}\nscenarios:\n  - name: s\n    shape: steady\n    rate: 2x\n    duration: 2s\n",
			"p.yaml:3: pipeline: pipeline: auto sends a connection's queued requests together, and the client section (line 4) needs each limiter call on its own"},
	} {
		_, err := Parse("p.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.why, err, tc.want)
			continue
		}
		if n := strings.Count(err.Error(), "queued requests together"); n != 1 {
			t.Errorf("%s: reported %d times: %v", tc.why, n, err)
		}
	}
	// pipeline: 1 sends each call alone: allowed with both.
	ok := "policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window]\npipeline: 1\nclient: {timeout: 50ms, on_error: fail_open}\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 2s, faults: [{at: 1s, for: 100ms, kind: pause}]}\n"
	if _, err := Parse("p.yaml", []byte(ok)); err != nil {
		t.Errorf("pipeline: 1 with faults and a client: %v", err)
	}
}
