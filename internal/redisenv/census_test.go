package redisenv_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestCensusCountsKeysAndLeaks plants keys with and without a TTL under a
// run prefix and around it, and checks the census counts only the prefix's
// keys, finds the ones without a TTL, and draws a sample of the asked size
// from the prefix alone.
func TestCensusCountsKeysAndLeaks(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	const prefix = "rlbench:c1:sliding_log:s:"
	for i := 0; i < 2500; i++ {
		rdb.Set(ctx, fmt.Sprint(prefix, i), "x", time.Hour)
	}
	rdb.Set(ctx, prefix+"leak1", "x", 0)
	rdb.Do(ctx, "zadd", prefix+"leak2", 1, "a")
	rdb.Set(ctx, "customer:42", "x", 0)
	rdb.Set(ctx, "rlbench:c1:sliding_log:s2:1", "x", 0)

	visited := 0
	c, err := redisenv.TakeCensus(ctx, rdb, prefix, 100, 1, func(string) { visited++ })
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys != 2502 || c.WithoutTTL != 2 || visited != 2502 {
		t.Errorf("census: %d keys, %d without TTL, %d visited; want 2502, 2, 2502", c.Keys, c.WithoutTTL, visited)
	}
	if len(c.Sample) != 100 {
		t.Fatalf("sample of %d keys, want 100", len(c.Sample))
	}
	seen := map[string]bool{}
	for _, k := range c.Sample {
		if !strings.HasPrefix(k, prefix) || seen[k] {
			t.Errorf("sample key %q: outside the prefix or drawn twice", k)
		}
		seen[k] = true
	}
	// A reservoir draws from the whole scan, not its first batches: with
	// 100 of 2502 keys, some must have numbers above 1000 and some below.
	high := slices.ContainsFunc(c.Sample, func(k string) bool { return len(strings.TrimPrefix(k, prefix)) == 4 })
	low := slices.ContainsFunc(c.Sample, func(k string) bool { return len(strings.TrimPrefix(k, prefix)) <= 3 })
	if !high || !low {
		t.Errorf("sample is not spread over the keyspace: %v", c.Sample)
	}

	s, err := redisenv.SampleMemory(ctx, rdb, prefix, []string{prefix + "1", prefix + "leak2", prefix + "gone"}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Keys != 2 || s.Encodings["embstr"] != 1 || s.Encodings["listpack"] != 1 || s.MeanBytes <= 0 {
		t.Errorf("sample: %+v; want an embstr string and a listpack set, the missing key skipped", s)
	}
}

// TestSettledMemoryWaitsForTheServer: on an idle private server the reading
// settles, and the exact client accounting leaves the keyspace figure
// unchanged by a client's traffic.
func TestSettledMemoryWaitsForTheServer(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// Without this, the first SET and PING would each allocate a latency
	// histogram of about 25 KB.
	if err := redisenv.StopLatencyTracking(ctx, rdb, redisenv.Private); err != nil {
		t.Fatal(err)
	}
	// The first key creates the database's hash tables.
	rdb.Set(ctx, "rlbench:c2:fixed_window:s:0", "x", time.Hour)
	m, settled, err := redisenv.SettledMemory(ctx, rdb, redisenv.Private, 3*time.Second)
	if err != nil || !settled || m.UsedMemory <= 0 || m.ClientBuffers <= 0 {
		t.Fatalf("reading %+v settled %v err %v", m, settled, err)
	}
	before := m.WithoutClients()
	for i := 0; i < 200; i++ {
		rdb.Ping(ctx)
	}
	rdb.Set(ctx, "rlbench:c2:fixed_window:s:1", strings.Repeat("x", 1000), time.Hour)
	m, _, err = redisenv.SettledMemory(ctx, rdb, redisenv.Private, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if grew := m.WithoutClients() - before; grew < 1000 || grew > 1200 {
		t.Errorf("a 1000-byte value grew the keyspace figure by %d bytes", grew)
	}
}
