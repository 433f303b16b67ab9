package redisenv

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Glance is one quick reading of a server, cheap enough to take every
// tenth of a second through a run: who the server is, its clock, and the
// counters that move when something takes keys away.
type Glance struct {
	// ServerUs is the server's TIME when it answered.
	ServerUs int64
	RunID    string
	// FlushAll, FlushDB and Deletes count the calls of FLUSHALL, FLUSHDB
	// and of the commands that delete keys (DEL, UNLINK, GETDEL) since the
	// server started; EvictedKeys its evictions; CachedScripts the scripts
	// it holds.
	FlushAll, FlushDB, Deletes int64
	EvictedKeys, CachedScripts int64
	// Replica says the server is a replica: the deletions it runs came
	// from its primary's stream (keys that expired there), not from a
	// client of its own.
	Replica bool
}

// TakeGlance reads the server rdb talks to in one round trip (a MULTI of
// TIME and INFO).
func TakeGlance(ctx context.Context, rdb *redis.Client) (Glance, error) {
	var tm *redis.TimeCmd
	var info *redis.StringCmd
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		tm = p.Time(ctx)
		info = p.Info(ctx, "server", "stats", "memory", "commandstats", "replication")
		return nil
	})
	if err != nil {
		return Glance{}, err
	}
	f := ParseInfo(info.Val())
	calls := func(cmd string) int64 {
		s, _ := parseCommandStat(f["cmdstat_"+cmd])
		return s.Calls
	}
	num := func(name string) int64 {
		n, _ := strconv.ParseInt(f[name], 10, 64)
		return n
	}
	return Glance{
		// A copy: the parsed fields share the reply's memory, and a glance
		// kept for the length of a run must not keep its whole INFO.
		ServerUs: tm.Val().UnixMicro(), RunID: strings.Clone(f["run_id"]),
		FlushAll: calls("flushall"), FlushDB: calls("flushdb"), Deletes: calls("del") + calls("unlink") + calls("getdel"),
		EvictedKeys: num("evicted_keys"), CachedScripts: num("number_of_cached_scripts"),
		Replica: f["role"] == "slave",
	}, nil
}
