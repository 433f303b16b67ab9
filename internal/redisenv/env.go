// Package redisenv is how rlbench gets a Redis: a private redis-server it
// starts and stops itself, an embedded in-process server when no
// redis-server exists, or a server someone else runs. It also holds the
// probes that read the server's own figures.
package redisenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

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

// Options say which Redis to use and how to talk to it.
type Options struct {
	// Addr is host:port, or a redis:// or rediss:// URL. Empty means start a
	// private server.
	Addr string
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
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 2 * time.Second
}

// Env is a connected Redis with what rlbench needs to know about it.
type Env struct {
	// Client is shared by every goroutine of a run.
	Client *redis.Client
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

	stop func() error
}

// Owned reports whether rlbench started this server, and so may reset its
// statistics or flush it.
func (e *Env) Owned() bool { return e.Mode != External }

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
	if o.Addr == "" {
		return openPrivate(ctx, o)
	}
	return openExternal(ctx, o)
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
// redis:// / rediss:// URL, and returns the address without credentials.
func clientOptions(o Options) (*redis.Options, string, error) {
	ropts := &redis.Options{Addr: o.Addr}
	if strings.Contains(o.Addr, "://") {
		u, err := url.Parse(o.Addr)
		if err != nil {
			return nil, "", fmt.Errorf("redis address %q: %w", redactURL(o.Addr), err)
		}
		if _, ok := u.User.Password(); ok {
			return nil, "", fmt.Errorf("redis address %s carries a password; pass it through the environment variable named by redis.password_env instead", redactURL(o.Addr))
		}
		parsed, err := redis.ParseURL(o.Addr)
		if err != nil {
			return nil, "", fmt.Errorf("redis address %q: %w", redactURL(o.Addr), err)
		}
		ropts = parsed
	} else if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return nil, "", fmt.Errorf("redis address %q is not host:port or a redis:// URL", o.Addr)
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
		ropts.TLSConfig.InsecureSkipVerify = o.TLSInsecure //nolint:gosec // opt-in for test servers
		if o.TLSCAFile != "" {
			pem, err := os.ReadFile(o.TLSCAFile)
			if err != nil {
				return nil, "", fmt.Errorf("redis TLS CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, "", fmt.Errorf("redis TLS CA file %s holds no PEM certificate", o.TLSCAFile)
			}
			ropts.TLSConfig.RootCAs = pool
		}
	}
	return ropts, ropts.Addr, nil
}

// redactURL hides the password of a URL so it never reaches a message.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// connect opens the client with fidelity-first settings and reads what the
// result needs to know about the server. It fails within a few seconds, naming
// the address, when the server cannot be reached.
func (e *Env) connect(ctx context.Context, ropts *redis.Options, o Options) error {
	ropts.DialTimeout = o.timeout()
	ropts.ReadTimeout = o.timeout()
	ropts.WriteTimeout = o.timeout()
	ropts.ContextTimeoutEnabled = true
	// A retry would hide a failure and fold two calls into one latency; a
	// dial retried five times would make an unreachable server take five
	// dial timeouts to report.
	ropts.MaxRetries = -1
	ropts.DialerRetries = 1
	ropts.DisableIdentity = true
	ropts.Protocol = 2
	if o.PoolSize > 0 {
		ropts.PoolSize = o.PoolSize
	}
	if ropts.TLSConfig == nil {
		ropts.Dialer = plainDialer(ropts.DialTimeout)
	}
	e.Client = redis.NewClient(ropts)

	pctx, cancel := context.WithTimeout(ctx, o.timeout()+time.Second)
	defer cancel()
	if err := e.Client.Ping(pctx).Err(); err != nil {
		_ = e.Client.Close()
		e.Client = nil
		// A server that answered (a wrong password, an unknown user) is
		// reachable; say what it said rather than blame the network.
		var refused redis.Error
		if errors.As(err, &refused) {
			return fmt.Errorf("redis at %s refused the connection: %w", e.Addr, err)
		}
		return fmt.Errorf("redis at %s unreachable: %w", e.Addr, err)
	}
	if e.Mode == Embedded {
		// The embedded server answers INFO for few sections; it has no
		// version or eviction policy worth recording.
		return nil
	}
	fields := map[string]string{}
	for _, section := range []string{"server", "memory"} {
		info, err := e.Client.Info(pctx, section).Result()
		if err != nil {
			return fmt.Errorf("redis at %s: INFO %s: %w", e.Addr, section, err)
		}
		for k, v := range ParseInfo(info) {
			fields[k] = v
		}
	}
	e.Version = fields["redis_version"]
	e.MaxmemoryPolicy = fields["maxmemory_policy"]
	{
		if err := CheckVersion(e.Version); err != nil {
			return fmt.Errorf("redis at %s: %w", e.Addr, err)
		}
	}
	return nil
}

// plainDialer dials TCP and hides the connection's file descriptor from
// go-redis. go-redis health-checks every connection it takes from the pool
// with a non-blocking peek (a system call per request) when it can reach the
// descriptor; on a small machine that costs a measurable share of the
// throughput rlbench is trying to measure. A connection that died while idle
// then fails its next call, which is counted as an error like any other.
func plainDialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return opaqueConn{c}, nil
	}
}

// opaqueConn is a net.Conn that does not expose syscall.Conn.
type opaqueConn struct{ net.Conn }

// MinVersion is the oldest Redis the limiters run on: the scripts call TIME
// before writing, which needs script effects replication (the default since
// 5.0), and the fixed window reads PEXPIRETIME (7.0).
const MinVersion = "7.0.0"

// CheckVersion refuses a server older than MinVersion, clearly.
func CheckVersion(v string) error {
	if v == "" {
		return errors.New("server did not report redis_version")
	}
	if compareVersions(v, MinVersion) < 0 {
		return fmt.Errorf("Redis %s is too old: rlbench's scripts need %s or newer", v, MinVersion)
	}
	return nil
}

// compareVersions compares dotted numeric versions ("7.0.15" vs "5.0.0").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ParseInfo splits an INFO reply into its key: value fields.
func ParseInfo(info string) map[string]string {
	out := make(map[string]string)
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// OnThisMachine reports whether the server shares this machine's CPUs: a
// private or embedded server, or an address on a loopback interface.
func (e *Env) OnThisMachine() bool {
	if e.Mode != External {
		return true
	}
	host, _, err := net.SplitHostPort(e.Addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ShareCPUs leaves one CPU to a Redis on this machine by lowering GOMAXPROCS
// to NumCPU-1, unless the user set GOMAXPROCS themselves or the machine has
// a single CPU: a load generator that competes with the server for cores
// measures its own contention. It returns the GOMAXPROCS in effect.
func ShareCPUs(e *Env) int {
	if e.Mode == Embedded || !e.OnThisMachine() || os.Getenv("GOMAXPROCS") != "" || runtime.NumCPU() < 2 {
		return runtime.GOMAXPROCS(0)
	}
	runtime.GOMAXPROCS(runtime.NumCPU() - 1)
	return runtime.NumCPU() - 1
}
