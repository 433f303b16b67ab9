//go:build integration

package workload_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// masterKeys lists the keys of every master of env's cluster, by master.
func masterKeys(t *testing.T, env *redisenv.Env) map[string][]string {
	t.Helper()
	ctx := context.Background()
	masters, err := redisenv.Masters(ctx, env.Client)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range masters {
		keys, err := m.Client.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		out[m.Addr] = keys
	}
	return out
}

// TestIntegrationRunOnACluster runs built-in limiters on a private cluster of three
// masters: identities tagged with their own hash tag spread over the
// masters, each master's calls add up to the run's decisions, its key
// count grows by the keys of its identities (a window longer than the
// test: none expires), the fixed
// tag puts every decision on one master (a hot node), a pipelined run's
// batches (which go-redis splits by slot over the masters) keep the
// identity's hash tag, and every key of every master is cleaned up.
func TestIntegrationRunOnACluster(t *testing.T) {
	env := redistest.ClusterEnv(t, 3)
	p, err := profile.Parse("c.yaml", []byte(`
policy: {limit: 10, window: 20s}
algorithms: [fixed_window, sliding_log]
concurrency: 8
scenarios:
  - name: spread
    shape: steady
    rate: 60x
    identities: 60
    duration: 500ms
  - name: bad-tag
    shape: steady
    rate: 60x
    identities: 60
    duration: 500ms
    hash_tag: fixed
  - name: piped
    shape: steady
    rate: 60x
    identities: 60
    duration: 500ms
    pipeline: 8
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := &workload.Runner{Plan: p.Plan(1), Env: env, RunID: "clustertest", KeepKeys: true}
	res, err := runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Redis.Cluster; c == nil || c.Masters != 3 || len(c.Nodes) != 3 {
		t.Fatalf("redis.cluster %+v", c)
	}
	for i := range res.Runs {
		run := &res.Runs[i]
		c, a := run.Cluster, run.Audit
		if c == nil || len(c.Nodes) != 3 || run.Server == nil || run.Memory == nil || a == nil {
			t.Fatalf("%s: cluster %+v, server %+v, memory %+v, audit %+v", run.Key(), c, run.Server, run.Memory, a)
		}
		if run.Requests.Errors != 0 || a.ModelMismatches != 0 || a.Overshoot != 0 {
			t.Errorf("%s: errors %d, audit %+v", run.Key(), run.Requests.Errors, *a)
		}
		var calls, keys int64
		for _, n := range c.Nodes {
			calls += n.Calls
			keys += n.KeysDelta
		}
		if calls != run.Requests.Sent || run.Server.Calls != calls {
			t.Errorf("%s: the masters' calls add up to %d, the server's to %d, for %d requests", run.Key(), calls, run.Server.Calls, run.Requests.Sent)
		}
		if keys != 60 || run.Memory.Keys != 60 || run.Memory.Identities != 60 {
			t.Errorf("%s: %d keys added on the masters, census %d keys of %d identities; want 60", run.Key(), keys, run.Memory.Keys, run.Memory.Identities)
		}
		wantTag, hot := "identity", false
		if run.Scenario == "bad-tag" {
			wantTag, hot = "fixed", true
		}
		if p := run.Pipeline; run.Scenario == "piped" && (p == nil || p.Depth != 8) {
			t.Errorf("%s: pipeline %+v: the run was not pipelined", run.Key(), p)
		}
		if c.HashTag != wantTag || run.Params.HashTag != wantTag || c.Hot() != hot || (hot && c.BusiestNodeShare != 1) || (!hot && c.BusiestNodeShare > 0.5) {
			t.Errorf("%s: tag %q (params %q), busiest %s at %.2f, hot %v; want %s, hot %v", run.Key(), c.HashTag, run.Params.HashTag, c.BusiestNode, c.BusiestNodeShare, c.Hot(), wantTag, hot)
		}
	}
	// The keys as the issue names them, each on the master of its slot.
	spread := regexp.MustCompile(`^rlbench:clustertest:(fixed_window|sliding_log):(spread|piped):\{[0-9]+\}$`)
	bad := regexp.MustCompile(`^rlbench:clustertest:(fixed_window|sliding_log):bad-tag:\{all\}:[0-9]+$`)
	holding := map[string]int{}
	for addr, keys := range masterKeys(t, env) {
		for _, k := range keys {
			switch {
			case spread.MatchString(k):
			case bad.MatchString(k):
				holding[addr]++
			default:
				t.Errorf("%s holds %q", addr, k)
			}
		}
	}
	if len(holding) != 1 {
		t.Errorf("the fixed tag's keys lie on %d masters: %v", len(holding), holding)
	}
	n, err := redisenv.DeletePrefix(context.Background(), env.Client, runner.RunPrefix())
	if err != nil || n != 6*60 {
		t.Errorf("clean-up removed %d keys, want 360: %v", n, err)
	}
	for addr, keys := range masterKeys(t, env) {
		if len(keys) != 0 {
			t.Errorf("%s still holds %v", addr, keys)
		}
	}
}

// TestIntegrationOptInLimitersOnACluster runs every comparable limiter a profile
// must ask for by name on a private cluster, pipelined where its decision
// is one command: each key carries the identity's hash tag, each run's
// identities spread over the masters, whose calls add up to its
// decisions, and the audit finds it exact.
func TestIntegrationOptInLimitersOnACluster(t *testing.T) {
	env := redistest.ClusterEnv(t, 3)
	var optIn []string
	for _, name := range algorithms.Comparable() {
		if !slices.Contains(algorithms.Default(), name) {
			optIn = append(optIn, name)
		}
	}
	if len(optIn) == 0 {
		t.Fatal("no opt-in limiters")
	}
	p, err := profile.Parse("c.yaml", []byte(`
policy: {limit: 10, window: 10s, bucket: 1s}
algorithms: [`+strings.Join(optIn, ", ")+`]
concurrency: 4
pipeline: 8
scenarios:
  - name: spread
    shape: steady
    rate: 20x
    identities: 30
    duration: 500ms
`))
	if err != nil {
		t.Fatal(err)
	}
	runner := &workload.Runner{Plan: p.Plan(1), Env: env, RunID: "optin", KeepKeys: true}
	res, err := runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != len(optIn) {
		t.Fatalf("%d runs of %d limiters", len(res.Runs), len(optIn))
	}
	for i := range res.Runs {
		run := &res.Runs[i]
		c, a := run.Cluster, run.Audit
		if c == nil || len(c.Nodes) != 3 || a == nil {
			t.Fatalf("%s: cluster %+v, audit %+v", run.Key(), c, a)
		}
		if run.Requests.Errors != 0 || a.ModelMismatches != 0 || a.Overshoot != 0 {
			t.Errorf("%s: errors %v, audit %+v", run.Key(), run.Errors, *a)
		}
		var calls int64
		for _, n := range c.Nodes {
			calls += n.Calls
		}
		if calls != run.Requests.Sent || c.HashTag != "identity" || c.BusiestNodeShare > 0.5 {
			t.Errorf("%s: the masters made %d of %d decisions, tag %q, busiest at %.2f", run.Key(), calls, run.Requests.Sent, c.HashTag, c.BusiestNodeShare)
		}
		if pipelined := algorithms.CanPipeline(run.Algorithm); run.Pipeline == nil || (run.Pipeline.Depth == 8) != pipelined {
			t.Errorf("%s: pipeline %+v, want it pipelined: %v", run.Key(), run.Pipeline, pipelined)
		}
	}
	tagged := regexp.MustCompile(`^rlbench:optin:(` + strings.Join(optIn, "|") + `):spread:\{[0-9]+\}$`)
	perRun := map[string]int{}
	for addr, keys := range masterKeys(t, env) {
		for _, k := range keys {
			m := tagged.FindStringSubmatch(k)
			if m == nil {
				t.Errorf("%s holds %q", addr, k)
				continue
			}
			perRun[m[1]]++
		}
	}
	for _, name := range optIn {
		if perRun[name] != 30 {
			t.Errorf("%s: %d keys, want one per identity (30)", name, perRun[name])
		}
	}
	if _, err := redisenv.DeletePrefix(context.Background(), env.Client, runner.RunPrefix()); err != nil {
		t.Error(err)
	}
}

// TestIntegrationDeclaredFunctionOnACluster: a user's limiter written as a Redis
// Function is loaded on every master, so every identity's master can call
// it, audited exactly, and deleted from every master after the run.
func TestIntegrationDeclaredFunctionOnACluster(t *testing.T) {
	env := redistest.ClusterEnv(t, 3)
	src, err := os.ReadFile("../profiles/examples/token_bucket_function.lua")
	if err != nil {
		t.Fatal(err)
	}
	p := declaredProfile(t, `
policy: {limit: 10, window: 1s}
algorithms:
  - name: fn_bucket
    function: token_bucket_allow
    library: lib.lua
    keys: ["bucket:{${identity}}"]
    args: ["${limit}", "${window_us}", "${burst}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: token_bucket
concurrency: 8
scenarios:
  - shape: steady
    rate: 2x
    identities: 30
    duration: 400ms
`, map[string]string{"lib.lua": string(src)})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: env}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.Requests.Errors != 0 || run.Audit.Basis != result.AuditByModel || run.Audit.ModelMismatches != 0 {
		t.Errorf("errors %v, audit %+v", run.Errors, *run.Audit)
	}
	if c := run.Cluster; c == nil || c.HashTag != "declared" || c.BusiestNodeShare > 0.6 || run.Server.Command != "fcall" {
		t.Errorf("cluster %+v, server %+v", c, run.Server)
	}
	for _, n := range run.Cluster.Nodes {
		if n.Calls == 0 {
			t.Errorf("master %s made no decision: the function was not called there", n.Addr)
		}
	}
	masters, err := redisenv.Masters(context.Background(), env.Client)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range masters {
		libs, err := m.Client.FunctionList(context.Background(), redis.FunctionListQuery{}).Result()
		if err != nil || len(libs) != 0 {
			t.Errorf("master %s still holds libraries %v (%v)", m.Addr, libs, err)
		}
	}
}
