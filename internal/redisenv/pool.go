package redisenv

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// WarmPool opens n connections of rdb's pool at once (on every master of
// a cluster), so that a run's calls do not pay for dialling.
func WarmPool(ctx context.Context, rdb redis.UniversalClient, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); _ = Ping(ctx, rdb) }()
	}
	wg.Wait()
}
