package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
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
	return fmt.Sprintf("redis at %s went away during %s: %d of %d %s failed, and PING now gets: %v", e.Addr, e.Run, e.Errors, e.Sent, plural.Noun(e.Sent, "call", "calls"), e.Err)
}

func (e *ServerGoneError) Unwrap() error { return e.Err }

// livenessAttempts is how many PINGs must all fail, livenessPause apart,
// before a server that failed calls counts as gone: one slow answer on a
// busy machine is not a dead server.
const (
	livenessAttempts = 3
	livenessPause    = 200 * time.Millisecond
)

// RefusedError ends a run that got no decision at all because the server
// refused every call for a reason of its own (its ACL, its role as a
// read-only replica, every client slot taken): the run measured nothing of
// the limiter, and the invocation ends as a runtime failure saying what
// Redis said, rather than a verdict on the limiter.
type RefusedError struct {
	// Addr is the server's address, without credentials.
	Addr string
	// Run is the run, as algorithm/scenario.
	Run string
	// Sent counts its calls.
	Sent int64
	// Refused counts those the server refused, when not every one was
	// (CheckRefusals); 0 when every one was.
	Refused int64
	// Said is what Redis answered.
	Said string
}

func (e *RefusedError) Error() string {
	if e.Refused > 0 && e.Refused < e.Sent {
		return fmt.Sprintf("redis at %s refused %d of %d calls of %s for a reason of its own, past the error budget: %s", e.Addr, e.Refused, e.Sent, e.Run, e.Said)
	}
	return fmt.Sprintf("redis at %s refused every call of %s (%d of %d): %s", e.Addr, e.Run, e.Sent, e.Sent, e.Said)
}

// CheckRefusals is, for a run the server answered, a *RefusedError when
// the calls it refused for a reason of its own (see redisenv.IsRefusal:
// its ACL, its role, its memory full under a policy that does not evict)
// are more than budget (a fraction) of the run's decisions: those calls
// measured nothing of the limiter, and they are the server's doing, not
// the limiter's. nil otherwise. failures are the run's failed calls by
// kind, most frequent first.
func CheckRefusals(t Target, run string, sent, errs int64, failures []result.ErrorCount, budget float64) error {
	var refused int64
	said := ""
	for _, f := range failures {
		if redisenv.IsRefusal(f.Message) {
			refused += f.Count
			if said == "" {
				said = f.Message
			}
		}
	}
	if refused == 0 || float64(refused) <= budget*float64(sent-errs) {
		return nil
	}
	return &RefusedError{Addr: t.addr(), Run: run, Sent: sent, Refused: refused, Said: said}
}

// CheckServer asks, after a run (algorithm/scenario) errs of whose sent
// calls failed, whether the server is still there. Any reply, even an
// error reply (a user without the right to PING), is a live server; only a
// connection that cannot be made or answered is a server gone, and so is
// another program's server that took a private server's port (a client of
// a private server refuses it at once). A run without errors was answered
// to its end and needs no check.
//
// A server that is there but gave the run no decision at all refused its
// calls itself when what it said is a refusal (see redisenv.IsRefusal):
// the run's most common error, or, when the calls only saw their
// connections break, what the server says to a fresh connection (every
// client slot taken). That is a *RefusedError. failures are the run's failed
// calls by kind, most frequent first.
func CheckServer(ctx context.Context, t Target, run string, errs, sent int64, failures []result.ErrorCount) error {
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
			if errs < sent {
				return nil
			}
			return refused(ctx, t, run, sent, failures)
		}
		last = err
		var notOwned *redisenv.NotOwnedError
		if errors.As(err, &notOwned) {
			break
		}
		// A server that closes every new connection at once may be
		// there, saying why to whoever listens (every client slot taken).
		gctx, cancel := context.WithTimeout(ctx, t.Timeout)
		said := redisenv.Greeting(gctx, t.Env.Client)
		cancel()
		if said != "" && redisenv.IsRefusal(said) {
			if errs < sent {
				return nil
			}
			return &RefusedError{Addr: t.addr(), Run: run, Sent: sent, Said: said + " (said to a new connection; the run's calls saw " + failureSeen(failures) + ")"}
		}
	}
	return &ServerGoneError{Addr: t.addr(), Run: run, Errors: errs, Sent: sent, Err: last}
}

// refused is the *RefusedError of a run whose sent calls all failed on a
// server that answers, when the server refused them; nil when the failures
// were the limiter's own.
func refused(ctx context.Context, t Target, run string, sent int64, failures []result.ErrorCount) error {
	if len(failures) == 0 {
		return nil
	}
	top := failures[0]
	if redisenv.IsRefusal(top.Message) {
		return &RefusedError{Addr: t.addr(), Run: run, Sent: sent, Said: top.Message}
	}
	switch top.Kind {
	case redisenv.KindEOF, redisenv.KindReset:
		gctx, cancel := context.WithTimeout(ctx, t.Timeout)
		defer cancel()
		if said := redisenv.Greeting(gctx, t.Env.Client); said != "" && redisenv.IsRefusal(said) {
			return &RefusedError{Addr: t.addr(), Run: run, Sent: sent, Said: said + " (said to a new connection; the run's calls saw " + failureSeen(failures) + ")"}
		}
	}
	return nil
}

// failureSeen is the run's most common failure, as a call saw it.
func failureSeen(failures []result.ErrorCount) string {
	if len(failures) == 0 {
		return "no error recorded"
	}
	return "only: " + failures[0].Message
}

// addr is the server's address, without credentials.
func (t Target) addr() string {
	addr := t.Env.Addr
	if c, ok := t.Env.Client.(*redis.Client); ok && addr == "" {
		addr = c.Options().Addr
	}
	return addr
}
