package redistest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// Foreign is a redis-server that another program runs beside rlbench: the
// test starts it on a port it is given, outside rlbench's private server
// machinery (rlbench has not proved it its own), and fills it with keys. A
// test makes it answer where rlbench's private server should, then checks
// with State and Unchanged that rlbench left it alone.
type Foreign struct {
	// Addr is 127.0.0.1:port.
	Addr string
	// PID is the server's process id.
	PID int
	cmd *exec.Cmd
	rdb *redis.Client
}

// StartForeign starts the redis-server binary server on 127.0.0.1:port
// holding keys keys (without a TTL), and waits until it answers; it is
// killed when the test ends. The test keeps one connection to it, so that State can tell
// whether anything else connected.
func StartForeign(t testing.TB, server string, port, keys int) *Foreign {
	t.Helper()
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--enable-debug-command", "local", "--logfile", filepath.Join(dir, "foreign.log"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting a foreign redis-server: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	f := &Foreign{Addr: addr, PID: cmd.Process.Pid, cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	f.rdb = redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1, MaxIdleConns: 1, MaxRetries: -1})
	t.Cleanup(func() { _ = f.rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for f.rdb.Ping(ctx).Err() != nil {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "foreign.log"))
			t.Fatalf("the foreign redis-server on %s exited: %s", addr, log)
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, "foreign.log"))
			t.Fatalf("the foreign redis-server on %s did not answer within 10s: %s", addr, log)
		case <-time.After(10 * time.Millisecond):
		}
	}
	pipe := f.rdb.Pipeline()
	for i := range keys {
		pipe.Set(ctx, fmt.Sprintf("foreign:%d", i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("filling the foreign redis-server: %v", err)
	}
	return f
}

// ForeignState is what rlbench must not change on a server it does not
// own: its keys, its configuration and its statistics.
type ForeignState struct {
	// RunID is new at every start: a shutdown and restart changes it.
	RunID string
	// Digest is DEBUG DIGEST, a hash of every key and value.
	Digest string
	// Keys is DBSIZE.
	Keys int64
	// Config is CONFIG GET *.
	Config map[string]string
	// Stats are the counters of INFO stats and INFO commandstats that
	// any write, any expiry or eviction, any script, or a CONFIG
	// RESETSTAT changes, and the number of connections the server took.
	Stats map[string]string
}

// readsOfState are the commands State itself sends: their counters move
// with every reading.
var readsOfState = []string{"cmdstat_info", "cmdstat_debug", "cmdstat_config|get", "cmdstat_dbsize", "cmdstat_ping"}

// State reads the server's state on the test's own connection.
func (f *Foreign) State(t testing.TB) ForeignState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var s ForeignState
	var err error
	if s.Digest, err = f.rdb.Do(ctx, "DEBUG", "DIGEST").Text(); err != nil {
		t.Fatalf("foreign %s: DEBUG DIGEST: %v", f.Addr, err)
	}
	if s.Keys, err = f.rdb.DBSize(ctx).Result(); err != nil {
		t.Fatalf("foreign %s: DBSIZE: %v", f.Addr, err)
	}
	if s.Config, err = f.rdb.ConfigGet(ctx, "*").Result(); err != nil {
		t.Fatalf("foreign %s: CONFIG GET: %v", f.Addr, err)
	}
	info, err := f.rdb.Info(ctx, "server", "stats", "commandstats").Result()
	if err != nil {
		t.Fatalf("foreign %s: INFO: %v", f.Addr, err)
	}
	fields := redisenv.ParseInfo(info)
	s.RunID = fields["run_id"]
	s.Stats = map[string]string{}
	for k, v := range fields {
		keep := strings.HasPrefix(k, "cmdstat_") && !slices.Contains(readsOfState, k)
		switch k {
		case "keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys", "total_error_replies",
			"rejected_connections", "total_connections_received", "sync_full", "pubsub_channels", "total_forks":
			keep = true
		}
		if keep {
			s.Stats[k] = v
		}
	}
	return s
}

// Unchanged fails the test for every way the server's state differs from
// before, and when it no longer runs. With allowConnections false, no
// connection may have reached it since; with true, connections may have
// (rlbench asking who it is, with INFO) as long as nothing else changed.
func (f *Foreign) Unchanged(t testing.TB, before ForeignState, allowConnections bool) {
	t.Helper()
	if !f.Running() {
		t.Errorf("foreign %s: the server (pid %d) no longer runs", f.Addr, f.PID)
		return
	}
	now := f.State(t)
	if now.RunID != before.RunID {
		t.Errorf("foreign %s: run_id %s, was %s: it was restarted", f.Addr, now.RunID, before.RunID)
	}
	if now.Digest != before.Digest || now.Keys != before.Keys {
		t.Errorf("foreign %s: its keys changed: digest %s (%d keys), was %s (%d keys)", f.Addr, now.Digest, now.Keys, before.Digest, before.Keys)
	}
	for _, d := range diff(before.Config, now.Config) {
		t.Errorf("foreign %s: config %s", f.Addr, d)
	}
	stats := now.Stats
	if allowConnections {
		// Connecting is a HELLO (go-redis's handshake) and asking who the
		// server is an INFO, which State leaves out anyway.
		stats = with(now.Stats, "total_connections_received", before.Stats["total_connections_received"])
		stats = with(stats, "cmdstat_hello", before.Stats["cmdstat_hello"])
	}
	for _, d := range diff(before.Stats, stats) {
		t.Errorf("foreign %s: stats %s", f.Addr, d)
	}
}

// with is a copy of m with key set to v.
func with(m map[string]string, key, v string) map[string]string {
	out := maps.Clone(m)
	out[key] = v
	return out
}

// diff lists the fields of a and b that differ, in order.
func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %q is gone", k, v))
		} else if w != v {
			out = append(out, fmt.Sprintf("%s: %q, was %q", k, w, v))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %q is new", k, w))
		}
	}
	slices.Sort(out)
	return out
}

// Running reports whether the server's process still runs.
func (f *Foreign) Running() bool { return redisenv.ProcessRunning(f.PID) }
