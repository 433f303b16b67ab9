package redisenv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// foreignKeys is how many keys each foreign server holds.
const foreignKeys = 1000

// foreigners starts a foreign server holding keys on the port of every
// launch that want picks, right before rlbench's server is launched there,
// and records its state then: the race with another program for a "free"
// port, made certain. The hook is removed when the test ends.
type foreigners struct {
	t    *testing.T
	mu   sync.Mutex
	list []*redistest.Foreign
	was  []redistest.ForeignState
}

func raceOn(t *testing.T, want func(redisenv.Launch) bool) *foreigners {
	t.Helper()
	f := &foreigners{t: t}
	server := redistest.ServerPath(t)
	restore := redisenv.SetLaunchHook(func(l redisenv.Launch) {
		if !want(l) {
			return
		}
		srv := redistest.StartForeign(t, server, l.Port, foreignKeys)
		state := srv.State(t)
		f.mu.Lock()
		f.list = append(f.list, srv)
		f.was = append(f.was, state)
		f.mu.Unlock()
	})
	t.Cleanup(restore)
	return f
}

// unchanged checks every foreign server is as it was (see
// redistest.Foreign.Unchanged), and that there were want of them.
func (f *foreigners) unchanged(want int, allowConnections bool) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.list) != want {
		f.t.Fatalf("%d foreign servers raced rlbench, want %d", len(f.list), want)
	}
	for i, srv := range f.list {
		srv.Unchanged(f.t, f.was[i], allowConnections)
	}
}

// addrs are the foreign servers' addresses.
func (f *foreigners) addrs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, srv := range f.list {
		out = append(out, srv.Addr)
	}
	return out
}

// TestAPrivateServerMovesOnFromAForeignOneOnItsPort: another program's
// Redis, holding keys, answers on the port rlbench chose before rlbench's
// server starts. rlbench moves to a fresh port, runs its set-up and probes
// (which reset statistics, change the configuration and delete keys on a
// server of its own) and stops its server; the foreign one never even
// gets a connection, and runs on as it was.
func TestAPrivateServerMovesOnFromAForeignOneOnItsPort(t *testing.T) {
	redistest.RequireProc(t)
	redistest.ServerPath(t)
	foreign := raceOn(t, func(l redisenv.Launch) bool { return l.Attempt == 0 && !l.Restart })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{NoEmbedded: true})
	if err != nil {
		t.Fatal(err)
	}
	if env.Mode != redisenv.Private || env.Server == nil {
		t.Fatalf("mode %s: want a private server", env.Mode)
	}
	for _, a := range foreign.addrs() {
		if env.Addr == a {
			t.Fatalf("rlbench took the foreign server at %s for its own", a)
		}
	}
	mustOwn(t, ctx, env)
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	foreign.unchanged(1, false)
}

