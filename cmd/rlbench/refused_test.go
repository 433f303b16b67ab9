package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// A server that refuses every call for a reason of its own lets a run
// measure nothing of the limiter: the invocation ends as a runtime failure
// (exit 3) saying what Redis said, never as a verdict on the limiter. A
// server that refuses rlbench's writes shows it as rlbench connects,
// before any traffic; one that refuses new connections only during the
// run, after it.

// wantRefusedAtConnect runs the steady profile against addr with extra
// settings and wants exit 3 before any traffic, quoting Redis.
func wantRefusedAtConnect(t *testing.T, addr, extra, said string) {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, writeProfile(t, steadyOn(addr, extra)))
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+addr+" refused a write under rlbench:*") || !strings.Contains(stderr, said) {
		t.Errorf("exit %d, stderr %s\nwant exit 3 quoting %q", code, stderr, said)
	}
	if strings.Contains(stdout, "verdict:") {
		t.Errorf("a verdict on a run that measured nothing:\n%s", stdout)
	}
}

// TestKeyPatternRefusingTheRunsKeys: an ACL user whose key pattern leaves
// out rlbench's keys would get NOPERM on every call.
func TestKeyPatternRefusingTheRunsKeys(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "limited", "on", ">s3cret", "~other:*", "+@all", "-acl").Err(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RLBENCH_TEST_PASSWORD", "s3cret")
	wantRefusedAtConnect(t, addr, `, username: limited, password_env: RLBENCH_TEST_PASSWORD`, "NOPERM this user has no permissions to access one of the keys")
}

// TestReadOnlyReplicaRefusesTheRun: a replica (replica-read-only, the
// default) would answer every limiter's write with READONLY.
func TestReadOnlyReplicaRefusesTheRun(t *testing.T) {
	primary := redistest.Start(t)
	replica := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: replica, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rc.Close() })
	host, port, _ := net.SplitHostPort(primary)
	if err := rc.ReplicaOf(context.Background(), host, port).Err(); err != nil {
		t.Fatal(err)
	}
	wantRefusedAtConnect(t, replica, "", "READONLY You can't write against a read only replica")
}

// TestEveryClientSlotTakenRefusesTheRun: once the limiter's script is
// loaded, rlbench's connections are closed and every client slot the
// server has (maxclients) is taken by others. Each new connection is
// answered "ERR max number of clients reached" and closed, which a call
// may see only as a broken pipe or a reset; the run says what the server
// says.
func TestEveryClientSlotTakenRefusesTheRun(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1})
	t.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "on", ">pw", "~rlbench:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	full := make(chan error, 1)
	fill := func(name string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
		if c, ok := rdb.(*redis.Client); ok {
			var once sync.Once
			c.AddHook(afterLoad{fn: func() { once.Do(func() { full <- fillServer(ctx, admin, "bench") }) }})
		}
		return algorithms.New(name, rdb, p)
	}
	t.Setenv("RLBENCH_TEST_PASSWORD", "pw")
	code, stdout, res, dir := runProfileTextWith(t, hooks{newLimiter: fill}, "steady", steadyOn(addr, `, username: bench, password_env: RLBENCH_TEST_PASSWORD`))
	select {
	case err := <-full:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("the limiter's script was never loaded")
	}
	// The test's own client may leave: the server stays full of it.
	wantFailure(t, code, exitRuntime, stdout, res, dir, "the run did not complete: redis at "+addr+" refused")
	if !strings.Contains(res.IncompleteReason, "ERR max number of clients reached") {
		t.Errorf("reason %q: want what Redis said", res.IncompleteReason)
	}
}

// afterLoad runs fn right after each SCRIPT LOAD is answered, before the
// caller goes on.
type afterLoad struct{ fn func() }

func (h afterLoad) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h afterLoad) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "script" && len(cmd.Args()) > 1 && strings.EqualFold(fmt.Sprint(cmd.Args()[1]), "load") {
			h.fn()
		}
		return err
	}
}

func (h afterLoad) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// fillServer closes every connection of user and sets maxclients to the
// connections left, so that no new one is accepted.
func fillServer(ctx context.Context, admin *redis.Client, user string) error {
	if err := admin.Do(ctx, "CLIENT", "KILL", "USER", user).Err(); err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := admin.Info(ctx, "clients").Result()
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(redisenv.ParseInfo(info)["connected_clients"])
		if err != nil {
			return err
		}
		list, err := admin.ClientList(ctx).Result()
		if err != nil {
			return err
		}
		if !strings.Contains(list, "user="+user+" ") {
			return admin.ConfigSet(ctx, "maxclients", strconv.Itoa(n)).Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("connections of %s still open: %s", user, list)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRenamedCommandRefusesTheRun: a server that renamed away a command
// the limiter's script calls (TIME here) would answer every decision
// "Unknown Redis command called from script", which names no command and
// read as the limiter's error (exit 1). It is found before any traffic,
// named, and the run is a runtime failure (exit 3).
func TestRenamedCommandRefusesTheRun(t *testing.T) {
	srv := redistest.StartConfigured(t, "--rename-command", "TIME", "")
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, steadyOn(srv.Addr, "")))
	want := "redis at " + srv.Addr + " refused TIME, which fixed_window calls for every decision: the server knows no such command"
	if code != exitRuntime || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %s\nwant exit 3 saying %q", code, stderr, want)
	}
	if strings.Contains(stdout, "verdict:") {
		t.Errorf("a verdict on a run that measured nothing:\n%s", stdout)
	}
}

// TestServerFullAtConnect: a server that says why it refuses a client as
// it accepts the connection, then closes it (every client slot taken, as
// protected mode does for a client from another machine), is quoted: the
// first command saw only a reset or an end of file.
func TestServerFullAtConnect(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1})
	t.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "nobody", "on", ">pw", "~rlbench:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := fillServer(ctx, admin, "nobody"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, steadyOn(addr, "")))
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+addr+" refused the connection: ERR max number of clients reached (said to a new connection") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if strings.Contains(stdout, "verdict:") {
		t.Errorf("a verdict on a run that measured nothing:\n%s", stdout)
	}
}
