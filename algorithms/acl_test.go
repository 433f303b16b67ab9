package algorithms_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

func TestLuaCalls(t *testing.T) {
	calls, dynamic := algorithms.LuaCalls(`local t = redis.call('TIME')
redis.pcall("zadd", KEYS[1], 1, 'a')
redis.call( 'ZADD', KEYS[1], 2, 'b')
local cmd = 'GET'
return redis.call(cmd, KEYS[1])`)
	if want := []string{"time", "zadd"}; !slices.Equal(calls, want) || !dynamic {
		t.Errorf("calls %q dynamic %v, want %q and a dynamic call", calls, dynamic, want)
	}
}

// TestACLCommandsAreEnough: a user granted exactly what ACLCommands lists
// for a limiter, on rlbench's keys only, gets decisions from it; a user
// granted that less TIME, which every decision's Lua calls, is refused. Every
// built-in is tried, so a command added to a script without the list
// knowing fails here.
func TestACLCommandsAreEnough(t *testing.T) {
	addr := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	p := algorithms.Policy{Limit: 5, Window: time.Second, Burst: 5, Bucket: 250 * time.Millisecond}
	for _, name := range algorithms.Names() {
		lim, err := algorithms.New(name, nil, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cmds, dynamic := algorithms.ACLCommands(lim)
		if len(cmds) == 0 || dynamic {
			t.Fatalf("%s: commands %q, dynamic %v", name, cmds, dynamic)
		}
		user := "u_" + name
		rule := []any{"ACL", "SETUSER", user, "reset", "on", ">pw", "~rlbench:*", "resetchannels", "-@all"}
		for _, c := range cmds {
			rule = append(rule, "+"+c)
		}
		if err := admin.Do(ctx, rule...).Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rdb := redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: "pw", Protocol: 2, DisableIdentity: true})
		lim, _ = algorithms.New(name, rdb, p)
		if err := lim.Load(ctx); err != nil {
			t.Errorf("%s with %q: load: %v", name, cmds, err)
		} else if _, err := lim.Allow(ctx, "rlbench:acl:"+name+":1"); err != nil {
			t.Errorf("%s with %q: %v", name, cmds, err)
		}
		_ = rdb.Close()
	}
	// One command less than the list, and the server refuses the limiter.
	lim, _ := algorithms.New(algorithms.SlidingLogName, nil, p)
	cmds, _ := algorithms.ACLCommands(lim)
	if !slices.Contains(cmds, "time") {
		t.Fatalf("sliding_log's commands %q leave out TIME", cmds)
	}
	rule := []any{"ACL", "SETUSER", "short", "reset", "on", ">pw", "~rlbench:*", "-@all"}
	for _, c := range cmds {
		if c != "time" {
			rule = append(rule, "+"+c)
		}
	}
	if err := admin.Do(ctx, rule...).Err(); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, Username: "short", Password: "pw", Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	lim, _ = algorithms.New(algorithms.SlidingLogName, rdb, p)
	_ = lim.Load(ctx)
	if _, err := lim.Allow(ctx, "rlbench:acl:short:1"); err == nil || !strings.Contains(err.Error(), "can't run this command") {
		t.Errorf("without TIME: %v, want the script refused", err)
	}
}
