package redisenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisconf"
)

// clientSettings are what every client rlbench opens is given, whether of
// one server or of a cluster: fidelity first. newClientSettings decides
// them in one place; setOn and setOnCluster hand them to go-redis.
type clientSettings struct {
	// timeout bounds each dial, read and write.
	timeout time.Duration
	// contextTimeout lets a call's context deadline bound it as well.
	contextTimeout bool
	// maxRetries is how often a failed call is sent again (-1: never);
	// dialerRetries how often a dial is tried.
	maxRetries, dialerRetries int
	// protocol is the RESP version; disableIdentity leaves out CLIENT
	// SETINFO when a connection opens.
	protocol        int
	disableIdentity bool
	// poolSize is how many connections the client may hold to each
	// server; 0 keeps what the address or go-redis says.
	poolSize int
	// dialer dials each connection (see plainDialer and tlsDialer).
	dialer func(ctx context.Context, network, addr string) (net.Conn, error)
}

// newClientSettings are the settings for a client by o, speaking TLS with
// tlsConfig when it is not nil.
func newClientSettings(o Options, tlsConfig *tls.Config) clientSettings {
	s := clientSettings{
		timeout:        o.timeout(),
		contextTimeout: true,
		// A retry would hide a failure and fold two calls into one
		// latency; a dial retried five times would make an unreachable
		// server take five dial timeouts to report.
		maxRetries:      -1,
		dialerRetries:   1,
		protocol:        2,
		disableIdentity: true,
		poolSize:        o.PoolSize,
	}
	if tlsConfig == nil {
		s.dialer = plainDialer(s.timeout)
	} else {
		s.dialer = tlsDialer(s.timeout, tlsConfig)
	}
	return s
}

// setOn gives the settings to a client of one server.
func (s clientSettings) setOn(ro *redis.Options) {
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = s.timeout, s.timeout, s.timeout
	ro.ContextTimeoutEnabled = s.contextTimeout
	ro.MaxRetries, ro.DialerRetries = s.maxRetries, s.dialerRetries
	ro.Protocol, ro.DisableIdentity = s.protocol, s.disableIdentity
	if s.poolSize > 0 {
		ro.PoolSize = s.poolSize
	}
	ro.Dialer = s.dialer
}

// setOnCluster gives the settings to a cluster client, which hands them on
// to its client of each node.
func (s clientSettings) setOnCluster(co *redis.ClusterOptions) {
	co.DialTimeout, co.ReadTimeout, co.WriteTimeout = s.timeout, s.timeout, s.timeout
	co.ContextTimeoutEnabled = s.contextTimeout
	co.MaxRetries, co.DialerRetries = s.maxRetries, s.dialerRetries
	co.Protocol, co.DisableIdentity = s.protocol, s.disableIdentity
	if s.poolSize > 0 {
		co.PoolSize = s.poolSize
	}
	co.Dialer = s.dialer
}

// CloneClient is a new client like c, to the same server with the same
// settings, changed by edit (a pool's size, a timeout; nil changes
// nothing). go-redis hands a client's options back as its defaults filled
// them in, and filling them in again reads some as unset: never retrying
// (-1, kept as 0) would become three retries, each sending again a call
// that timed out while the server may still run it, unseen by the caller
// and uncounted. CloneClient states those again as they were meant.
func CloneClient(c *redis.Client, edit func(o *redis.Options)) *redis.Client {
	o := *c.Options()
	restateDisabled(&o)
	if edit != nil {
		edit(&o)
	}
	return redis.NewClient(&o)
}

// restateDisabled turns back the options go-redis filled in from -1
// (none) to 0, which it would read as unset: no retries, no backoff
// between them, no read or write deadline.
func restateDisabled(o *redis.Options) {
	if o.MaxRetries == 0 {
		o.MaxRetries = -1
	}
	for _, d := range []*time.Duration{&o.MinRetryBackoff, &o.MaxRetryBackoff, &o.ReadTimeout, &o.WriteTimeout} {
		if *d == 0 {
			*d = -1
		}
	}
}

// trust sets on cfg which server certificates o trusts: with a CA file,
// only those its certificates signed; with TLSInsecure (test servers
// only), any.
func (o Options) trust(cfg *tls.Config) error {
	cfg.InsecureSkipVerify = o.TLSInsecure //nolint:gosec // opt-in for test servers
	if o.TLSCAFile == "" {
		return nil
	}
	pool, err := redisconf.LoadCA(o.TLSCAFile)
	if err != nil {
		return fmt.Errorf("redis TLS CA file %w", err)
	}
	cfg.RootCAs = pool
	return nil
}
