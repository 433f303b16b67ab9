package redisenv_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// leastPrivileged starts a server as a managed service might run it: CONFIG
// and DEBUG renamed away, and a user app with everything but @admin and
// @dangerous (so no INFO, no CLIENT PAUSE, no ACL DRYRUN).
func leastPrivileged(t *testing.T) (addr string, admin *redis.Client) {
	t.Helper()
	srv := redistest.StartConfigured(t, "--rename-command", "CONFIG", "", "--rename-command", "DEBUG", "")
	admin = redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "app", "on", ">pw", "~*", "&*", "+@all", "-@admin", "-@dangerous").Err(); err != nil {
		t.Fatal(err)
	}
	return srv.Addr, admin
}

// TestLeastPrivilegedUserConnects: a user without INFO on a server without
// CONFIG connects; what it may not run is named with what Redis said, the
// version comes from HELLO, and the eviction policy is named as unknown,
// rather than the connection failing.
func TestLeastPrivilegedUserConnects(t *testing.T) {
	addr, _ := leastPrivileged(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: addr, Username: "app", Password: "pw", Check: []string{redisenv.CmdClientPause, redisenv.CmdDebug, redisenv.CmdEvalSha}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	a := env.Access
	if a == nil || a.User != "app" || a.CheckedBy != redisenv.AccessByCalls {
		t.Fatalf("access %+v, want app checked by calls (ACL DRYRUN is @admin)", a)
	}
	for cmd, want := range map[string]string{
		redisenv.CmdInfo:        "NOPERM",
		redisenv.CmdConfigGet:   "ERR unknown command 'CONFIG'",
		redisenv.CmdClientPause: "NOPERM",
		redisenv.CmdDebug:       "ERR unknown command 'DEBUG'",
	} {
		if r, refused := a.Refusal(cmd); !refused || !strings.HasPrefix(r.Reason, want) {
			t.Errorf("%s: refused %v (%q), want %q", cmd, refused, r.Reason, want)
		}
	}
	for _, cmd := range []string{redisenv.CmdMemoryUsage, redisenv.CmdObjectEncoding, redisenv.CmdScan, redisenv.CmdPTTL, redisenv.CmdUnlink, redisenv.CmdEvalShaRO, redisenv.CmdEvalSha} {
		if !a.Allows(cmd) {
			t.Errorf("%s refused: %+v", cmd, a.Refused)
		}
	}
	if !strings.HasPrefix(env.Version, "7.") || env.MaxmemoryPolicy != "" {
		t.Errorf("version %q (from HELLO), policy %q (want unknown)", env.Version, env.MaxmemoryPolicy)
	}
	if len(env.Missing) != 1 || env.Missing[0].What != "maxmemory_policy" || !strings.Contains(env.Missing[0].Reason, "NOPERM") {
		t.Errorf("missing %+v, want the eviction policy, saying why", env.Missing)
	}
}

// TestAccessByDryRun: where the user may run ACL DRYRUN, the ACL's answer
// comes first, and a command it refuses is never called (the server's ACL
// log stays empty of it).
func TestAccessByDryRun(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := admin.Do(ctx, "ACL", "SETUSER", "ops", "on", ">pw", "~*", "+@all", "-info", "-memory|usage").Err(); err != nil {
		t.Fatal(err)
	}
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: addr, Username: "ops", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Access.CheckedBy != redisenv.AccessByDryRun || env.Access.Allows(redisenv.CmdInfo) || env.Access.Allows(redisenv.CmdMemoryUsage) {
		t.Fatalf("access %+v, want INFO and MEMORY USAGE refused by ACL DRYRUN", env.Access)
	}
	if env.MaxmemoryPolicy != "noeviction" {
		t.Errorf("policy %q: CONFIG GET stands in for INFO", env.MaxmemoryPolicy)
	}
	if log := fmt.Sprint(admin.Do(ctx, "ACL", "LOG").Val()); strings.Contains(log, "info") || strings.Contains(log, "memory") {
		t.Errorf("a command ACL DRYRUN refused was called: ACL LOG %s", log)
	}
}

// TestWritesRefusedBeforeAnyTraffic: a replica, and a user whose key
// pattern leaves out rlbench's keys, refuse every limiter's write; that
// shows when rlbench connects, quoting Redis, before any traffic.
func TestWritesRefusedBeforeAnyTraffic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	primary := redistest.Start(t)
	replica := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: replica, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rc.Close() })
	host, port, _ := net.SplitHostPort(primary)
	if err := rc.ReplicaOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, "ACL", "SETUSER", "other", "on", ">pw", "~other:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		o    redisenv.Options
		want string
	}{
		{"a read-only replica", redisenv.Options{Addr: replica}, "READONLY You can't write against a read only replica"},
		{"a key pattern without rlbench's keys", redisenv.Options{Addr: replica, Username: "other", Password: "pw"}, "no permissions to access the 'rlbench:"},
	} {
		env, err := redisenv.Open(ctx, tc.o)
		var refused *redisenv.RefusedError
		if err == nil {
			env.Close()
		}
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "redis at "+replica) {
			t.Errorf("%s: %v, want a refusal quoting %q", tc.why, err, tc.want)
		}
	}
}
