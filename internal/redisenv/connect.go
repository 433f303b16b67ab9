package redisenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// connect opens the client with fidelity-first settings and reads what the
// result needs to know about the server. It fails within a few seconds, naming
// the address, when the server cannot be reached.
func (e *Env) connect(ctx context.Context, ropts *redis.Options, o Options) error {
	newClientSettings(o, ropts.TLSConfig).setOn(ropts)
	// Pipelines share the one pool, which a run opens before it is timed:
	// a pool of their own would dial inside the measurement, and hold
	// connections beyond the profile's concurrency.
	ropts.PipelinePoolSize = -1
	e.Client = redis.NewClient(ropts)
	return e.ready(ctx, o)
}

// ready checks that the server e.Client reaches answers, learns what the
// user may run there, and reads what the result needs to know of it.
func (e *Env) ready(ctx context.Context, o Options) error {

	pctx, cancel := context.WithTimeout(ctx, o.timeout()+time.Second)
	defer cancel()
	err := e.Client.Ping(pctx).Err()
	if err != nil {
		plain, db, said := false, 0, ""
		if c, ok := e.Client.(*redis.Client); ok {
			plain, db = c.Options().TLSConfig == nil, c.Options().DB
		}
		if k := ErrorKind(err); k == KindEOF || k == KindReset {
			// A server that refuses a client says why as it accepts the
			// connection, then closes it (protected mode, every client
			// slot taken): a client that writes first sees a reset.
			said = Greeting(ctx, e.Client)
		}
		_ = e.Client.Close()
		e.Client = nil
		// A server that answered (a wrong password, an unknown user) is
		// reachable; say what it said rather than blame the network.
		var refused redis.Error
		if errors.As(err, &refused) {
			if code := replyCode(err.Error()); code == "NOAUTH" || code == "WRONGPASS" {
				return fmt.Errorf("redis at %s refused the connection: %w (the user and the variable that holds the password are given with --redis-username and --redis-password-env, or redis.username and redis.password_env)", e.Addr, err)
			}
			if strings.Contains(err.Error(), "DB index is out of range") {
				return fmt.Errorf("redis at %s refused the connection: %w (database %d was asked for, by redis.db or the URL's path: the server has fewer, as its databases setting says)", e.Addr, err, db)
			}
			return fmt.Errorf("redis at %s refused the connection: %w", e.Addr, err)
		}
		if said != "" {
			return fmt.Errorf("redis at %s refused the connection: %s (said to a new connection; the first command saw %v)", e.Addr, said, err)
		}
		if k := ErrorKind(err); plain && (k == KindEOF || k == KindReset) {
			// A TLS port closes a connection whose first bytes are no
			// TLS handshake.
			return fmt.Errorf("redis at %s unreachable: %w (the server closed the connection at the first command: if this port speaks TLS, name it rediss:// or set redis.tls; else the server, or a proxy before it, refuses this client)", e.Addr, err)
		}
		return fmt.Errorf("redis at %s unreachable: %w", e.Addr, err)
	}
	if e.Mode == Embedded {
		// The embedded server answers INFO for few sections; it has no
		// version or eviction policy worth recording.
		return nil
	}
	if e.Mode == External {
		if e.Access, err = checkAccess(pctx, e.Client, o); err == nil {
			err = e.Access.writeRefusal(e.Addr)
		}
		if err != nil {
			_ = e.Client.Close()
			e.Client = nil
			var refused *RefusedError
			if errors.As(err, &refused) {
				return err
			}
			return fmt.Errorf("redis at %s: %w", e.Addr, err)
		}
	}
	e.Missing = e.Access.missingRemoval()
	fields, err := e.describe(pctx)
	if err != nil {
		return fmt.Errorf("redis at %s: %w", e.Addr, err)
	}
	if fields["cluster_enabled"] == "1" {
		_ = e.Client.Close()
		e.Client = nil
		return fmt.Errorf("redis at %s is a node of a Redis Cluster: name it as one (--redis-cluster %s, or redis.cluster.addrs in the profile), "+
			"so that every key goes to the master that serves it", e.Addr, e.Addr)
	}
	e.Version = fields["redis_version"]
	e.MaxmemoryPolicy = fields["maxmemory_policy"]
	if e.Version == "" {
		return nil
	}
	if err := CheckVersion(e.Version); err != nil {
		return fmt.Errorf("redis at %s: %w", e.Addr, err)
	}
	return nil
}

// QuietClientLogs stops go-redis from logging: rlbench counts failed calls
// in its result, and the client's own log lines would only garble the
// progress display.
func QuietClientLogs() { redis.SetLogger(discardLogger{}) }

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}
