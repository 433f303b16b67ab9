package redisenv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisconf"
)

// ClusterInfo describes the Redis Cluster under test.
type ClusterInfo struct {
	// Masters counts the masters serving slots; Replicas every replica
	// node (of all masters together).
	Masters  int
	Replicas int
	// Nodes are the masters' addresses, in the order of the slots they
	// serve.
	Nodes []string
}

// clusterMaxRedirects is how many MOVED or ASK replies one call follows:
// a call caught in a slot's migration is redirected once or twice.
const clusterMaxRedirects = 5

// openPrivateCluster starts a private cluster and connects to it. A
// cluster has no embedded stand-in: without redis-server it fails.
func openPrivateCluster(ctx context.Context, o Options) (*Env, error) {
	path, err := lookupServer(o)
	if err != nil {
		return nil, fmt.Errorf("a private cluster needs redis-server: %w", err)
	}
	cl, err := StartCluster(ctx, path, *o.Cluster)
	if err != nil {
		return nil, err
	}
	env := &Env{Mode: Private, Addr: strings.Join(cl.Addrs(), ","), stop: cl.Stop}
	if err := env.connectCluster(ctx, &redis.ClusterOptions{Addrs: cl.Addrs(), OnConnect: guardOwned}, o); err != nil {
		_ = cl.Stop()
		return nil, err
	}
	return env, nil
}

// openExternalCluster connects to the cluster whose nodes o.ClusterAddrs
// name (any of them will do; the client learns the rest).
func openExternalCluster(ctx context.Context, o Options) (*Env, error) {
	copts, err := clusterOptions(o)
	if err != nil {
		return nil, err
	}
	env := &Env{Mode: External, Addr: strings.Join(copts.Addrs, ",")}
	if err := env.connectCluster(ctx, copts, o); err != nil {
		return nil, err
	}
	return env, nil
}

// clusterOptions builds go-redis cluster options from o, with the same
// checks, credentials and TLS as a single server's: each address is
// host:port, or a redis:// (rediss:// for TLS) URL with at most a user,
// and no message holds a password.
func clusterOptions(o Options) (*redis.ClusterOptions, error) {
	if err := redisconf.CheckClusterAddrs(o.ClusterAddrs); err != nil {
		return nil, fmt.Errorf("redis cluster address %w", err)
	}
	copts := &redis.ClusterOptions{Username: o.Username, Password: o.Password}
	useTLS := o.TLS
	for _, a := range o.ClusterAddrs {
		if !strings.Contains(a, "://") {
			copts.Addrs = append(copts.Addrs, a)
			continue
		}
		parsed, err := redis.ParseURL(a)
		if err != nil {
			return nil, fmt.Errorf("redis cluster address %q: %w", redisconf.Redact(a), err)
		}
		copts.Addrs = append(copts.Addrs, parsed.Addr)
		useTLS = useTLS || parsed.TLSConfig != nil
		if copts.Username == "" {
			copts.Username = parsed.Username
		}
	}
	if useTLS {
		// No server name: each node's is its own host (see tlsDialer).
		copts.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if err := o.trust(copts.TLSConfig); err != nil {
			return nil, err
		}
	}
	return copts, nil
}

