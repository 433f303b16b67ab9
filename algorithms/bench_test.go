package algorithms_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// BenchmarkAllow measures one decision per limiter on a real redis-server,
// including the client's allocations (go test -bench Allow -benchmem).
func BenchmarkAllow(b *testing.B) {
	rdb := redistest.Client(b)
	ctx := context.Background()
	for _, name := range algorithms.Default() {
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = "rlbench:bench:" + name + ":" + strconv.Itoa(i)
		}
		b.Run(name, func(b *testing.B) {
			l, err := algorithms.New(name, rdb, algorithms.Policy{Limit: 100, Window: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Load(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := l.Allow(ctx, keys[i%len(keys)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
