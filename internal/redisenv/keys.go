package redisenv

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// KeyPrefixRoot starts every key rlbench writes.
const KeyPrefixRoot = "rlbench:"

// EscapeGlob escapes the SCAN MATCH pattern characters in s, so a prefix
// matches only itself.
func EscapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ScanPrefix calls fn with batches of the keys that start with prefix, using
// SCAN MATCH (never KEYS), on every master when rdb is a cluster client.
// It refuses a prefix outside rlbench's own root.
func ScanPrefix(ctx context.Context, rdb redis.Cmdable, prefix string, fn func(keys []string) error) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	return eachMaster(ctx, rdb, func(node redis.Cmdable) error { return scanServer(ctx, node, prefix, fn) })
}

// scanServer is ScanPrefix on one server.
func scanServer(ctx context.Context, rdb redis.Cmdable, prefix string, fn func(keys []string) error) error {
	var cursor uint64
	pattern := EscapeGlob(prefix) + "*"
	for {
		keys, next, err := rdb.Scan(ctx, cursor, pattern, 1000).Result()
		if err != nil {
			return fmt.Errorf("SCAN %s: %w", pattern, err)
		}
		if len(keys) > 0 {
			if err := fn(keys); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// checkPrefix refuses a prefix that is not under rlbench's root, or is the
// root itself (which would take in other runs' keys).
func checkPrefix(prefix string) error {
	if !strings.HasPrefix(prefix, KeyPrefixRoot) || len(prefix) <= len(KeyPrefixRoot) {
		return fmt.Errorf("refusing to scan %q: not under an rlbench run prefix", prefix)
	}
	return nil
}

// DeletePrefix removes the keys under prefix (UNLINK, batched), on every
// master when rdb is a cluster client, and returns how many it removed.
// It only ever touches keys under an rlbench prefix.
func DeletePrefix(ctx context.Context, rdb redis.Cmdable, prefix string) (int64, error) {
	return deletePrefix(ctx, rdb, prefix, false)
}

// deletePrefix is DeletePrefix, with DEL in place of UNLINK when del.
func deletePrefix(ctx context.Context, rdb redis.Cmdable, prefix string, del bool) (int64, error) {
	if err := checkPrefix(prefix); err != nil {
		return 0, err
	}
	_, cluster := rdb.(*redis.ClusterClient)
	var n int64
	err := eachMaster(ctx, rdb, func(node redis.Cmdable) error {
		return scanServer(ctx, node, prefix, func(keys []string) error {
			removed, err := remove(ctx, node, keys, cluster, del)
			n += removed
			return err
		})
	})
	return n, err
}

// unlink removes keys from one server: in one UNLINK, or on a cluster's
// node, where one command may only name keys of one slot, in one UNLINK
// per key, pipelined.
func unlink(ctx context.Context, rdb redis.Cmdable, keys []string, cluster bool) (int64, error) {
	return remove(ctx, rdb, keys, cluster, false)
}

// remove is unlink, with DEL in place of UNLINK when del (a user who may
// not run UNLINK).
func remove(ctx context.Context, rdb redis.Cmdable, keys []string, cluster, del bool) (int64, error) {
	name, call := "UNLINK", rdb.Unlink
	if del {
		name, call = "DEL", rdb.Del
	}
	if !cluster {
		removed, err := call(ctx, keys...).Result()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		return removed, nil
	}
	pipe := rdb.Pipeline()
	cmds := make([]*redis.IntCmd, len(keys))
	call = pipe.Unlink
	if del {
		call = pipe.Del
	}
	for i, k := range keys {
		cmds[i] = call(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	var removed int64
	for _, c := range cmds {
		removed += c.Val()
	}
	return removed, nil
}