// connectCluster opens the cluster client with the single server's
// fidelity-first settings (no retry of a failed call, see clusterHook)
// and reads what the result needs to know about every master. It fails
// within a few seconds, naming the addresses, when the cluster cannot be
// reached, and refuses a node older than MinVersion.
func (e *Env) connectCluster(ctx context.Context, copts *redis.ClusterOptions, o Options) error {
	newClientSettings(o, copts.TLSConfig).setOnCluster(copts)
	copts.MaxRedirects = clusterMaxRedirects
	// Keys go to their slot's master and keyless commands to any master;
	// what must reach every node, rlbench sends to every node itself.
	copts.DisableRoutingPolicies = true
	e.redirects = &Redirections{}
	hook := clusterHook{counts: e.redirects}
	copts.NewClient = func(opt *redis.Options) *redis.Client {
		c := redis.NewClient(opt)
		c.AddHook(hook)
		return c
	}
	cc := redis.NewClusterClient(copts)
	e.Client = cc

	pctx, cancel := context.WithTimeout(ctx, o.timeout()+time.Second)
	defer cancel()
	fail := func(err error) error {
		_ = cc.Close()
		e.Client = nil
		var refused redis.Error
		switch {
		case errors.As(err, &refused) && strings.Contains(err.Error(), "cluster support disabled"):
			return fmt.Errorf("redis at %s is a single server, not a node of a Redis Cluster (%w): name it as one (--redis %s, or redis.addr in the profile)",
				e.Addr, err, copts.Addrs[0])
		case errors.As(err, &refused):
			return fmt.Errorf("redis cluster at %s refused the connection: %w", e.Addr, err)
		}
		return fmt.Errorf("redis cluster at %s unreachable: %w", e.Addr, err)
	}
	if err := cc.ForEachMaster(pctx, func(ctx context.Context, c *redis.Client) error {
		if err := c.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("%s: %w", c.Options().Addr, err)
		}
		return nil
	}); err != nil {
		return fail(err)
	}
	if e.Mode == External {
		co := o
		co.Check = append(slices.Clone(o.Check), CmdClusterSlots)
		a, err := checkAccess(pctx, cc, co)
		if err == nil {
			err = a.writeRefusal(e.Addr)
		}
		if r, refused := a.Refusal(CmdClusterSlots); err == nil && refused {
			err = &RefusedError{Addr: e.Addr, Command: CmdClusterSlots, What: "a cluster client needs to route each key to its master", Reason: r.Reason}
		}
		if err != nil {
			_ = cc.Close()
			e.Client = nil
			return err
		}
		e.Access = a
		e.Missing = a.missingRemoval()
	}
	masters, err := Masters(pctx, cc)
	if err != nil {
		return fail(err)
	}
	info := &ClusterInfo{Masters: len(masters)}
	var versions []string
	for _, m := range masters {
		info.Nodes = append(info.Nodes, m.Addr)
		node := &Env{Client: m.Client, Access: e.Access}
		fields, err := node.describe(pctx)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", m.Addr, err))
		}
		if m := node.Missing; len(m) > 0 && !slices.ContainsFunc(e.Missing, func(x Missing) bool { return x.What == m[0].What }) {
			e.Missing = append(e.Missing, m...)
		}
		v := fields["redis_version"]
		if v == "" {
			continue
		}
		if err := CheckVersion(v); err != nil {
			_ = cc.Close()
			e.Client = nil
			return fmt.Errorf("redis cluster node %s: %w", m.Addr, err)
		}
		if !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
		if p := fields["maxmemory_policy"]; e.MaxmemoryPolicy == "" || e.MaxmemoryPolicy == "noeviction" {
			e.MaxmemoryPolicy = p
		}
	}
	var replicas atomic.Int64
	_ = cc.ForEachSlave(pctx, func(context.Context, *redis.Client) error { replicas.Add(1); return nil })
	info.Replicas = int(replicas.Load())
	e.Cluster = info
	slices.SortFunc(versions, compareVersions)
	if len(versions) == 0 {
		// No master would say (INFO and HELLO refused): named in
		// e.Missing.
		return nil
	}
	e.Version = versions[0]
	if len(versions) > 1 {
		e.Note = "the cluster's masters run different Redis versions: " + strings.Join(versions, ", ")
	}
	return nil
}

// readInfo reads sections of INFO from one server.
func readInfo(ctx context.Context, rdb redis.Cmdable, sections ...string) (map[string]string, error) {
	info, err := rdb.Info(ctx, sections...).Result()
	if err != nil {
		return nil, fmt.Errorf("INFO %s: %w", strings.Join(sections, " "), err)
	}
	return ParseInfo(info), nil
}

// Node is one master of the Redis under test: the server itself, or one
// master of a cluster, with a client of its own.
type Node struct {
	// Addr is host:port as the cluster announces it ("" when the client
	// does not say).
	Addr   string
	Client redis.UniversalClient
}

// Masters lists the servers that hold keys: rdb's one server, or every
// master of a cluster, ordered by the first slot each serves, each with
// the cluster client's own connection pool to it.
func Masters(ctx context.Context, rdb redis.UniversalClient) ([]Node, error) {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		n := Node{Client: rdb}
		if c, ok := rdb.(*redis.Client); ok {
			n.Addr = c.Options().Addr
		}
		return []Node{n}, nil
	}
	var mu sync.Mutex
	clients := map[string]*redis.Client{}
	if err := cc.ForEachMaster(ctx, func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		clients[c.Options().Addr] = c
		mu.Unlock()
		return nil
	}); err != nil {
		return nil, err
	}
	slots, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SLOTS: %w", err)
	}
	first := map[string]int{}
	for _, s := range slots {
		if len(s.Nodes) == 0 {
			continue
		}
		if f, ok := first[s.Nodes[0].Addr]; !ok || s.Start < f {
			first[s.Nodes[0].Addr] = s.Start
		}
	}
	out := make([]Node, 0, len(clients))
	for addr, c := range clients {
		out = append(out, Node{Addr: addr, Client: c})
	}
	slices.SortFunc(out, func(a, b Node) int {
		fa, oka := first[a.Addr]
		fb, okb := first[b.Addr]
		switch {
		case oka && okb && fa != fb:
			return fa - fb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Addr, b.Addr)
	})
	return out, nil
}

// eachMaster runs fn on rdb, or on every master of rdb when it is a
// cluster client, one after the other.
func eachMaster(ctx context.Context, rdb redis.Cmdable, fn func(redis.Cmdable) error) error {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return fn(rdb)
	}
	masters, err := Masters(ctx, cc)
	if err != nil {
		return err
	}
	for _, m := range masters {
		if err := fn(m.Client); err != nil {
			return fmt.Errorf("%s: %w", m.Addr, err)
		}
	}
	return nil
}

// Ping checks that rdb answers: the server, or every master of a cluster
// (the error names a master that does not).
func Ping(ctx context.Context, rdb redis.UniversalClient) error {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return rdb.Ping(ctx).Err()
	}
	return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		if err := c.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("master %s: %w", c.Options().Addr, err)
		}
		return nil
	})
}
