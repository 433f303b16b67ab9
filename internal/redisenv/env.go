// Package redisenv is how rlbench gets a Redis: a private redis-server it
// starts and stops itself, an embedded in-process server when no
// redis-server exists, or a server someone else runs. It also holds the
// probes that read the server's own figures.
package redisenv

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

// Mode says where the Redis under test came from.
type Mode string

const (
	// Private is a redis-server rlbench started on a loopback port and owns.
	Private Mode = "private"
	// Embedded is an in-process stand-in (miniredis): its latency and memory
	// are not Redis figures.
	Embedded Mode = "embedded"
	// External is a server someone else runs; rlbench only touches its own
	// keys there.
	External Mode = "external"
)

// Env is a connected Redis with what rlbench needs to know about it.
type Env struct {
	// Client is shared by every goroutine of a run: a *redis.Client for a
	// single server, a *redis.ClusterClient for a Redis Cluster. Whatever
	// must reach every server of a cluster (key scans, INFO, statistics)
	// goes through Masters instead.
	Client redis.UniversalClient
	// Mode says where the server came from.
	Mode Mode
	// Addr is host:port, without credentials.
	Addr string
	// Version is the server's redis_version ("" when it does not say).
	Version string
	// MaxmemoryPolicy is the eviction policy; anything but noeviction can
	// silently reset limiter state under memory pressure.
	MaxmemoryPolicy string
	// Note explains anything a reader of the figures must know, such as
	// the embedded server not being Redis.
	Note string
	// Server is the redis-server process rlbench started (Private mode
	// only), which scheduled faults stop, freeze and start again.
	Server *Server
	// Cluster describes the Redis Cluster under test; nil for a single
	// server.
	Cluster *ClusterInfo
	// Access is what the user may run on a server rlbench did not start,
	// checked as rlbench connected; nil (everything) on its own servers.
	Access *Access
	// Missing names what rlbench could not learn about the server (its
	// version, its eviction policy) because the user may not ask.
	Missing []Missing
	// Primaries follows the primary of a server named through Sentinel
	// (nil for any other): the switches a failover made during a run.
	Primaries *Primaries

	stop      func() error
	redirects *Redirections
}

// Close closes the client and stops a server rlbench started.
func (e *Env) Close() error {
	var errs []error
	if e.Client != nil {
		errs = append(errs, e.Client.Close())
	}
	if e.stop != nil {
		errs = append(errs, e.stop())
	}
	return errors.Join(errs...)
}

// Open returns the Redis the options describe: a server at Addr, or a private
// redis-server, or (when none is installed) an embedded one.
func Open(ctx context.Context, o Options) (*Env, error) {
	switch {
	case o.Sentinel != nil:
		return openSentinel(ctx, o)
	case len(o.ClusterAddrs) > 0:
		return openExternalCluster(ctx, o)
	case o.Cluster != nil:
		return openPrivateCluster(ctx, o)
	case o.Addr == "":
		return openPrivate(ctx, o)
	}
	return openExternal(ctx, o)
}

// OnThisMachine reports whether the server shares this machine's CPUs: a
// private or embedded server, or an address on a loopback interface.
func (e *Env) OnThisMachine() bool {
	if e.Mode != External {
		return true
	}
	addrs := []string{e.Addr}
	if e.Cluster != nil {
		addrs = e.Cluster.Nodes
	}
	for _, a := range addrs {
		if !loopback(a) {
			return false
		}
	}
	return len(addrs) > 0
}

// loopback reports whether host:port names this machine.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
