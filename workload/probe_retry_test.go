package workload_test

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// lastCallHook wraps a limiter and calls hook once, right after the run's
// last planned call returns: between the traffic and the probes.
type lastCallHook struct {
	algorithms.Limiter
	last  int64
	calls atomic.Int64
	hook  func()
}

func (l *lastCallHook) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	d, err := l.Limiter.Allow(ctx, key)
	if l.calls.Add(1) == l.last {
		l.hook()
	}
	return d, err
}

// hookedRun runs fixed_window over 5 identities for 20 requests against
// the Redis at addr, as rlbench connects to it, calling hook after the
// last request; it returns the run and its summary.
func hookedRun(t *testing.T, o redisenv.Options, hook func()) (*result.Run, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o.PoolSize = 4
	env, err := redisenv.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	p := mustProfile(t, `
policy: {limit: 10, window: 1h}
algorithms: [fixed_window]
concurrency: 1
scenarios:
  - {name: s, shape: steady, rate: max, identities: 5, requests: 20}
`)
	runner := &workload.Runner{Plan: p.Plan(1), Env: env, RunID: "retry001",
		NewLimiter: func(name string, rdb algorithms.Redis, pol algorithms.Policy) (algorithms.Limiter, error) {
			lim, err := algorithms.New(name, rdb, pol)
			return &lastCallHook{Limiter: lim, last: 20, hook: hook}, err
		}}
	res, err := runner.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	verdict.Judge(res, nil)
	var summary bytes.Buffer
	if err := report.WriteSummary(&summary, res); err != nil {
		t.Fatal(err)
	}
	return &res.Runs[0], summary.String()
}

// TestProbesRetryOnAFreshConnection: after CLIENT KILL TYPE normal, every
// connection rlbench holds is dead, and the probes find that out on their
// first command. They try again on a connection of their own, so the key
// census (and with it the check for keys without a TTL) still happens.
func TestProbesRetryOnAFreshConnection(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	run, summary := hookedRun(t, redisenv.Options{Addr: addr}, func() {
		if err := admin.Do(context.Background(), "CLIENT", "KILL", "TYPE", "normal").Err(); err != nil {
			t.Error(err)
		}
	})
	m := run.Memory
	if m == nil || m.Keys != 5 || m.Identities != 5 || len(m.Skipped) != 0 {
		t.Fatalf("memory %+v, want the 5 keys counted and no check skipped", m)
	}
	for _, n := range m.Notes {
		if strings.Contains(n, "failed") {
			t.Errorf("a probe gave up: %s", n)
		}
	}
	if strings.Contains(summary, "SKIPPED") {
		t.Errorf("the summary reports a skipped check:\n%s", summary)
	}
	if n := len(admin.Keys(context.Background(), "rlbench:retry001:*").Val()); n != 0 {
		t.Errorf("%d keys of the run left behind: the cleanup gave up too", n)
	}
}

// TestARefusedCensusIsAWarning: when the census cannot be taken because
// the ACL refuses SCAN, the run names the figures it could not measure,
// with the command and what Redis said (UNAVAILABLE, once), in the result
// and in a ! line of the summary.
func TestARefusedCensusIsAWarning(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "bench", "on", ">pw", "~rlbench:*", "+@all", "-scan").Err(); err != nil {
		t.Fatal(err)
	}
	run, summary := hookedRun(t, redisenv.Options{Addr: addr, Username: "bench", Password: "pw"}, func() {})
	m := run.Memory
	if m == nil || !m.CensusFailed || len(m.Skipped) != 0 || run.Measured("memory.keys_without_ttl") {
		t.Fatalf("memory %+v, unavailable %+v: want the census unavailable", m, run.Unavailable)
	}
	for _, u := range run.Unavailable {
		if u.Figure == "memory.keys_without_ttl" && (u.Command != redisenv.CmdScan || !strings.HasPrefix(u.Reason, "NOPERM")) {
			t.Errorf("%+v: want SCAN and what Redis said", u)
		}
	}
	if !strings.Contains(summary, "! SCAN refused (NOPERM") || !strings.Contains(summary, "not measured: memory.identities, memory.keys, memory.keys_without_ttl") || strings.Contains(summary, "SKIPPED") {
		t.Errorf("the summary does not warn of the refused census, once:\n%s", summary)
	}
	// A threshold or a comparison on the figure finds it absent, rather
	// than a zero that would pass.
	if v, ok := result.FieldValue(run, "memory.keys_without_ttl"); ok {
		t.Errorf("memory.keys_without_ttl reads %v, though it was never measured", v)
	}
}

// TestServerFiguresThatWentBackwards: on a server rlbench did not start,
// someone may reset its statistics during a run; the figures then went
// backwards, and the run says so rather than recording negative calls.
func TestServerFiguresThatWentBackwards(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	sha, err := admin.ScriptLoad(ctx, "return 1").Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		admin.EvalSha(ctx, sha, nil)
	}
	run, _ := hookedRun(t, redisenv.Options{Addr: addr}, func() {
		if err := admin.ConfigResetStat(ctx).Err(); err != nil {
			t.Error(err)
		}
	})
	if run.Server != nil {
		t.Errorf("server figures %+v recorded across a reset", run.Server)
	}
	if m := run.Memory; m == nil || !strings.Contains(strings.Join(m.Notes, "\n"), "went backwards") {
		t.Errorf("no note says the statistics went backwards: %+v", m)
	}
}
