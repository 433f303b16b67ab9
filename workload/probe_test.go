package workload_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// plantObserver writes a key without a TTL under each run's prefix as the
// run starts: a leak the probes must report.
type plantObserver struct {
	rdb    *redis.Client
	runner *workload.Runner
}

var _ workload.Observer = plantObserver{}

func (o plantObserver) RunStarted(p *workload.Progress) {
	o.rdb.Set(context.Background(), o.runner.KeyPrefix(p.Run)+"planted", "leak", 0)
}

func (o plantObserver) RunFinished(*workload.Progress, *result.Run) {}

// TestProbesReportALeakAndNothingElse runs every limiter with a key planted
// without a TTL under the run prefix, and with other people's keys on the
// server (no TTL either). The planted key must be the only key reported
// without a TTL, and the probes must neither count nor send a single
// command naming any key outside the run prefix (MONITOR sees every
// command the server runs).
func TestProbesReportALeakAndNothingElse(t *testing.T) {
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 16})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	const runID = "probe001"
	foreign := map[string]string{
		"customer:42": "precious",
		// another invocation's keys, of the very same shape
		"rlbench:someoneelse:fixed_window:once:1": "theirs",
		// this invocation's root, but a scenario whose name starts like ours
		"rlbench:" + runID + ":fixed_window:onceX:1": "a neighbour",
	}
	for k, v := range foreign {
		rdb.Set(ctx, k, v, 0)
	}
	monitor := startMonitor(t, addr)

	const identities = 300
	p := onceEachProfile(t, "once", identities, 8)
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}, RunID: runID}
	runner.Observer = plantObserver{rdb: rdb, runner: runner}
	runs, err := runsOf(runner.Run(ctx))
	if err != nil {
		t.Fatal(err)
	}
	commands := monitor.stop()

	for i := range runs {
		r := &runs[i]
		m := r.Memory
		if m == nil {
			t.Fatalf("%s: no memory figures", r.Algorithm)
		}
		if m.KeysWithoutTTL != 1 || m.Keys != identities+1 || m.Identities != identities {
			t.Errorf("%s: %d keys (%d without TTL) for %d identities; want the %d limiter keys, all with a TTL, plus the planted one",
				r.Algorithm, m.Keys, m.KeysWithoutTTL, m.Identities, identities)
		}
		if r.Server == nil || r.Server.Calls != r.Requests.Sent {
			t.Errorf("%s: server figures %+v, want one EVALSHA per request sent (%d)", r.Algorithm, r.Server, r.Requests.Sent)
		}
	}
	for k, v := range foreign {
		if got := rdb.Get(ctx, k).Val(); got != v {
			t.Errorf("%s now holds %q, want %q", k, got, v)
		}
		if ttl := rdb.PTTL(ctx, k).Val(); ttl != -1 {
			t.Errorf("%s now has TTL %v", k, ttl)
		}
		for _, c := range commands {
			if strings.Contains(c, k) {
				t.Errorf("a command named the foreign key %s: %s", k, c)
				break
			}
		}
	}
	// The check above means something only if MONITOR saw the probes.
	for _, probe := range []string{`"pttl" "rlbench:`, `"memory" "usage" "rlbench:`, `"object" "encoding" "rlbench:`} {
		seen := false
		for _, c := range commands {
			seen = seen || strings.Contains(strings.ToLower(c), probe+runID)
		}
		if !seen {
			t.Errorf("MONITOR never saw %s%s...: %d commands recorded", probe, runID, len(commands))
		}
	}
}

// monitor records every command a server runs, through MONITOR on a
// connection of its own.
type monitor struct {
	conn  net.Conn
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func startMonitor(t *testing.T, addr string) *monitor {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if ok, err := r.ReadString('\n'); err != nil || ok != "+OK\r\n" {
		t.Fatalf("MONITOR answered %q, %v", ok, err)
	}
	m := &monitor{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			m.mu.Lock()
			m.lines = append(m.lines, line)
			m.mu.Unlock()
		}
	}()
	t.Cleanup(func() { _ = conn.Close() })
	return m
}