// mustOwn runs on env what rlbench does only to a server of its own, and
// fails the test when it is refused.
func mustOwn(t *testing.T, ctx context.Context, env *redisenv.Env) {
	t.Helper()
	if err := env.Client.Set(ctx, redisenv.KeyPrefixRoot+"t:k", 1, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := redisenv.StopLatencyTracking(ctx, env.Client, env.Mode); err != nil {
		t.Fatal(err)
	}
	if err := redisenv.ResetStats(ctx, env.Client, env.Mode); err != nil {
		t.Fatal(err)
	}
	if err := env.RemoveKeys(redisenv.KeyPrefixRoot + "t:"); err != nil {
		t.Fatal(err)
	}
}

// TestAPrivateClusterMovesOnFromForeignServersOnItsPorts: a foreign Redis
// answers on the port of every node of a private cluster before the node
// starts. Each node moves to a fresh port; the cluster is made of
// rlbench's own servers only, and no foreign one gets a connection.
func TestAPrivateClusterMovesOnFromForeignServersOnItsPorts(t *testing.T) {
	redistest.RequireProc(t)
	redistest.ServerPath(t)
	foreign := raceOn(t, func(l redisenv.Launch) bool { return l.Attempt == 0 && !l.Restart })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{Cluster: &redisenv.ClusterSpec{Masters: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, a := range foreign.addrs() {
		for _, n := range env.Cluster.Nodes {
			if n == a {
				t.Fatalf("a node of the private cluster is the foreign server at %s", a)
			}
		}
	}
	mustOwn(t, ctx, env)
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	foreign.unchanged(3, false)
}

// TestARestartRefusesAServerThatTookItsPort: a restart fault frees the
// private server's port, and a foreign Redis takes it before the server
// starts again. The restart fails and says why; from then on every
// client of the private server refuses the foreign one (it is asked who
// it is, nothing more): no traffic, no statistics reset, no
// configuration, no clean-up, and stopping the private server leaves the
// foreign one running.
func TestARestartRefusesAServerThatTookItsPort(t *testing.T) {
	redistest.RequireProc(t)
	redistest.ServerPath(t)
	foreign := raceOn(t, func(l redisenv.Launch) bool { return l.Restart })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{NoEmbedded: true, PoolSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if err := env.Server.Kill(); err != nil {
		t.Fatal(err)
	}
	err = env.Server.Start(ctx)
	if err == nil {
		t.Fatal("the server started again on a port a foreign server holds")
	}
	if !strings.Contains(err.Error(), "Address already in use") {
		t.Errorf("the restart's error does not say the port was taken: %v", err)
	}
	if got := foreign.addrs(); len(got) != 1 || got[0] != env.Addr {
		t.Fatalf("foreign servers %v, want one on %s", got, env.Addr)
	}
	// The pool's connections died with the server; each fails once, and
	// every new one is refused.
	refused := false
	for range 6 {
		err := env.Client.Ping(ctx).Err()
		if err == nil {
			t.Fatal("PING through rlbench's client reached the foreign server")
		}
		var notOwned *redisenv.NotOwnedError
		refused = refused || errors.As(err, &notOwned)
	}
	if !refused {
		t.Error("no connection to the foreign server was refused as not rlbench's own")
	}
	if err := env.Client.Set(ctx, "foreign:0", "x", 0).Err(); err == nil {
		t.Error("a write reached the foreign server")
	}
	if err := redisenv.ResetStats(ctx, env.Client, env.Mode); err == nil {
		t.Error("CONFIG RESETSTAT reached the foreign server")
	}
	if err := redisenv.StopLatencyTracking(ctx, env.Client, env.Mode); err == nil {
		t.Error("CONFIG SET reached the foreign server")
	}
	if err := env.RemoveKeys("foreign:"); err == nil {
		t.Error("removing keys reached the foreign server")
	}
	if _, err := redisenv.SweepOutside(ctx, env.Client, env.Mode, redisenv.KeyPrefixRoot+"t:", 3); err == nil {
		t.Error("the sweep of keys outside the run prefix reached the foreign server")
	}
	if err := env.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	foreign.unchanged(1, true)
}

// TestAServerThatListensElsewhereIsNotProved: a wrapper script on PATH
// starts the real server on no TCP port at all, and a foreign Redis
// answers on every port rlbench chooses. The server rlbench started says
// (on its own socket) it is not listening there, so rlbench refuses
// every port without sending the foreign servers anything, stops its
// own, and leaves no directory behind.
func TestAServerThatListensElsewhereIsNotProved(t *testing.T) {
	redistest.RequireProc(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	foreign := raceOn(t, func(redisenv.Launch) bool { return true })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := redisenv.StartServer(ctx, wrapper(t, `exec "$REAL" "$@" --port 0`))
	if err == nil {
		_ = srv.Stop()
		t.Fatal("a server that listens on no port was taken for the one answering there")
	}
	var notOwned *redisenv.NotOwnedError
	if !errors.As(err, &notOwned) || !strings.Contains(err.Error(), "listens on port 0 instead") {
		t.Errorf("error %v, want one that says rlbench's server listens elsewhere", err)
	}
	foreign.unchanged(3, false)
	left, _ := filepath.Glob(filepath.Join(tmp, "rlbench-redis-*"))
	for _, d := range left {
		t.Errorf("directory %s left behind (processes in it: %v)", d, redistest.WorkingIn(d))
	}
}

// TestPrivateClientsTalkOnlyToProvedServers: a client of a private server
// refuses a connection to a server rlbench did not prove its own, even a
// Redis another part of the same test started.
func TestPrivateClientsTalkOnlyToProvedServers(t *testing.T) {
	redistest.ServerPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{NoEmbedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	other := redistest.StartForeign(t, redistest.ServerPath(t), freePort(t), 10)
	before := other.State(t)
	c, ok := env.Client.(*redis.Client)
	if !ok {
		t.Fatalf("client %T", env.Client)
	}
	o := *c.Options()
	o.Addr = other.Addr
	pointed := redis.NewClient(&o)
	defer pointed.Close()
	var notOwned *redisenv.NotOwnedError
	if err := pointed.FlushAll(ctx).Err(); !errors.As(err, &notOwned) {
		t.Errorf("FLUSHALL through a private server's client on a foreign server: %v, want a refusal", err)
	}
	other.Unchanged(t, before, true)
	if err := env.Client.Ping(ctx).Err(); err != nil {
		t.Errorf("the private server itself: %v", err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := redisenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSocketPathTooDeep: a TMPDIR too deep for the server's unix socket
// is refused with a message that says what to do, and leaves nothing.
func TestSocketPathTooDeep(t *testing.T) {
	redistest.ServerPath(t)
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", deep)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := redisenv.StartServer(ctx, redistest.ServerPath(t))
	if err == nil {
		_ = srv.Stop()
		t.Fatal("started with a socket path longer than any platform takes")
	}
	if !strings.Contains(err.Error(), "set TMPDIR to a shorter path") {
		t.Errorf("error %v does not say what to do", err)
	}
	if left, _ := filepath.Glob(filepath.Join(deep, "rlbench-redis-*")); len(left) != 0 {
		t.Errorf("directories left: %v", left)
	}
}
