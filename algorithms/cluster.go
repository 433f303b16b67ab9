package algorithms

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// sharded is a Redis made of several servers, each serving part of the
// key space: go-redis's cluster client. What the servers hold each for
// themselves (a script cache, a Functions library) must be put on every
// one of them, and what one of them lost is put back on that one.
type sharded interface {
	ForEachMaster(ctx context.Context, fn func(ctx context.Context, client *redis.Client) error) error
	MasterForKey(ctx context.Context, key string) (*redis.Client, error)
}

var _ sharded = (*redis.ClusterClient)(nil)

// serverFor is the server that holds key: rdb itself, or on a cluster the
// master that serves key's slot, so that commands that must meet the same
// server (TIME beside a key's PTTL, a reload after NOSCRIPT) do.
func serverFor(ctx context.Context, rdb Redis, key string) (Redis, error) {
	s, ok := rdb.(sharded)
	if !ok {
		return rdb, nil
	}
	node, err := s.MasterForKey(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("finding the cluster node of %s: %w", key, err)
	}
	return node, nil
}

// onEveryMaster runs fn on every master of a cluster, or once on rdb when
// it is a single server. It reports whether any call said created (a
// library some master did not hold yet).
func onEveryMaster(ctx context.Context, rdb Redis, fn func(ctx context.Context, server Redis) (created bool, err error)) (bool, error) {
	s, ok := rdb.(sharded)
	if !ok {
		return fn(ctx, rdb)
	}
	var any atomic.Bool
	err := s.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		created, err := fn(ctx, node)
		if created {
			any.Store(true)
		}
		if err != nil {
			return fmt.Errorf("on %s: %w", node.Options().Addr, err)
		}
		return nil
	})
	return any.Load(), err
}

// lostOn is where to load again what a call on keys was told the server
// lost (NOSCRIPT, a missing function): the server that holds the first
// key, or every server when there is no key or its node is not known.
func lostOn(ctx context.Context, rdb Redis, keys []string) Redis {
	if len(keys) == 0 {
		return rdb
	}
	if server, err := serverFor(ctx, rdb, keys[0]); err == nil {
		return server
	}
	return rdb
}
