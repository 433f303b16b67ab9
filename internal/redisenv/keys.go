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
// SCAN MATCH (never KEYS). It refuses a prefix outside rlbench's own root.
func ScanPrefix(ctx context.Context, rdb redis.Cmdable, prefix string, fn func(keys []string) error) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
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

// DeletePrefix removes the keys under prefix (UNLINK, batched) and returns
// how many it removed. It only ever touches keys under an rlbench prefix.
func DeletePrefix(ctx context.Context, rdb redis.Cmdable, prefix string) (int64, error) {
	var n int64
	err := ScanPrefix(ctx, rdb, prefix, func(keys []string) error {
		removed, err := rdb.Unlink(ctx, keys...).Result()
		if err != nil {
			return fmt.Errorf("UNLINK: %w", err)
		}
		n += removed
		return nil
	})
	return n, err
}
