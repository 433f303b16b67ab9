package redisenv_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestServerProcessControl: what scheduled faults do to a private server.
// Frozen, it answers nothing until thawed; killed, it refuses connections
// and comes back on the same address empty, with a new run_id; stopped
// for good, it is not started again, even while frozen.
func TestServerProcessControl(t *testing.T) {
	ctx := context.Background()
	srv, err := redisenv.StartServer(ctx, redistest.ServerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer rdb.Close()
	runID := func() string {
		t.Helper()
		info, err := rdb.Info(ctx, "server").Result()
		if err != nil {
			t.Fatal(err)
		}
		return redisenv.ParseInfo(info)["run_id"]
	}
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	first := runID()

	if err := srv.Freeze(); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	if err := rdb.Ping(short).Err(); err == nil {
		t.Error("a frozen server answered")
	}
	cancel()
	if err := srv.Thaw(); err != nil {
		t.Fatal(err)
	}
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Errorf("after a stall: %q, %v; want the key kept", v, err)
	}

	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The pool's connection died with the old server.
	_ = rdb.Ping(ctx).Err()
	if n, err := rdb.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Errorf("after a kill: exists %d, %v; want the key gone with the old server", n, err)
	}
	if second := runID(); second == first || second == "" {
		t.Errorf("run_id %q before and %q after the kill", first, second)
	}

	if err := srv.Terminate(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("starting after a stop: %v", err)
	}
	if err := srv.Start(ctx); err == nil {
		t.Error("Start on a running server did not refuse")
	}

	if err := srv.Freeze(); err != nil {
		t.Fatal(err)
	}
	stopWithin(t, srv, 5*time.Second)
	if err := srv.Start(ctx); !errors.Is(err, redisenv.ErrStopped) {
		t.Errorf("Start after Stop: %v, want ErrStopped", err)
	}
}
