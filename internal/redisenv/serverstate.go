package redisenv

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ServerState is what INFO says about the server that can change under a
// run: who it is (a restart gives it a new run_id), its eviction policy,
// and how many keys it has evicted and expired since its statistics were
// last reset.
type ServerState struct {
	// RunID is INFO server run_id, new at every start of the server.
	RunID string
	// MaxmemoryPolicy is INFO memory maxmemory_policy.
	MaxmemoryPolicy string
	// EvictedKeys and ExpiredKeys are INFO stats evicted_keys and
	// expired_keys.
	EvictedKeys int64
	ExpiredKeys int64
}

// ReadServerState reads the server, memory and stats sections of INFO in
// one call. On a cluster client it reads every master and adds up their
// evictions and expiries; the run_id is all of theirs, so a restart of any
// changes it, and the eviction policy is one other than noeviction when
// any master has one.
func ReadServerState(ctx context.Context, rdb redis.Cmdable) (ServerState, error) {
	var out ServerState
	var ids []string
	err := eachMaster(ctx, rdb, func(node redis.Cmdable) error {
		s, err := readServerState(ctx, node)
		if err != nil {
			return err
		}
		ids = append(ids, s.RunID)
		if out.MaxmemoryPolicy == "" || out.MaxmemoryPolicy == "noeviction" {
			out.MaxmemoryPolicy = s.MaxmemoryPolicy
		}
		out.EvictedKeys += s.EvictedKeys
		out.ExpiredKeys += s.ExpiredKeys
		return nil
	})
	// In one order whichever master serves which slots now: a migration
	// is not a restart.
	slices.Sort(ids)
	out.RunID = strings.Join(ids, ",")
	return out, err
}

// readServerState is ReadServerState on one server.
func readServerState(ctx context.Context, rdb redis.Cmdable) (ServerState, error) {
	info, err := rdb.Info(ctx, "server", "memory", "stats").Result()
	if err != nil {
		return ServerState{}, fmt.Errorf("INFO server memory stats: %w", err)
	}
	fields := ParseInfo(info)
	s := ServerState{RunID: fields["run_id"], MaxmemoryPolicy: fields["maxmemory_policy"]}
	for name, dst := range map[string]*int64{"evicted_keys": &s.EvictedKeys, "expired_keys": &s.ExpiredKeys} {
		v, ok := fields[name]
		if !ok {
			return s, fmt.Errorf("INFO stats has no %s", name)
		}
		if *dst, err = strconv.ParseInt(v, 10, 64); err != nil {
			return s, fmt.Errorf("INFO stats: %s is %q, not a number", name, v)
		}
	}
	if s.RunID == "" || s.MaxmemoryPolicy == "" {
		return s, fmt.Errorf("INFO lacks run_id or maxmemory_policy")
	}
	return s, nil
}
