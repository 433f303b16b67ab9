package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// ServerGoneError ends a run whose server stopped answering before the
// run's schedule ended (killed, crashed, or cut off): the run is kept,
// marked incomplete, and the invocation ends as a runtime failure.
type ServerGoneError struct {
	// Addr is the server's address, without credentials.
	Addr string
	// Run is the run it went away during, as algorithm/scenario.
	Run string
	// Errors and Sent count the run's failed calls and all its calls.
	Errors, Sent int64
	// Err is what the last attempt to reach it got.
	Err error
}

func (e *ServerGoneError) Error() string {
	return fmt.Sprintf("redis at %s went away during %s: %d of %d calls failed, and PING now gets: %v", e.Addr, e.Run, e.Errors, e.Sent, e.Err)
}

func (e *ServerGoneError) Unwrap() error { return e.Err }

// livenessAttempts is how many PINGs must all fail, livenessPause apart,
// before a server that failed calls counts as gone: one slow answer on a
// busy machine is not a dead server.
const (
	livenessAttempts = 3
	livenessPause    = 200 * time.Millisecond
)

// CheckServer asks, after a run (algorithm/scenario) errs of whose sent
// calls failed, whether the server is still there. Any reply, even an
// error reply (a user without the right to PING), is a live server; only a
// connection that cannot be made or answered is a server gone, and so is
// another program's server that took a private server's port (a client of
// a private server refuses it at once). A run without errors was answered
// to its end and needs no check.
func CheckServer(ctx context.Context, t Target, run string, errs, sent int64) error {
	if errs == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	var last error
	for i := 0; i < livenessAttempts; i++ {
		if i > 0 {
			time.Sleep(livenessPause)
		}
		pctx, cancel := context.WithTimeout(ctx, t.Timeout)
		// The pool's connections may all have died with the server: a
		// broken one is tried again on a fresh connection.
		pc := redisenv.NewProbeClient(t.Env.Client)
		err := pc.Do(pctx, func(c redis.Cmdable) error {
			u, ok := c.(redis.UniversalClient)
			if !ok {
				return c.Ping(pctx).Err()
			}
			return redisenv.Ping(pctx, u)
		})
		pc.Close()
		cancel()
		var reply redis.Error
		if err == nil || errors.As(err, &reply) {
			return nil
		}
		last = err
		var notOwned *redisenv.NotOwnedError
		if errors.As(err, &notOwned) {
			break
		}
	}
	addr := t.Env.Addr
	if c, ok := t.Env.Client.(*redis.Client); ok && addr == "" {
		addr = c.Options().Addr
	}
	return &ServerGoneError{Addr: addr, Run: run, Errors: errs, Sent: sent, Err: last}
}
