package redisenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisconf"
)

// Options say which Redis to use and how to talk to it.
type Options struct {
	// Addr is host:port, or a redis:// or rediss:// URL. Empty means start a
	// private server (or cluster, with Cluster).
	Addr string
	// ClusterAddrs name nodes of a Redis Cluster someone else runs (any of
	// them will do): host:port, or redis:// or rediss:// URLs without a
	// password or database. They take the place of Addr.
	ClusterAddrs []string
	// Sentinel names a primary that Redis Sentinel manages, found through
	// the Sentinels and followed across a failover. It takes the place of
	// Addr.
	Sentinel *SentinelSpec
	// Cluster asks for a private cluster of this shape instead of a
	// private server, when no address is given.
	Cluster *ClusterSpec
	// Username is the ACL user; empty means the default user.
	Username string
	// Password is the resolved secret (never from a profile file).
	Password string
	// DB is the database number.
	DB int
	// TLS turns on TLS; TLSCAFile adds a CA to trust; TLSInsecure skips
	// certificate verification (test servers only).
	TLS         bool
	TLSCAFile   string
	TLSInsecure bool
	// PoolSize is the number of connections the client may hold; size it to
	// the concurrency.
	PoolSize int
	// Timeout bounds each dial, read and write. Zero means 2s.
	Timeout time.Duration
	// ServerPath is the redis-server binary to start for a private server.
	// Empty means look it up on PATH.
	ServerPath string
	// NoEmbedded refuses the embedded fallback when no redis-server exists.
	NoEmbedded bool
	// RunPrefix is the prefix of every key of the invocation
	// (rlbench:<run-id>:): what the user may run is checked on a key under
	// it. Empty: a prefix of checks of its own.
	RunPrefix string
	// Check names commands (of accessChecks) to check besides those every
	// server rlbench did not start is checked for: those the faults a
	// profile schedules need.
	Check []string
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 2 * time.Second
}

func openExternal(ctx context.Context, o Options) (*Env, error) {
	ropts, addr, err := clientOptions(o)
	if err != nil {
		return nil, err
	}
	env := &Env{Mode: External, Addr: addr}
	if err := env.connect(ctx, ropts, o); err != nil {
		return nil, err
	}
	return env, nil
}

// clientOptions builds go-redis options from o, accepting host:port or a
// redis:// / rediss:// URL (checked by redisconf.CheckAddr, so no message
// ever holds a password), and returns the address without credentials.
func clientOptions(o Options) (*redis.Options, string, error) {
	if err := redisconf.CheckAddr(o.Addr); err != nil {
		return nil, "", fmt.Errorf("redis address %w", err)
	}
	ropts := &redis.Options{Addr: o.Addr}
	if strings.Contains(o.Addr, "://") {
		parsed, err := redis.ParseURL(o.Addr)
		if err != nil {
			return nil, "", fmt.Errorf("redis address %q: %w", redisconf.Redact(o.Addr), err)
		}
		ropts = parsed
	}
	if o.Username != "" {
		ropts.Username = o.Username
	}
	if o.Password != "" {
		ropts.Password = o.Password
	}
	if o.DB != 0 {
		ropts.DB = o.DB
	}
	if o.TLS && ropts.TLSConfig == nil {
		host, _, _ := net.SplitHostPort(ropts.Addr)
		ropts.TLSConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	if ropts.TLSConfig != nil {
		if err := o.trust(ropts.TLSConfig); err != nil {
			return nil, "", err
		}
	}
	return ropts, ropts.Addr, nil
}
