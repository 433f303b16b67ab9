package redisenv_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

func TestIsRefusal(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"NOPERM No permissions to access a key", true},                                                  // a key pattern that leaves out the run's keys
		{"NOPERM this user has no permissions to run the 'evalsha' command", true},                       // a command the ACL refuses
		{"READONLY You can't write against a read only replica. script: 4f2c, on @user_script:1.", true}, // a replica, through a script
		{"ERR max number of clients reached", true},                                                      // maxclients
		{"ERR unknown command 'EVALSHA', with args beginning with: ", true},                              // renamed away
		{"MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", true},
		{"LOADING Redis is loading the dataset in memory", true},
		{"ERR user_script:3: attempt to compare nil with number script: 4f2c", false}, // the limiter's own bug
		{"OOM command not allowed when used memory > 'maxmemory'.", true},             // the server's maxmemory, whatever filled it
		{"NOSCRIPT No matching script.", false},                                       // reloaded, not refused
		{"WRONGTYPE Operation against a key holding the wrong kind of value", false},
	} {
		if got := redisenv.IsRefusal(tc.msg); got != tc.want {
			t.Errorf("IsRefusal(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// TestGreeting: a server with every client slot taken says so to a new
// connection before it is asked anything; one with a slot free says
// nothing.
func TestGreeting(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1})
	t.Cleanup(func() { _ = admin.Close() })
	probe := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, DialTimeout: time.Second})
	t.Cleanup(func() { _ = probe.Close() })
	if said := redisenv.Greeting(ctx, probe); said != "" {
		t.Errorf("a server with room says %q", said)
	}
	if err := admin.ConfigSet(ctx, "maxclients", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if said := redisenv.Greeting(ctx, probe); said != "ERR max number of clients reached" {
		t.Errorf("a full server says %q", said)
	}
	if said := redisenv.Greeting(ctx, redis.NewClient(&redis.Options{Addr: redistest.ClosedAddr(t)})); said != "" {
		t.Errorf("nothing listening says %q", said)
	}
}
