package probe

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// servers are the servers the probes read, each through a ProbeClient of
// its own: the one server, or every master of a cluster, in slot order.
// Figures of a cluster are read per master and added up: a run's keys,
// calls and memory are spread over all of them.
type servers struct {
	addrs   []string
	clients []*redisenv.ProbeClient
	cluster bool
}

// openServers finds the servers the run's keys live on.
func (t Target) openServers(ctx context.Context) (*servers, error) {
	nodes, err := redisenv.Masters(ctx, t.Env.Client)
	if err != nil {
		return nil, fmt.Errorf("listing the cluster's masters: %w", err)
	}
	s := &servers{cluster: t.Env.Cluster != nil}
	for _, n := range nodes {
		s.addrs = append(s.addrs, n.Addr)
		s.clients = append(s.clients, redisenv.NewProbeClient(n.Client))
	}
	return s, nil
}

// close closes the probe clients' fresh connections.
func (s *servers) close() {
	for _, c := range s.clients {
		c.Close()
	}
}

// each runs step on every server at once (step i on server i) and returns
// the first error, naming the master on a cluster.
func (s *servers) each(ctx context.Context, step func(i int, c redis.Cmdable) error) error {
	errs := make([]error, len(s.clients))
	var wg sync.WaitGroup
	for i, pc := range s.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pc.Do(ctx, func(c redis.Cmdable) error { return step(i, c) })
			if errs[i] != nil && s.cluster {
				errs[i] = fmt.Errorf("master %s: %w", s.addrs[i], errs[i])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// nodeReading is one reading of a cluster's masters: each one's key count
// (INFO keyspace), for the hot-node check.
type nodeReading struct {
	addrs []string
	keys  []int64
	err   error
}

// readNodes reads every master's key count; only on a cluster.
func readNodes(ctx context.Context, srv *servers, db int) nodeReading {
	nr := nodeReading{addrs: srv.addrs, keys: make([]int64, len(srv.addrs))}
	if !srv.cluster {
		return nr
	}
	nr.err = srv.each(ctx, func(i int, c redis.Cmdable) (err error) {
		nr.keys[i], err = redisenv.ReadKeyCount(ctx, c, db)
		return err
	})
	return nr
}

// clusterFigures are a run's figures per master: the change of each one's
// calls of the limiter's command, used_memory and key count between the
// readings before and after the run, and the redirections its calls met.
// It returns nil on a single server, and figures without per-master parts
// (with a note why) when the masters changed during the run.
func (p *Probe) clusterFigures(after nodeReading, memAfter []redisenv.MemoryReading, statsAfter []redisenv.CommandStats, redirects redisenv.RedirectCounts) *result.Cluster {
	if p.t.Env.Cluster == nil {
		return nil
	}
	d := redirects.Sub(p.redirects)
	c := &result.Cluster{HashTag: string(p.keys.Tag), Redirections: result.Redirections{Moved: d.Moved, Ask: d.Ask}}
	switch {
	case !slices.Equal(p.nodes.addrs, after.addrs):
		c.Note = fmt.Sprintf("the masters changed during the run (%v before, %v after): no figures per master", p.nodes.addrs, after.addrs)
		return c
	case p.nodes.err != nil || after.err != nil:
		c.Note = "no figures per master: " + firstError(p.nodes.err, after.err).Error()
		return c
	}
	for i, addr := range after.addrs {
		n := result.NodeFigures{Addr: addr, KeysDelta: after.keys[i] - p.nodes.keys[i]}
		if statsAfter != nil && p.statsErr == nil {
			s := statsAfter[i].Sub(p.stats[i]).PerDecision()
			n.Calls, n.UsecPerCall = max(s.Calls, 0), max(s.UsecPerCall(), 0)
		}
		if memAfter != nil && p.memErr == nil {
			n.UsedMemoryDeltaBytes = memAfter[i].WithoutClients() - p.before[i].WithoutClients()
		}
		c.Nodes = append(c.Nodes, n)
	}
	c.SetShares()
	return c
}

// sumMemory adds up the masters' memory readings.
func sumMemory(ms []redisenv.MemoryReading) redisenv.MemoryReading {
	var out redisenv.MemoryReading
	for _, m := range ms {
		out.UsedMemory += m.UsedMemory
		out.ClientBuffers += m.ClientBuffers
	}
	return out
}

// sumStats adds up the masters' command statistics, command by command.
func sumStats(ss []redisenv.CommandStats) redisenv.CommandStats {
	var out redisenv.CommandStats
	for _, s := range ss {
		if len(out) < len(s) {
			out = append(out, make(redisenv.CommandStats, len(s)-len(out))...)
		}
		for i, c := range s {
			out[i].Calls += c.Calls
			out[i].Usec += c.Usec
			out[i].FailedCalls += c.FailedCalls
		}
	}
	return out
}
