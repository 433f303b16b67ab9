package algorithms_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// TestNaiveCounterRacesUnderConcurrency: 64 concurrent requests on one key
// read the count before any of them writes it, and more than the limit
// pass. This is the fault the audit must see.
func TestNaiveCounterRacesUnderConcurrency(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	l := newLimiter(t, rdb, algorithms.NaiveCounterName, algorithms.Policy{Limit: 5, Window: time.Minute})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
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
	close(start)
	wg.Wait()
	if n := admitted.Load(); n <= 5 {
		t.Errorf("64 concurrent requests admitted %d, no more than the limit 5: the race did not show", n)
	} else {
		t.Logf("64 concurrent requests, limit 5: %d admitted", n)
	}
}
