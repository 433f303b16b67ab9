package workload_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/workload"
)

// mutant is a built-in limiter whose script has one deliberate bug; it is
// audited against the honest limiter's model and bound.
type mutant struct {
	algorithms.Auditable
	rdb    algorithms.Redis
	script *algorithms.Script
	args   []any
}

func (m *mutant) Load(ctx context.Context) error { return m.script.Load(ctx, m.rdb) }
func (m *mutant) NoScriptReloads() int64         { return m.script.Reloads() }
func (m *mutant) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	v, err := m.script.Run(ctx, m.rdb, []string{key}, m.args...)
	if err != nil {
		return algorithms.Decision{}, err
	}
	return algorithms.ParseReply(v)
}

// TestSmokeLandsOnTheEdges runs scenarios of profiles/smoke.yaml against
// limiters with the bugs that live at the edges, one at a time, in real
// time on a real redis-server: each must be caught as mismatches. It is
// what shows the smoke profile's scenarios put decisions on those edges
// (the controlled-clock tests in algorithms pin the edges themselves).
// The bucket edges are certain by the schedule's construction. A sliding
// log's trim bound off by one microsecond is not here: in real time it is
// caught only when a decision lands on the very microsecond one window
// after an admitted stamp, which the saturate scenario makes frequent (a
// few to dozens of times a run) but cannot make certain; the
// controlled-clock test makes it certain.
func TestSmokeLandsOnTheEdges(t *testing.T) {
	rdb := redistest.Client(t)
	data, err := os.ReadFile("../profiles/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	smoke, err := profile.Parse("smoke.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why       string
		scenario  string
		algorithm string
		from, to  string // the mutation: one line of the script
	}{
		{"a token-bucket key that expires after one window, not when the bucket is full again", "silence", algorithms.TokenBucketName,
			"math.ceil((now_us + refill_us) / 1000)", "math.ceil((now_us + window_us) / 1000)"},
		{"a leaky-bucket key that expires after one window, not when the bucket is empty again", "silence", algorithms.LeakyBucketName,
			"math.ceil((now_us + drain_us) / 1000)", "math.ceil((now_us + window_us) / 1000)"},
		{"a token bucket that wants more than one whole token", "burst-one", algorithms.TokenBucketName,
			"if tokens >= window_us then", "if tokens > window_us then"},
		{"a leaky bucket that wants more than one request's room", "burst-one", algorithms.LeakyBucketName,
			"if level + window_us <= size then", "if level + window_us < size then"},
	} {
		p := *smoke
		p.Algorithms = []string{tc.algorithm}
		p.Thresholds = nil
		p.Scenarios = nil
		for _, s := range smoke.Scenarios {
			if s.Name == tc.scenario {
				p.Scenarios = append(p.Scenarios, s)
			}
		}
		if len(p.Scenarios) != 1 {
			t.Fatalf("%s: profiles/smoke.yaml has no scenario %q", tc.why, tc.scenario)
		}
		newMutant := func(name string, rdb algorithms.Redis, pol algorithms.Policy) (algorithms.Limiter, error) {
			honest, err := algorithms.New(name, rdb, pol)
			if err != nil {
				return nil, err
			}
			bound := honest.(interface {
				Script() *algorithms.Script
				ScriptArgs() []any
			})
			src := bound.Script().Source()
			if !strings.Contains(src, tc.from) {
				t.Fatalf("%s: the %s script no longer holds %q", tc.why, name, tc.from)
			}
			return &mutant{Auditable: honest.(algorithms.Auditable), rdb: rdb,
				script: algorithms.NewScript(name+"-mutant", strings.Replace(src, tc.from, tc.to, 1)), args: bound.ScriptArgs()}, nil
		}
		runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}, NewLimiter: newMutant}
		runs, err := runsOf(runner.Run(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		a := runs[0].Audit
		if a == nil || a.ModelMismatches == 0 {
			t.Errorf("%s: smoke's %s scenario did not catch it (audit %+v)", tc.why, tc.scenario, a)
		} else {
			t.Logf("%s: %d of %d decisions in smoke's %s scenario differ from the model", tc.why, a.ModelMismatches, a.Decisions, tc.scenario)
		}
	}
}
