package redisenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisconf"
)

// Timing of a private cluster's creation. Every wait is bounded.
const (
	// clusterReadyTimeout bounds the wait for every node to agree that
	// every slot is served (and every replica has synced).
	clusterReadyTimeout = 30 * time.Second
	// clusterNodeTimeout is the nodes' cluster-node-timeout: how long a
	// node may not answer before the others count it as failing.
	clusterNodeTimeout = 5 * time.Second
	// clusterPoll is how often the creation checks on the nodes.
	clusterPoll = 50 * time.Millisecond
)

// ClusterSpec is the private cluster to start: Masters masters, each with
// Replicas replicas.
type ClusterSpec struct {
	Masters  int
	Replicas int
}

// Validate refuses a cluster rlbench will not start (see
// redisconf.CheckClusterShape).
func (s ClusterSpec) Validate() error { return redisconf.CheckClusterShape(s.Masters, s.Replicas) }

// Cluster is a Redis Cluster rlbench started on loopback ports. Each node
// is a private Server (its own process group, temporary directory and
// owner file, stopped by StopAll and cleaned up after a killed run).
type Cluster struct {
	// Masters serve the slots, in slot order; Replicas[i*r ... i*r+r-1]
	// replicate Masters[i].
	Masters  []*Server
	Replicas []*Server

	busPorts map[*Server]int
}

// Addrs are the masters' addresses, in slot order.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		out[i] = m.Addr
	}
	return out
}

// Nodes are every node, masters first.
func (c *Cluster) Nodes() []*Server {
	return append(append([]*Server(nil), c.Masters...), c.Replicas...)
}

// Stop stops every node at once; each stop is bounded as Server.Stop is.
func (c *Cluster) Stop() error {
	nodes := c.Nodes()
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = n.Stop() }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// StartCluster starts spec's nodes from the redis-server at path, each
// cluster-enabled on a free loopback port (and a free one for the cluster
// bus) without persistence, joins them into one cluster whose masters
// share the 16384 slots evenly (as redis-cli --cluster create divides
// them), makes each replica replicate its master, and waits until every
// node says every slot is served. Each node is proved the server answering
// on its port before any cluster command goes there (see prove), and
// moves to a fresh port when it is not. When anything fails, or ctx ends,
// the nodes already started are stopped.
func StartCluster(ctx context.Context, path string, spec ClusterSpec) (*Cluster, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkTempDir(); err != nil {
		return nil, err
	}
	RemoveStaleDirs(os.TempDir())
	c, err := startClusterNodes(ctx, path, spec)
	if err != nil {
		return nil, err
	}
	if err := c.create(ctx, spec); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("creating a private cluster of %d masters and %d replicas: %w", spec.Masters, spec.Masters*spec.Replicas, err)
	}
	return c, nil
}

// startClusterNodes starts every node of spec at once.
func startClusterNodes(ctx context.Context, path string, spec ClusterSpec) (*Cluster, error) {
	total := spec.Masters * (1 + spec.Replicas)
	nodes := make([]*Server, total)
	buses := make([]int, total)
	errs := make([]error, total)
	var wg sync.WaitGroup
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i], errs[i] = startServer(ctx, path, func() ([]string, error) {
				bus, err := FreePort()
				buses[i] = bus
				return clusterNodeArgs(bus), err
			})
		}()
	}
	wg.Wait()
	c := &Cluster{busPorts: map[*Server]int{}}
	for i, n := range nodes {
		if n == nil {
			continue
		}
		c.busPorts[n] = buses[i]
		if i < spec.Masters {
			c.Masters = append(c.Masters, n)
		} else {
			c.Replicas = append(c.Replicas, n)
		}
	}
	if err := errors.Join(errs...); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// clusterNodeArgs are what makes a private server a cluster node: its
