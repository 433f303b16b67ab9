package algorithms_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestNaiveCounterAloneKeepsTheLimit: one caller at a time, the naive
// counter behaves like a fixed window, with a TTL on its key. Its fault
// only shows under concurrency.
func TestNaiveCounterAloneKeepsTheLimit(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 5, Window: time.Minute}
	l := newLimiter(t, rdb, algorithms.NaiveCounterName, p)
	key := "rlbench:test:naive_counter:alone"
	for i := 1; i <= 8; i++ {
		d, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != (i <= 5) {
			t.Errorf("request %d: allowed %v", i, d.Allowed)
		}
		if !d.Allowed && (d.RetryAfter <= 0 || d.RetryAfter > p.Window+time.Millisecond) {
			t.Errorf("request %d: retry after %s", i, d.RetryAfter)
		}
	}
	if pttl := rdb.PTTL(ctx, key).Val(); pttl <= 0 || pttl > p.Window {
		t.Errorf("key TTL %s, want within (0, %s]", pttl, p.Window)
	}
}

// readBarrier is the Redis a naive counter talks to in the race test: it
// holds every caller just after its read (the pipeline that starts with
// TIME and GETs the count) until all racers have read, and only then lets
// any of them go on to decide and write. The limiter itself is unchanged;
// the race is certain because nobody may write before everybody has read.
type readBarrier struct {
	algorithms.Redis
	racers  int64
	read    atomic.Int64
	allRead chan struct{}
	timeout time.Duration
	stuck   atomic.Bool
}

func (b *readBarrier) Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error) {
	cmds, err := b.Redis.Pipelined(ctx, fn)
	if len(cmds) == 0 {
		return cmds, err
	}
	if _, isRead := cmds[0].(*redis.TimeCmd); !isRead {
		return cmds, err
	}
	if b.read.Add(1) == b.racers {
		close(b.allRead)
	}
	select {
	case <-b.allRead:
	case <-time.After(b.timeout):
		// A racer that never read (the limiter changed how it calls
		// Redis) must fail the test, not hang it.
		b.stuck.Store(true)
	}
	return cmds, err
}

// TestNaiveCounterRacesUnderConcurrency: 64 concurrent requests on one key
// all read the count before any of them writes it, so all 64 pass a limit
// of 5. This is the fault the audit must see, made certain by holding
// every racer between its read and its write until all have read.
func TestNaiveCounterRacesUnderConcurrency(t *testing.T) {
	const racers = 64
	rdb := redistest.Client(t)
	ctx := context.Background()
	barrier := &readBarrier{Redis: rdb, racers: racers, allRead: make(chan struct{}), timeout: 10 * time.Second}
	l := algorithms.NewNaiveCounter(barrier, algorithms.Policy{Limit: 5, Window: time.Minute})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < racers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.Allow(ctx, "rlbench:test:naive_counter:race")
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				admitted.Add(1)
			}
		}()
	}
	wg.Wait()
	if barrier.stuck.Load() {
		t.Fatalf("only %d of %d racers read the count through the barrier", barrier.read.Load(), racers)
	}
	if n := admitted.Load(); n != racers {
		t.Errorf("%d requests that all read a count of 0 admitted %d, want all of them: the race did not show", racers, n)
	}
	if count, err := rdb.Get(ctx, "rlbench:test:naive_counter:race").Int64(); err != nil || count != racers {
		t.Errorf("the counter holds %d (%v), want %d writes", count, err, racers)
	}
}
