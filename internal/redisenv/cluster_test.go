package redisenv_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

func TestSlotRanges(t *testing.T) {
	for _, tc := range []struct {
		why     string
		masters int
		want    [][2]int
	}{
		{"one master serves everything", 1, [][2]int{{0, 16383}}},
		{"redis-cli's division for three", 3, [][2]int{{0, 5460}, {5461, 10922}, {10923, 16383}}},
		{"an even division", 4, [][2]int{{0, 4095}, {4096, 8191}, {8192, 12287}, {12288, 16383}}},
	} {
		if got := redisenv.SlotRanges(tc.masters); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.why, got, tc.want)
		}
	}
	for m := 1; m <= 16; m++ {
		r := redisenv.SlotRanges(m)
		if len(r) != m || r[0][0] != 0 || r[m-1][1] != 16383 {
			t.Fatalf("%d masters: %v", m, r)
		}
		for i := 1; i < m; i++ {
			if r[i][0] != r[i-1][1]+1 {
				t.Fatalf("%d masters: a gap or overlap at %d: %v", m, i, r)
			}
		}
	}
}

// TestPrivateCluster starts the cluster as rlbench does, and finds
// every master serving its share of the slots, the slots where rlbench
// computes them, and the key scans reaching every master; then it stops
// every node and leaves no directory behind.
func TestPrivateCluster(t *testing.T) {
	ctx := context.Background()
	env, err := redisenv.Open(ctx, redisenv.Options{Cluster: &redisenv.ClusterSpec{Masters: 3}, PoolSize: 8, ServerPath: redistest.ServerPath(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Mode != redisenv.Private || env.Cluster == nil || env.Cluster.Masters != 3 || env.Cluster.Replicas != 0 || len(env.Cluster.Nodes) != 3 {
		t.Fatalf("env %+v cluster %+v", env, env.Cluster)
	}
	if !env.OnThisMachine() || env.Version == "" {
		t.Errorf("a private cluster is on this machine and has a version: %+v", env)
	}
	masters, err := redisenv.Masters(ctx, env.Client)
	if err != nil || len(masters) != 3 {
		t.Fatalf("masters %v, %v", masters, err)
	}
	for i, m := range masters {
		if m.Addr != env.Cluster.Nodes[i] {
			t.Errorf("master %d is %s, the env says %s", i, m.Addr, env.Cluster.Nodes[i])
		}
		// The masters come in slot order: the first serves slot 0.
		keys, err := m.Client.(*redis.Client).ClusterCountKeysInSlot(ctx, redisenv.SlotRanges(3)[i][0]).Result()
		if err != nil || keys != 0 {
			t.Errorf("master %d (%s) does not serve slot %d: %v", i, m.Addr, redisenv.SlotRanges(3)[i][0], err)
		}
	}
	for _, key := range []string{"somekey", "rlbench:r:fixed_window:s:{42}", "rlbench:r:fixed_window:s:{all}:42", "{}x", "a{b}{c}"} {
		slot, err := masters[0].Client.(*redis.Client).ClusterKeySlot(ctx, key).Result()
		if err != nil || int(slot) != algorithms.KeySlot(key) {
			t.Errorf("CLUSTER KEYSLOT %s = %d (%v); algorithms.KeySlot says %d", key, slot, err, algorithms.KeySlot(key))
		}
	}

	const prefix = "rlbench:cluster-test:"
	for i := range 300 {
		if err := env.Client.Set(ctx, fmt.Sprintf("%s{%d}", prefix, i), "x", time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Client.Set(ctx, "someone-else", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, m := range masters {
		if n, _ := m.Client.DBSize(ctx).Result(); n < 50 {
			t.Errorf("master %s holds %d of 300 keys: the identities did not spread", m.Addr, n)
		}
	}
	c, err := redisenv.TakeCensus(ctx, env.Client, prefix, 10, 1, nil)
	if err != nil || c.Keys != 300 || len(c.Sample) != 10 {
		t.Errorf("census of every master: %+v, %v", c, err)
	}
	out, err := redisenv.SweepOutside(ctx, env.Client, env.Mode, prefix, 3)
	if err != nil || out.Keys != 1 || out.Examples[0] != "someone-else" {
		t.Errorf("sweep of every master: %+v, %v", out, err)
	}
	if n, err := redisenv.DeletePrefix(ctx, env.Client, prefix); err != nil || n != 300 {
		t.Errorf("deleted %d of 300 keys across the masters: %v", n, err)
	}

	var dirs []string
	for _, a := range env.Cluster.Nodes {
		pid := serverPID(t, a)
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, cwd)
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) || !strings.Contains(d, "rlbench-redis-") {
			t.Errorf("node directory %s still there after Close (%v)", d, err)
		}
	}
}

// TestUnreachableCluster fails within seconds and names the address.
func TestUnreachableCluster(t *testing.T) {
	addr := redistest.ClosedAddr(t)
	start := time.Now()
	_, err := redisenv.Open(context.Background(), redisenv.Options{ClusterAddrs: []string{addr}, Timeout: 500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("error %v, want one that names %s", err, addr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}

// TestClusterNodeAsOneServer: a node of a cluster named as one server is
// refused with the flag to use instead, not left to fail every call with
// MOVED.
func TestClusterNodeAsOneServer(t *testing.T) {
	cl := redistest.StartCluster(t, 1)
	_, err := redisenv.Open(context.Background(), redisenv.Options{Addr: cl.Addrs()[0]})
	if err == nil || !strings.Contains(err.Error(), "is a node of a Redis Cluster") || !strings.Contains(err.Error(), "--redis-cluster "+cl.Addrs()[0]) {
		t.Errorf("error %v", err)
	}
}

// TestOneServerAsACluster: a single server named as a cluster is refused
// with the flag to use instead, not with Redis's bare "cluster support
// disabled".
func TestOneServerAsACluster(t *testing.T) {
	addr := redistest.Start(t)
	_, err := redisenv.Open(context.Background(), redisenv.Options{ClusterAddrs: []string{addr}})
	if err == nil || !strings.Contains(err.Error(), addr+" is a single server, not a node of a Redis Cluster") || !strings.Contains(err.Error(), "--redis "+addr) {
		t.Errorf("error %v", err)
	}
}
