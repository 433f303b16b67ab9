package capacity_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/capacity"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// TestCapacityRun runs a capacity search on a real redis-server with an
// SLO no step can break (seconds of p99 and lag, every call may fail), so
// its outcome is certain: every step of a range holds, and the search ends
// at its top. It checks what a capacity run reports: each step audited and
// kept, the run's audit the steps' and the pipelined run's together, the
// ceiling from the server's CPU per decision, the pipelined run beside it,
// and no key left behind.
func TestCapacityRun(t *testing.T) {
	rdb := redistest.Client(t)
	p := mustProfile(t, `
policy: {limit: 5, window: 1m}
algorithms: [fixed_window, sliding_log]
concurrency: 8
scenarios:
  - name: capacity
    shape: capacity
    slo: {p99: 10s, errors: 100%, lag: 10s}
    range: [400/s, 1600/s]
    step: 250ms
    precision: 10%
    pipelined: 200ms
    identities: 20
`)
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private},
		Shapes: capacity.Shapes()}).Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		r := &runs[i]
		checkCounts(t, r)
		c := r.Capacity
		if c == nil {
			t.Fatalf("%s: no capacity section", r.Key())
		}
		if c.End != result.CapacityTopOfRange || c.PerS != 1600 || len(c.Steps) != 2 {
			t.Errorf("%s: ended %q at %v/s after %d steps, want top_of_range at 1600/s after 2", r.Key(), c.End, c.PerS, len(c.Steps))
		}
		// The run is the step at the capacity: its rate and its requests.
		if r.Rate.TargetPerS != 1600 || r.Requests.Sent != c.Steps[len(c.Steps)-1].Sent || r.Shape != "capacity" {
			t.Errorf("%s: run at %v/s with %d sent, want the last step's", r.Key(), r.Rate.TargetPerS, r.Requests.Sent)
		}
		var stepAllowed int64
		for _, s := range c.Steps {
			if s.Outcome != result.StepHeld || s.Audit == nil || s.Sent == 0 || s.P99Us <= 0 || s.LagP99Us <= 0 || s.Concurrency != 8 || s.Pipeline != 1 ||
				s.Generator == nil || s.Generator.UsecPerDecision <= 0 {
				t.Errorf("%s: step %+v", r.Key(), s)
				continue
			}
			// 20 identities offered 20 or 80 a second for 250ms against a
			// limit of 5 a minute: each admits 5 at most.
			if s.Audit.Allowed > 20*5 || s.Audit.MaxWindowAdmitted > 5 || s.Audit.Wrong() {
				t.Errorf("%s: step at %v/s audited %+v", r.Key(), s.TargetPerS, s.Audit)
			}
			stepAllowed += s.Audit.Allowed
		}
		a, pl := r.Audit, c.Pipelined
		if pl == nil || pl.PerS <= 0 || pl.Depth != 16 || pl.Connections != 8 {
			t.Fatalf("%s: pipelined run %+v", r.Key(), pl)
		}
		// Each step and the pipelined run on keys of their own: 20
		// identities admitted 5 each, three times over.
		if a == nil || a.Allowed != stepAllowed+100 || a.Allowed != 300 || a.Overshoot != 0 || a.ModelMismatches != 0 || a.Coverage != 1 {
			t.Errorf("%s: audit %+v, want the steps' %d admissions and the pipelined run's 100", r.Key(), a, stepAllowed)
		}
		if c.ServerUsecPerDecision <= 0 || c.GeneratorUsecPerDecision <= 0 || c.CeilingPerS != 1e6/c.ServerUsecPerDecision || c.ShareOfCeiling != 1600/c.CeilingPerS || c.ShareOfPipelined != 1600/pl.PerS {
			t.Errorf("%s: ceiling %+v", r.Key(), c)
		}
		if c.BytesPerIdentity <= 0 || r.Memory == nil || r.Memory.Identities != 20 {
			t.Errorf("%s: bytes per identity %v, memory %+v", r.Key(), c.BytesPerIdentity, r.Memory)
		}
	}
	if n := countKeys(t, rdb, "rlbench:*"); n != 0 {
		t.Errorf("%d keys left behind", n)
	}
}

// TestCapacityNeedsItsShape: a runner not given the capacity shape says
// so at the capacity run, rather than running it as something else.
func TestCapacityNeedsItsShape(t *testing.T) {
	p := mustProfile(t, `
policy: {limit: 5, window: 1m}
algorithms: [fixed_window]
scenarios:
  - {name: capacity, shape: capacity, slo: {p99: 10s, errors: 100%, lag: 10s}, range: [400/s, 800/s], step: 250ms, identities: 20}
`)
	_, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: redistest.Client(t)}}).Run(context.Background())
	if err == nil {
		t.Fatal("a capacity run without its shape ran")
	}
}

func mustProfile(t *testing.T, yaml string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runsOf(res *result.Result, err error) ([]result.Run, error) {
	if res == nil {
		return nil, err
	}
	return res.Runs, err
}

// checkCounts checks a run's requests add up, and its histogram holds
// each.
func checkCounts(t *testing.T, r *result.Run) {
	t.Helper()
	c := r.Requests
	if c.Sent != c.Allowed+c.Denied+c.Errors {
		t.Errorf("%s: sent %d != allowed %d + denied %d + errors %d", r.Key(), c.Sent, c.Allowed, c.Denied, c.Errors)
	}
	if got := r.LatencyUs.Count; got != c.Sent {
		t.Errorf("%s: histogram holds %d of %d requests", r.Key(), got, c.Sent)
	}
}

func countKeys(t *testing.T, rdb redis.Cmdable, pattern string) int {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}
