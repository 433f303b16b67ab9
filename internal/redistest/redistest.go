// Package redistest starts a real redis-server for a test on a free
// loopback port and stops it when the test ends.
//
// Without redis-server on PATH the test is skipped, unless
// RLBENCH_REQUIRE_REDIS=1 (set by CI), in which case it fails.
package redistest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// RequireEnv is the environment variable that turns a missing redis-server
// from a skip into a failure.
const RequireEnv = "RLBENCH_REQUIRE_REDIS"

// ServerPath returns the redis-server binary, or skips (or fails, under
// RLBENCH_REQUIRE_REDIS=1) the test when there is none.
func ServerPath(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but redis-server is not on PATH: %v", RequireEnv, err)
		}
		t.Skip("redis-server not on PATH; install the Debian package redis-server (CI sets " + RequireEnv + "=1)")
	}
	return path
}

// Start starts a private redis-server for the test and returns its address.
// The server is stopped when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := redisenv.StartServer(ctx, ServerPath(t))
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv.Addr
}

// Client starts a private redis-server and returns a client for it; both
// are closed when the test ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: Start(t), Protocol: 2, DisableIdentity: true, PoolSize: 64})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// ClosedAddr returns a 127.0.0.1 address nothing listens on, for tests of
// an unreachable server.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// StartCluster starts a private Redis Cluster of masters masters (no
// replicas) for the test; it is stopped when the test ends.
func StartCluster(t testing.TB, masters int) *redisenv.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := redisenv.StartCluster(ctx, ServerPath(t), redisenv.ClusterSpec{Masters: masters})
	if err != nil {
		t.Fatalf("starting a cluster: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// ClusterEnv starts a private cluster of masters masters and connects to
// it as rlbench does (redisenv.Open); both end when the test ends.
func ClusterEnv(t testing.TB, masters int) *redisenv.Env {
	t.Helper()
	ServerPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{Cluster: &redisenv.ClusterSpec{Masters: masters}, PoolSize: 16})
	if err != nil {
		t.Fatalf("starting a cluster: %v", err)
	}
	t.Cleanup(func() { _ = env.Close() })
	return env
}
