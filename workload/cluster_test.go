package workload_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// TestScriptReloadedWhereLost: a master that lost the limiter's script
// (SCRIPT FLUSH, as after a restart) gets it back when it answers
// NOSCRIPT, alone or in a pipeline, and the run counts the reload and
// loses no decision.
func TestScriptReloadedWhereLost(t *testing.T) {
	env := redistest.ClusterEnv(t, 3)
	ctx := context.Background()
	masters, err := redisenv.Masters(ctx, env.Client)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why      string
		pipeline string
	}{
		// A call meets NOSCRIPT alone and reloads on its key's master.
		{"one call at a time", "1"},
		// go-redis splits a batch by slot over the masters; the calls
		// that met NOSCRIPT on one of them go out again once reloaded.
		{"pipelined", "4"},
	} {
		p, err := profile.Parse("c.yaml", []byte(`
policy: {limit: 10, window: 1s}
algorithms: [sliding_log]
concurrency: 4
pipeline: `+tc.pipeline+`
scenarios:
  - shape: steady
    rate: 1x
    identities: 30
    duration: 600ms
`))
		if err != nil {
			t.Fatal(err)
		}
		lost := masters[1].Client.(*redis.Client)
		// The limiter's script is loaded on every master before timing;
		// the observer flushes one master's script cache as the traffic
		// starts.
		obs := &flushOnStart{rdb: lost}
		res, err := (&workload.Runner{Plan: p.Plan(1), Env: env, Observer: obs}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		run := res.Runs[0]
		if !obs.flushed || run.Requests.Errors != 0 || run.Requests.NoScriptReloads < 1 || run.Audit.ModelMismatches != 0 {
			t.Errorf("%s: flushed %v: errors %v, reloads %d, audit %+v", tc.why, obs.flushed, run.Errors, run.Requests.NoScriptReloads, *run.Audit)
		}
		if reloads := run.Requests.NoScriptReloads; reloads > int64(p.Concurrency) {
			t.Errorf("%s: %d reloads for one master that lost the script, with %d connections at most", tc.why, reloads, p.Concurrency)
		}
		if tc.pipeline != "1" && (run.Pipeline == nil || run.Pipeline.Resent < 1) {
			t.Errorf("%s: pipeline %+v: no call sent again after NOSCRIPT", tc.why, run.Pipeline)
		}
	}
}

// flushOnStart flushes one server's script cache when a run starts.
type flushOnStart struct {
	rdb     *redis.Client
	flushed bool
}

func (f *flushOnStart) RunStarted(*workload.Progress) {
	f.flushed = f.rdb.ScriptFlush(context.Background()).Err() == nil
}

func (f *flushOnStart) RunFinished(*workload.Progress, *result.Run) {}
