package redisenv

import (
	"context"
	"fmt"
	"strconv"

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
// one call.
func ReadServerState(ctx context.Context, rdb redis.Cmdable) (ServerState, error) {
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
