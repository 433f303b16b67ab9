package redisenv

import (
	"context"
	"fmt"
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
