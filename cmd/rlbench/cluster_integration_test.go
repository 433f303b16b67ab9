//go:build integration

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisconf"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// clusterWatch records, while an rlbench process runs, the redis-server
// processes of its private cluster: the processes working in its node
// directories under tmp.
type clusterWatch struct {
	mu    sync.Mutex
	nodes map[int]string // pid -> directory
	stop  chan struct{}
	wg    sync.WaitGroup
}

func watchCluster(tmp string) *clusterWatch {
	w := &clusterWatch{nodes: map[int]string{}, stop: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			dirs, _ := filepath.Glob(filepath.Join(tmp, "rlbench-redis-*"))
			for _, d := range dirs {
				for _, pid := range redistest.WorkingIn(d) {
					w.mu.Lock()
					w.nodes[pid] = d
					w.mu.Unlock()
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// seen is how many node processes have been seen so far.
func (w *clusterWatch) seen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.nodes)
}

// finish stops watching and checks that no node process runs and no node
// directory is left, and that want nodes were seen.
func (w *clusterWatch) finish(t *testing.T, want int) {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	if len(w.nodes) != want {
		t.Errorf("saw %d node processes, want %d: %v", len(w.nodes), want, w.nodes)
	}
	for pid, dir := range w.nodes {
		if !waitFor(2*time.Second, func() bool { return !redistest.Running(pid) }) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("node process %d (in %s) still runs", pid, dir)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("node directory %s is still there", dir)
		}
	}
}

// TestIntegrationClusterProfile is the finish line: rlbench run
// profiles/cluster.yaml, with nothing but redis-server, starts its own
// cluster of three masters, measures every built-in on it with a clean
// audit, flags the bad-tag scenario's hot node at the top of the summary,
// and leaves no node process or directory behind.
func TestIntegrationClusterProfile(t *testing.T) {
	redistest.RequireProc(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	w := watchCluster(tmp)
	cmd, stdout, stderr := rlbenchProcessOut(t, tmp, filepath.Dir(redistest.ServerPath(t)), "run", "--quiet", "--out", out, "../../profiles/cluster.yaml")
	start := time.Now()
	code := waitExit(t, cmd, 3*time.Minute)
	t.Logf("ran in %s", time.Since(start).Round(time.Second))
	w.finish(t, 3)
	matches, _ := filepath.Glob(filepath.Join(out, "cluster-*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("exit %d, results %v\n%s\n%s", code, matches, stdout, stderr)
	}
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	busy := code == exitInconclusive && heldBackByTheMachine(t, res)
	if code != exitOK && !busy {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The head names the cluster; the hot node opens the notes, right
	// after the decision (the limiter failed nothing).
	lines := strings.Split(stdout.String(), "\n")
	notes := slices.Index(lines, "notes:")
	if len(lines) < 4 || !strings.Contains(lines[1], "Redis Cluster 7") || !strings.Contains(lines[1], "3 masters, 0 replicas") ||
		notes < 0 || notes+1 >= len(lines) || !strings.HasPrefix(lines[notes+1], "! bad-tag: hot node: 100% of decisions on one master") {
		t.Errorf("the summary's head does not name the cluster, or its notes do not open with the hot node:\n%s", strings.Join(lines[:min(30, len(lines))], "\n"))
	}
	if c := res.Redis.Cluster; res.Redis.Mode != "private" || c == nil || c.Masters != 3 || c.Replicas != 0 || (res.Verdict != result.Pass && !busy) {
		t.Errorf("redis %+v, verdict %s", res.Redis, res.Verdict)
	}
	if want := len(algorithms.Default()) * 4; len(res.Runs) != want {
		t.Fatalf("%d runs, want %d: every built-in x 4 scenarios", len(res.Runs), want)
	}
	for _, run := range res.Runs {
		if m := run.Memory; run.Scenario == "memory" && (m == nil || m.Identities < result.MinIdentitiesForBytes || m.BytesPerIdentity <= 0 || run.Pipeline == nil || run.Pipeline.Depth != 16) {
			t.Errorf("%s: memory %+v, pipeline %+v: no memory per identity from pipelined calls", run.Key(), m, run.Pipeline)
		}
		a, c := run.Audit, run.Cluster
		if run.Requests.Errors != 0 || a == nil || a.Overshoot != 0 || a.ModelMismatches != 0 || c == nil || len(c.Nodes) != 3 {
			t.Errorf("%s: errors %v, audit %+v, cluster %+v", run.Key(), run.Errors, a, c)
			continue
		}
		if hot := run.Scenario == "bad-tag"; c.Hot() != hot || (hot && (c.BusiestNodeShare != 1 || c.HashTag != "fixed")) || (!hot && c.HashTag != "identity") {
			t.Errorf("%s: hash tag %s, busiest %.2f, hot %v", run.Key(), c.HashTag, c.BusiestNodeShare, c.Hot())
		}
	}
	for _, f := range []string{"report.html", "cluster-steady.png", "cluster-bad-tag.png"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(matches[0]), f)); err != nil {
			t.Errorf("the report lacks %s: %v", f, err)
		}
	}
}

// longClusterProfile runs on a private cluster for longer than a test
// waits.
const longClusterProfile = `name: longcluster
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 2
redis: {cluster: {masters: 3}}
scenarios:
  - shape: steady
    rate: 1x
    identities: 6
    duration: 60s
`

// TestIntegrationClusterInterrupted: Ctrl-C during a run on a private
// cluster writes what was measured (exit 3) and stops every node; a
// second Ctrl-C (past the echo of the first) hurries it: it still writes
// what it measured, marked incomplete (exit 3), and leaves no node process
// or directory behind.
func TestIntegrationClusterInterrupted(t *testing.T) {
	redistest.RequireProc(t)
	for _, tc := range []struct {
		why     string
		signals int
		code    int
	}{
		{"one Ctrl-C: an orderly stop", 1, exitRuntime},
		{"a second Ctrl-C: hurried, still written", 2, exitRuntime},
	} {
		tmp, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w := watchCluster(tmp)
		out := t.TempDir()
		cmd, stdout, stderr := rlbenchProcessOut(t, tmp, filepath.Dir(redistest.ServerPath(t)), "run", "--quiet", "--no-report", "--out", out, writeProfile(t, longClusterProfile))
		if !waitFor(30*time.Second, func() bool { return w.seen() == 3 && clusterHasKeys(w) }) {
			t.Fatalf("%s: the run never started on its cluster\n%s", tc.why, stderr)
		}
		for i := 0; i < tc.signals; i++ {
			_ = cmd.Process.Signal(os.Interrupt)
			if i == 0 && !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), "finishing calls in flight") }) {
				t.Fatalf("%s: the first Ctrl-C was not acknowledged:\n%s", tc.why, stderr)
			}
			if i == 0 && tc.signals > 1 {
				time.Sleep(signalEcho + 100*time.Millisecond) // past the echo: a second request to stop
			}
		}
		if code := waitExit(t, cmd, 30*time.Second); code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", tc.why, code, tc.code, stdout, stderr)
		}
		w.finish(t, 3)
		if matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json")); len(matches) != 1 {
			t.Errorf("%s: no partial result written: %v", tc.why, matches)
		}
	}
}

