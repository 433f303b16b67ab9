package redisenv

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Outside is what a sweep of a private server found outside a run prefix.
type Outside struct {
	// Keys counts the keys that were not under the prefix.
	Keys int64
	// Examples names a few of them.
	Examples []string
}

// SweepOutside walks the whole keyspace of a server rlbench started (SCAN,
// never KEYS; every master of a cluster), counts the keys not under prefix, names up to examples of
// them, and removes them: on a private server every key is rlbench's, and
// a key a limiter's script wrote outside the prefix it was given must not
// be counted again against the next run. Any other server is refused: its
// keys outside rlbench's prefix belong to someone else.
func SweepOutside(ctx context.Context, rdb redis.Cmdable, mode Mode, prefix string, examples int) (Outside, error) {
	var out Outside
	if mode != Private {
		return out, fmt.Errorf("refusing to look at keys outside %q on a %s server: rlbench did not start it", prefix, modeName(mode))
	}
	if err := checkPrefix(prefix); err != nil {
		return out, err
	}
	_, cluster := rdb.(*redis.ClusterClient)
	err := eachMaster(ctx, rdb, func(node redis.Cmdable) error {
		return out.sweep(ctx, node, prefix, examples, cluster)
	})
	return out, err
}

// sweep sweeps one server.
func (out *Outside) sweep(ctx context.Context, rdb redis.Cmdable, prefix string, examples int, cluster bool) error {
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, "*", 1000).Result()
		if err != nil {
			return fmt.Errorf("SCAN: %w", err)
		}
		var foreign []string
		for _, k := range keys {
			if !strings.HasPrefix(k, prefix) {
				foreign = append(foreign, k)
			}
		}
		if len(foreign) > 0 {
			out.Keys += int64(len(foreign))
			for _, k := range foreign {
				if len(out.Examples) < examples {
					out.Examples = append(out.Examples, k)
				}
			}
			if _, err := unlink(ctx, rdb, foreign, cluster); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}