// stop ends the monitor and returns the commands it saw.
func (m *monitor) stop() []string {
	_ = m.conn.Close()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lines
}

// TestSlidingLogEncodingJump saturates sliding logs at limit 128 and 129:
// Redis keeps a sorted set of up to zset-max-listpack-entries (128) entries
// as a compact listpack and converts a larger one to a skiplist, so one more
// entry must show the encoding change and a jump in bytes per identity.
func TestSlidingLogEncodingJump(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	if v := rdb.ConfigGet(ctx, "zset-max-listpack-entries").Val()["zset-max-listpack-entries"]; v != "128" {
		t.Skipf("zset-max-listpack-entries is %q on this server, not the default 128", v)
	}
	const identities = 60
	measure := func(limit int) *result.Memory {
		t.Helper()
		// Round robin with a few requests more than the limit each: every
		// log ends up holding exactly limit entries.
		p := mustProfile(t, fmt.Sprintf(`
policy: {limit: %d, window: 1h}
algorithms: [sliding_log]
concurrency: 8
scenarios:
  - name: saturate
    shape: steady
    rate: max
    identities: %d
    requests: %d
`, limit, identities, identities*(limit+3)))
		runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if m := runs[0].Memory; m != nil && m.UsedMemoryDeltaBytes != 0 {
			return m
		}
		t.Fatalf("limit %d: no memory figures: %+v", limit, runs[0].Memory)
		return nil
	}
	small, large := measure(128), measure(129)
	t.Logf("limit 128: %.0f B/identity (MEMORY USAGE %.0f B), encodings %v", small.BytesPerIdentity, small.MemoryUsageSampledBytes, small.Encodings)
	t.Logf("limit 129: %.0f B/identity (MEMORY USAGE %.0f B), encodings %v", large.BytesPerIdentity, large.MemoryUsageSampledBytes, large.Encodings)
	if small.Encodings["listpack"] != identities || len(small.Encodings) != 1 {
		t.Errorf("limit 128: encodings %v, want listpack for all %d logs", small.Encodings, identities)
	}
	if large.Encodings["skiplist"] != identities || len(large.Encodings) != 1 {
		t.Errorf("limit 129: encodings %v, want skiplist for all %d logs", large.Encodings, identities)
	}
	// One more entry costs a few tens of bytes in either encoding; the
	// conversion costs far more.
	if large.BytesPerIdentity < 1.5*small.BytesPerIdentity {
		t.Errorf("no jump: %.0f B/identity at limit 129 vs %.0f at 128", large.BytesPerIdentity, small.BytesPerIdentity)
	}
	if large.MemoryUsageSampledBytes < 1.5*small.MemoryUsageSampledBytes {
		t.Errorf("no jump in MEMORY USAGE: %.0f B at limit 129 vs %.0f at 128", large.MemoryUsageSampledBytes, small.MemoryUsageSampledBytes)
	}
}

// TestProbesOnTheEmbeddedServer: the embedded stand-in has no used_memory,
// MEMORY USAGE or commandstats; the probes still count keys and TTLs there,
// claim no Redis figure, and say why.
func TestProbesOnTheEmbeddedServer(t *testing.T) {
	m := miniredis.RunT(t)
	m.ClockTTL(true)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	p := onceEachProfile(t, "once", 50, 4)
	p.Algorithms = []string{"token_bucket"}
	runs, err := runsOf((&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Embedded}}).Run(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	mem := runs[0].Memory
	if mem == nil || mem.Keys != 50 || mem.Identities != 50 || mem.KeysWithoutTTL != 0 {
		t.Fatalf("memory %+v, want 50 keys of 50 identities, all with a TTL", mem)
	}
	if mem.UsedMemoryDeltaBytes != 0 || mem.BytesPerIdentity != 0 || mem.SampledKeys != 0 || runs[0].Server != nil {
		t.Errorf("figures the embedded server cannot give: %+v, server %+v", mem, runs[0].Server)
	}
	if len(mem.Notes) == 0 || !strings.Contains(mem.Notes[0], "embedded server") {
		t.Errorf("notes %q do not say the server is embedded", mem.Notes)
	}
}
