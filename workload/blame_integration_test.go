//go:build integration

package workload_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// Blame the right party: what Redis or another client does in the middle
// of a run — a FLUSHALL, keys deleted, a stall, connections killed, a
// restart, a script flush — with nobody having scheduled it, is never
// blamed on a correct limiter. Each test makes the event happen after a
// number of the run's decisions, whatever the machine's speed, and checks
// that the correct built-ins show no mismatch and no overshoot, that the
// watch named the event on the run's timeline, and that the verdict does
// not fail.

// blameProfile runs three correct built-ins, 10 identities offering twice
// a policy of 20 a second for 3 seconds, each call bounded by timeout.
func blameProfile(timeout string) string {
	return fmt.Sprintf(`name: blame
policy: {limit: 20, window: 1s}
algorithms: [fixed_window, sliding_log, token_bucket]
concurrency: 16
timeout: %s
scenarios:
  - name: s
    shape: steady
    rate: 2x
    identities: 10
    duration: 3s
`, timeout)
}

// runBlamed runs the profile on env, doing what event does after the 60th
// decision of each run, and checks what every such run must hold; want
// names the kind of unscheduled window the watch must have seen.
func runBlamed(t *testing.T, env *redisenv.Env, yaml, want string, event func(admin *redis.Client)) *result.Result {
	t.Helper()
	admin := redis.NewClient(&redis.Options{Addr: env.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	// The event, once in each run: after the run's 60th decision.
	var calls atomic.Int64
	env.Client.(*redis.Client).AddHook(countEvalsha(func() {
		if calls.Add(1) == 60 {
			go event(admin)
		}
	}))
	p := mustProfile(t, yaml)
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: env, Observer: runStarts(func() { calls.Store(0) })}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j := verdict.Assess(res)
	if j.Verdict == result.Fail {
		t.Errorf("verdict fail: %s", strings.Join(j.Reasons(), "; "))
	}
	for i := range res.Runs {
		run := &res.Runs[i]
		if a := run.Audit; a == nil || a.ModelMismatches != 0 || a.Overshoot != 0 || a.UnderAdmitted != 0 {
			t.Errorf("%s: the limiter is blamed: audit %+v", run.Key(), a)
		}
		if want == "" {
			continue
		}
		seen := false
		if run.Faults != nil {
			for _, w := range run.Faults.Windows {
				seen = seen || (w.Unscheduled && w.Kind == want)
			}
		}
		if !seen {
			t.Errorf("%s: the watch did not name a %s (faults %+v)", run.Key(), want, run.Faults)
		}
	}
	return res
}

// runStarts is an observer that calls each as every run starts.
type runStarts func()

func (f runStarts) RunStarted(*workload.Progress)               { f() }
func (f runStarts) RunFinished(*workload.Progress, *result.Run) {}

// countEvalsha is a hook that calls each after every EVALSHA's reply.
func countEvalsha(each func()) redis.Hook { return evalshaHook{each} }

type evalshaHook struct{ each func() }

func (h evalshaHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h evalshaHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if strings.EqualFold(cmd.Name(), "evalsha") {
			h.each()
		}
		return err
	}
}
func (h evalshaHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestIntegrationBlameFlushAll(t *testing.T) {
	runBlamed(t, privateEnv(t), blameProfile("500ms"), "flushall", func(admin *redis.Client) {
		_ = admin.FlushAll(context.Background()).Err()
	})
}

func TestIntegrationBlameKeysDeleted(t *testing.T) {
	runBlamed(t, privateEnv(t), blameProfile("500ms"), "deleted", func(admin *redis.Client) {
		ctx := context.Background()
		keys, _ := admin.Keys(ctx, redisenv.KeyPrefixRoot+"*").Result()
		for _, k := range keys[:len(keys)/2] {
			_ = admin.Del(ctx, k).Err()
		}
	})
}

func TestIntegrationBlameScriptFlush(t *testing.T) {
	runBlamed(t, privateEnv(t), blameProfile("500ms"), "script_flush", func(admin *redis.Client) {
		_ = admin.ScriptFlush(context.Background()).Err()
	})
}

func TestIntegrationBlameClientKillStorm(t *testing.T) {
	runBlamed(t, privateEnv(t), blameProfile("500ms"), "connections_closed", func(admin *redis.Client) {
		for range 5 {
			_ = admin.Do(context.Background(), "CLIENT", "KILL", "TYPE", "normal").Err()
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestIntegrationBlameSigstop(t *testing.T) {
	env := privateEnv(t)
	runBlamed(t, env, blameProfile("300ms"), "stall", func(*redis.Client) {
		_ = env.Server.Freeze()
		time.Sleep(time.Second)
		_ = env.Server.Thaw()
	})
}

func TestIntegrationBlameUnscheduledRestart(t *testing.T) {
	env := privateEnv(t)
	runBlamed(t, env, blameProfile("300ms"), "restart", func(*redis.Client) {
		_ = env.Server.Terminate()
		_ = env.Server.Start(context.Background())
	})
}

func TestIntegrationBlameDebugSleep(t *testing.T) {
	addr := debugServer(t)
	env, err := redisenv.Open(context.Background(), redisenv.Options{Addr: addr, PoolSize: 24, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	runBlamed(t, env, blameProfile("300ms"), "stall", func(admin *redis.Client) {
		_ = admin.Do(context.Background(), "DEBUG", "SLEEP", "1").Err()
	})
}

// TestIntegrationBlameScheduledStallWithoutClient: a stall the profile
// schedules, with no client section: the calls it timed out may have run,
// and the audit keeps both states rather than blame the limiter.
func TestIntegrationBlameScheduledStallWithoutClient(t *testing.T) {
	yaml := blameProfile("300ms") + "    faults:\n      - {at: 1s, for: 1s, kind: stall}\n"
	res := runBlamed(t, privateEnv(t), yaml, "", func(*redis.Client) {})
	for i := range res.Runs {
		if f := res.Runs[i].Faults; f == nil || len(f.Windows) == 0 || f.Windows[0].Kind != "stall" {
			t.Errorf("%s: faults %+v, want the scheduled stall", res.Runs[i].Key(), f)
		}
	}
}

// debugServer starts a redis-server that takes DEBUG, for the test.
func debugServer(t *testing.T) string {
	t.Helper()
	addr := redistest.ClosedAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	srv := exec.Command(redistest.ServerPath(t), "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--enable-debug-command", "yes", "--dir", t.TempDir())
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server with DEBUG did not start on %s", addr)
		}
	}
}
