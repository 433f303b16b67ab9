package redisenv_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestCloneClientSendsACallOnce: a client cloned from rlbench's own, whose
// call times out while the server is frozen (a stall), does not send it
// again: the server runs the call once, when it wakes, and the caller
// knows of that one call. (go-redis hands its options back filled in, and
// a client made from them as they are retried up to three times: the
// server ran two INCRs where the caller had made one.)
func TestCloneClientSendsACallOnce(t *testing.T) {
	redistest.RequireProc(t)
	ctx := context.Background()
	srv, err := redisenv.StartServer(ctx, redistest.ServerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Thaw(); _ = srv.Stop() })
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: srv.Addr, Timeout: 100 * time.Millisecond, PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	single, ok := env.Client.(*redis.Client)
	if !ok {
		t.Fatalf("client %T", env.Client)
	}
	clone := redisenv.CloneClient(single, func(o *redis.Options) { o.PoolSize = 1 })
	defer clone.Close()
	if err := clone.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// A call sent again goes on a new connection (the one that timed out
	// is closed): the server wakes as it is dialled, so that what the
	// client sends on it is answered.
	var frozen atomic.Bool
	clone.AddHook(thawOnDial{srv: srv, frozen: &frozen})
	if err := srv.Freeze(); err != nil {
		t.Fatal(err)
	}
	frozen.Store(true)
	err = clone.Incr(ctx, "k").Err()
	if frozen.Swap(false) {
		if err == nil {
			t.Fatal("INCR answered by a frozen server")
		}
		if err := srv.Thaw(); err != nil {
			t.Fatal(err)
		}
	}
	// A fresh connection's GET comes after what the server read from the
	// others as it woke.
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	defer admin.Close()
	time.Sleep(50 * time.Millisecond)
	n, err := admin.Get(ctx, "k").Int()
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("the server ran the INCR %d times; the caller made it once", n)
	}
}

// thawOnDial thaws srv when its client dials while frozen is set.
type thawOnDial struct {
	srv    *redisenv.Server
	frozen *atomic.Bool
}

func (h thawOnDial) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if h.frozen.Swap(false) {
			_ = h.srv.Thaw()
		}
		return next(ctx, network, addr)
	}
}

func (h thawOnDial) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h thawOnDial) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