// cluster state in nodes.conf in its own directory, its bus on a port of
// its own (not port+10000, which may be taken), its loopback address
// announced (a node alone would not know it), and replicas that sync
// without writing a snapshot on the master.
func clusterNodeArgs(busPort int) []string {
	return []string{
		"--cluster-enabled", "yes",
		"--cluster-config-file", "nodes.conf",
		"--cluster-port", strconv.Itoa(busPort),
		"--cluster-announce-ip", "127.0.0.1",
		"--cluster-node-timeout", strconv.FormatInt(clusterNodeTimeout.Milliseconds(), 10),
		"--repl-diskless-sync", "yes",
		"--repl-diskless-sync-delay", "0",
	}
}

// adminClient is a client of one node for creating the cluster: no
// retries, short timeouts, and only to a server proved rlbench's own.
func adminClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1, OnConnect: guardOwned,
		DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, PoolSize: 2,
	})
}

// create joins the started nodes into a cluster, as redis-cli --cluster
// create does: a distinct config epoch per node (so no epoch collision
// has to be resolved), the slots divided among the masters, a MEET from
// the first node to every other, the replicas attached, and a wait until
// every node agrees the cluster is whole.
func (c *Cluster) create(ctx context.Context, spec ClusterSpec) error {
	nodes := c.Nodes()
	admins := make([]*redis.Client, len(nodes))
	for i, n := range nodes {
		admins[i] = adminClient(n.Addr)
	}
	defer func() {
		for _, a := range admins {
			_ = a.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, clusterReadyTimeout)
	defer cancel()
	for i, a := range admins {
		if err := a.Do(ctx, "cluster", "set-config-epoch", i+1).Err(); err != nil {
			return fmt.Errorf("CLUSTER SET-CONFIG-EPOCH on %s: %w", nodes[i].Addr, err)
		}
	}
	for i, r := range SlotRanges(spec.Masters) {
		if err := admins[i].ClusterAddSlotsRange(ctx, r[0], r[1]).Err(); err != nil {
			return fmt.Errorf("CLUSTER ADDSLOTSRANGE %d %d on %s: %w", r[0], r[1], nodes[i].Addr, err)
		}
	}
	for _, n := range nodes[1:] {
		host, port, _ := strings.Cut(n.Addr, ":")
		if err := admins[0].Do(ctx, "cluster", "meet", host, port, c.busPorts[n]).Err(); err != nil {
			return fmt.Errorf("CLUSTER MEET %s from %s: %w", n.Addr, nodes[0].Addr, err)
		}
	}
	if err := poll(ctx, "every node knowing every other", func() error { return allKnown(ctx, admins, len(nodes)) }); err != nil {
		return err
	}
	if err := c.attachReplicas(ctx, admins, spec); err != nil {
		return err
	}
	return poll(ctx, "every node serving all 16384 slots", func() error { return allServed(ctx, admins, nodes, spec) })
}

// SlotRanges divides the 16384 slots among masters the way redis-cli
// --cluster create does: 0-5460, 5461-10922 and 10923-16383 for three.
func SlotRanges(masters int) [][2]int {
	per := float64(16384) / float64(masters)
	out := make([][2]int, 0, masters)
	first, cursor := 0, 0.0
	for i := range masters {
		last := int(cursor + per - 1 + 0.5)
		if last > 16383 || i == masters-1 {
			last = 16383
		}
		if last < first {
			last = first
		}
		out = append(out, [2]int{first, last})
		first = last + 1
		cursor += per
	}
	return out
}

// attachReplicas makes each replica replicate its master, once it knows
// the master as one.
func (c *Cluster) attachReplicas(ctx context.Context, admins []*redis.Client, spec ClusterSpec) error {
	if spec.Replicas == 0 {
		return nil
	}
	ids := make([]string, len(c.Masters))
	for i := range c.Masters {
		id, err := admins[i].Do(ctx, "cluster", "myid").Text()
		if err != nil {
			return fmt.Errorf("CLUSTER MYID on %s: %w", c.Masters[i].Addr, err)
		}
		ids[i] = id
	}
	for j, r := range c.Replicas {
		master := j / spec.Replicas
		admin := admins[len(c.Masters)+j]
		err := poll(ctx, "replica "+r.Addr+" knowing its master", func() error {
			return admin.Do(ctx, "cluster", "replicate", ids[master]).Err()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// allKnown checks that every node knows total nodes, none of them still
// in the handshake.
func allKnown(ctx context.Context, admins []*redis.Client, total int) error {
	for _, a := range admins {
		nodes, err := a.ClusterNodes(ctx).Result()
		if err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSpace(nodes), "\n")
		if len(lines) != total {
			return fmt.Errorf("%s knows %d of %d nodes", a.Options().Addr, len(lines), total)
		}
		if strings.Contains(nodes, "handshake") || strings.Contains(nodes, "noaddr") {
			return fmt.Errorf("%s is still shaking hands", a.Options().Addr)
		}
	}
	return nil
}

// allServed checks that every node says the cluster is ok with every slot
// served by the master that was given it, that every master lists its
// replicas, and that every replica has synced with its master.
func allServed(ctx context.Context, admins []*redis.Client, nodes []*Server, spec ClusterSpec) error {
	ranges := SlotRanges(spec.Masters)
	for i, a := range admins {
		info, err := a.ClusterInfo(ctx).Result()
		if err != nil {
			return err
		}
		f := ParseInfo(info)
		if f["cluster_state"] != "ok" || f["cluster_slots_ok"] != "16384" {
			return fmt.Errorf("%s: cluster_state %s, %s slots ok", nodes[i].Addr, f["cluster_state"], f["cluster_slots_ok"])
		}
		slots, err := a.ClusterSlots(ctx).Result()
		if err != nil {
			return err
		}
		if err := slotsAsGiven(slots, ranges, nodes[:spec.Masters], spec.Replicas); err != nil {
			return fmt.Errorf("%s: %w", nodes[i].Addr, err)
		}
		if i >= spec.Masters {
			repl, err := a.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			if s := ParseInfo(repl)["master_link_status"]; s != "up" {
				return fmt.Errorf("replica %s: master link %s", nodes[i].Addr, s)
			}
		}
	}
	return nil
}

// slotsAsGiven checks a CLUSTER SLOTS reply against the ranges given to
// masters, each with replicas replicas.
func slotsAsGiven(slots []redis.ClusterSlot, ranges [][2]int, masters []*Server, replicas int) error {
	if len(slots) != len(ranges) {
		return fmt.Errorf("%d slot ranges, want %d", len(slots), len(ranges))
	}
	for _, s := range slots {
		i := -1
		for k, r := range ranges {
			if s.Start == r[0] && s.End == r[1] {
				i = k
			}
		}
		switch {
		case i < 0:
			return fmt.Errorf("slots %d-%d were not given to any master", s.Start, s.End)
		case len(s.Nodes) == 0 || s.Nodes[0].Addr != masters[i].Addr:
			return fmt.Errorf("slots %d-%d are not served by %s", s.Start, s.End, masters[i].Addr)
		case len(s.Nodes)-1 != replicas:
			return fmt.Errorf("slots %d-%d have %d replicas, want %d", s.Start, s.End, len(s.Nodes)-1, replicas)
		}
	}
	return nil
}

// poll calls check every clusterPoll until it succeeds or ctx ends; the
// error then says what was awaited and what check said last.
func poll(ctx context.Context, what string, check func() error) error {
	for {
		err := check()
		if err == nil {
			return nil
		}
		t := time.NewTimer(clusterPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("waited in vain for %s (last: %v)", what, err)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// lookupServer finds the redis-server binary: o.ServerPath, or PATH.
func lookupServer(o Options) (string, error) {
	if o.ServerPath != "" {
		return o.ServerPath, nil
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", ErrNoServer
	}
	return p, nil
}