// clusterHasKeys reports whether a node the watch has seen holds a key:
// the run's traffic has begun.
func clusterHasKeys(w *clusterWatch) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid := range w.nodes {
		if hasKeys(pid) {
			return true
		}
	}
	return false
}

// TestIntegrationExternalCluster runs on a cluster someone else runs,
// named by --redis-cluster (one node of it), as an ACL user whose password
// comes from the environment: every master's keys outside rlbench's
// prefix stay untouched, rlbench's own are all removed, and the password
// appears nowhere. Someone else's keys, and another rlbench run's, stay as
// they were on every master.
func TestIntegrationExternalCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	const password = "s3cret-RLBENCH-cluster"
	for _, addr := range cl.Addrs() {
		admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
		defer admin.Close()
		if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "on", ">"+password, "~rlbench:*", "+@all").Err(); err != nil {
			t.Fatal(err)
		}
	}
	theirs := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Protocol: 2, DisableIdentity: true})
	defer theirs.Close()
	// Someone else's keys, and another rlbench run's, on every master.
	var foreign []string
	holders := map[string]bool{}
	for i := range 12 {
		for _, k := range []string{fmt.Sprintf("customer:%d", i), fmt.Sprintf("rlbench:another-run:fixed_window:steady:{%d}", i)} {
			if err := theirs.Set(ctx, k, "theirs", 0).Err(); err != nil {
				t.Fatal(err)
			}
			m, err := theirs.MasterForKey(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			foreign, holders[m.Options().Addr] = append(foreign, k), true
		}
	}
	if len(holders) != 3 {
		t.Fatalf("the foreign keys lie on %d masters, want all 3", len(holders))
	}
	t.Setenv("RLBENCH_TEST_PASSWORD", password)
	section := "redis:\n  username: bench\n  password_env: RLBENCH_TEST_PASSWORD\n"
	res, stdout, dir := runAndRead(t, "ext", externalProfile(section), "--redis-cluster", cl.Addrs()[1])
	if c := res.Redis.Cluster; res.Redis.Mode != string(redisenv.External) || c == nil || c.Masters != 3 {
		t.Errorf("redis %+v", res.Redis)
	}
	for _, r := range res.Runs {
		if r.Requests.Errors != 0 || r.Requests.Allowed == 0 || r.Cluster == nil || len(r.Cluster.Nodes) != 3 || r.Server == nil || r.Server.StatsReset {
			t.Errorf("%s: requests %+v, errors %v, cluster %+v, server %+v", r.Key(), r.Requests, r.Errors, r.Cluster, r.Server)
		}
	}
	if res.RunID == "" {
		t.Fatal("the result names no run id")
	}
	for _, k := range foreign {
		if v := theirs.Get(ctx, k).Val(); v != "theirs" {
			t.Errorf("%s was touched: %q", k, v)
		}
	}
	err := theirs.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		if keys := m.Keys(ctx, "rlbench:"+res.RunID+":*").Val(); len(keys) != 0 {
			t.Errorf("master %s still holds %v", m.Options().Addr, keys)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	noFileHolds(t, dir, password)
	if strings.Contains(stdout, password) {
		t.Error("the output holds the password")
	}
}

// tlsCluster starts a cluster of three masters that speak only TLS, to
// clients and on the cluster bus, with certFile as every node's
// certificate and CA, and returns the masters' addresses.
func tlsCluster(t *testing.T, certFile, keyFile string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := redisconf.LoadCA(certFile)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	var admins []*redis.Client
	var ports, buses []int
	for i := 0; i < 3; i++ {
		port, err1 := redisenv.FreePort()
		bus, err2 := redisenv.FreePort()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		dir := t.TempDir()
		srv := exec.Command(redistest.ServerPath(t), "--port", "0", "--tls-port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--tls-cert-file", certFile, "--tls-key-file", keyFile, "--tls-ca-cert-file", certFile, "--tls-auth-clients", "no",
			"--tls-cluster", "yes", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port", strconv.Itoa(bus),
			"--cluster-announce-ip", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
			TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}})
		t.Cleanup(func() { _ = admin.Close() })
		if !waitFor(10*time.Second, func() bool { return admin.Ping(ctx).Err() == nil }) {
			t.Fatalf("TLS cluster node %s did not start", addr)
		}
		addrs, admins, ports, buses = append(addrs, addr), append(admins, admin), append(ports, port), append(buses, bus)
	}
	for i, r := range redisenv.SlotRanges(3) {
		if err := admins[i].ClusterAddSlotsRange(ctx, r[0], r[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 3; i++ {
		if err := admins[0].Do(ctx, "cluster", "meet", "127.0.0.1", ports[i], buses[i]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	ok := waitFor(20*time.Second, func() bool {
		for _, a := range admins {
			if info := a.ClusterInfo(ctx).Val(); !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:3") {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatal("the TLS cluster never came up")
	}
	return addrs
}

// TestIntegrationTLSCluster runs on a cluster that speaks only TLS,
// trusting its certificate through tls_ca_file as for one server: every
// node's certificate is checked for the host rlbench dialled. Without the
// CA the run fails, naming the cluster.
func TestIntegrationTLSCluster(t *testing.T) {
	certFile, keyFile := selfSignedCert(t, t.TempDir())
	addrs := tlsCluster(t, certFile, keyFile)
	section := "redis:\n  tls: true\n  tls_ca_file: " + certFile + "\n"
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), "--redis-cluster", addrs[0], writeProfile(t, externalProfile(section)))
	if code != exitOK || !strings.Contains(stdout, "Redis Cluster") {
		t.Fatalf("over TLS: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), "--redis-cluster", addrs[0], writeProfile(t, externalProfile("redis:\n  tls: true\n")))
	if code != exitRuntime || !strings.Contains(stderr, addrs[0]) || !strings.Contains(stderr, "certificate") {
		t.Errorf("untrusted certificate: exit %d, stderr %s", code, stderr)
	}
}
