package redisenv

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// removeTimeout bounds removing a prefix's keys.
const removeTimeout = 30 * time.Second

// RemoveKeys removes every key under prefix (rlbench's own: prefix must
// start with KeyPrefixRoot), on a fresh connection, since the run's may
// have died, and on a context of its own, so that it runs after Ctrl-C
// too.
func (e *Env) RemoveKeys(prefix string) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	rdb := NewProbeClient(e.Client)
	defer rdb.Close()
	err := rdb.Do(ctx, func(c redis.Cmdable) error {
		_, err := DeletePrefix(ctx, c, prefix)
		return err
	})
	if err != nil {
		return fmt.Errorf("removing the keys %s*: %w", prefix, err)
	}
	return nil
}

// nameBatch is how many keys RemoveNamed names in one UNLINK.
const nameBatch = 1000

// RemoveNamed removes the keys name(0) .. name(n-1), each of which must lie
// under prefix (rlbench's own), with UNLINK in batches, without a SCAN,
// and returns how many existed. It refuses a name outside prefix before
// removing anything of its batch. It is for a single server; on a cluster
// it removes nothing and says so.
func (e *Env) RemoveNamed(prefix string, n int, name func(i int) string) (int64, error) {
	if err := checkPrefix(prefix); err != nil {
		return 0, err
	}
	if e.Cluster != nil {
		return 0, fmt.Errorf("removing keys by name: not on a cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	rdb := NewProbeClient(e.Client)
	defer rdb.Close()
	var removed int64
	err := rdb.Do(ctx, func(c redis.Cmdable) error {
		batch := make([]string, 0, nameBatch)
		for start := 0; start < n; start += nameBatch {
			batch = batch[:0]
			for i := start; i < min(start+nameBatch, n); i++ {
				k := name(i)
				if !strings.HasPrefix(k, prefix) {
					return fmt.Errorf("refusing to remove %q: not under %q", k, prefix)
				}
				batch = append(batch, k)
			}
			r, err := unlink(ctx, c, batch, false)
			removed += r
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("removing the keys %s* by name: %w", prefix, err)
	}
	return removed, nil
}
