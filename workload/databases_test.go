package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// selectingWindow is a fixed window that also counts each identity in
// database 3, under its own key name, without a TTL.
const selectingWindow = `redis.call('SELECT', 3)
redis.call('INCR', KEYS[1])
redis.call('SELECT', 0)
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then return {0, '0', 100} end
return {1, tostring(tonumber(ARGV[1]) - n), 0}
`

const selectingProfile = `
policy: {limit: 5, window: 1s}
algorithms:
  - name: selecting
    script: s.lua
    keys: ["c:{${identity}}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
concurrency: 2
scenarios:
  - name: s
    shape: steady
    rate: 100/s
    identities: 4
    duration: 300ms
    accept_inconclusive: true
`

// TestKeysInOtherDatabasesAreFound: a script that SELECTs another logical
// database and writes there escapes the census and the sweep of the run's
// own database. The keys it wrote under the run's prefix are found,
// counted (those without a TTL too), fail the verdict and are removed; on
// a server rlbench did not start, a key already there that is not
// rlbench's is left alone.
func TestKeysInOtherDatabasesAreFound(t *testing.T) {
	for _, mode := range []redisenv.Mode{redisenv.Private, redisenv.External} {
		t.Run(string(mode), func(t *testing.T) {
			rdb := redistest.Client(t)
			ctx := context.Background()
			db3 := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr, DB: 3, Protocol: 2, DisableIdentity: true})
			defer db3.Close()
			if mode == redisenv.External {
				db3.Set(ctx, "customer:1", "theirs", 0)
			}
			p := declaredProfile(t, selectingProfile, map[string]string{"s.lua": selectingWindow})
			runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: mode}}
			res, err := runner.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Runs[0].Memory
			if m == nil || m.KeysOtherDatabases != 4 || m.KeysOtherDatabasesWithoutTTL != 4 || len(m.OtherDatabaseExamples) == 0 ||
				!strings.HasPrefix(m.OtherDatabaseExamples[0], "db3:"+runner.RunPrefix()) {
				t.Fatalf("memory %+v: want the four keys of database 3 found, without a TTL", m)
			}
			verdict.Judge(res, nil)
			if res.Verdict != result.Fail || !strings.Contains(strings.Join(res.VerdictReasons, "\n"), "keys in other logical databases") {
				t.Errorf("verdict %s %q: want a failure naming the other database's keys", res.Verdict, res.VerdictReasons)
			}
			if n := countKeys(t, db3, "rlbench:*"); n != 0 {
				t.Errorf("%d keys of the run left in database 3", n)
			}
			if mode == redisenv.External {
				if v, err := db3.Get(ctx, "customer:1").Result(); err != nil || v != "theirs" {
					t.Errorf("someone else's key in database 3: %q, %v", v, err)
				}
			}
		})
	}
}
