package redisenv

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Redirections counts the MOVED and ASK replies a cluster's nodes gave
// rlbench's calls: each one a call sent to a node that no longer (MOVED)
// or not yet (ASK, during a slot's migration) serves the key, which the
// client then followed to the right node.
type Redirections struct {
	Moved atomic.Int64
	Ask   atomic.Int64
}

// RedirectCounts is a reading of Redirections.
type RedirectCounts struct {
	Moved, Ask int64
}

// Sub is the change from before to c.
func (c RedirectCounts) Sub(before RedirectCounts) RedirectCounts {
	return RedirectCounts{Moved: c.Moved - before.Moved, Ask: c.Ask - before.Ask}
}

// Redirections reads how many MOVED and ASK replies the cluster's nodes
// have given so far; always zero for a single server.
func (e *Env) Redirections() RedirectCounts {
	if e.redirects == nil {
		return RedirectCounts{}
	}
	return RedirectCounts{Moved: e.redirects.Moved.Load(), Ask: e.redirects.Ask.Load()}
}

// clusterHook sits on every node client of a cluster client. It counts the
// MOVED and ASK replies the node gives, which the cluster client then
// follows. And it keeps the cluster client from sending a call again after
// its connection failed (a timeout, a reset, a refused dial): a call that
// timed out may have been decided already, and sending it again would
// decide twice and fold two calls into one latency, where a single
// server's client (MaxRetries -1) reports the failure. Redirections, and
// errors Redis answered, pass as they are.
type clusterHook struct {
	counts *Redirections
}

var _ redis.Hook = clusterHook{}

// DialHook implements redis.Hook.
func (h clusterHook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (h clusterHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil {
			return nil
		}
		if h.count(err) {
			return err
		}
		return finalize(err)
	}
}

// ProcessPipelineHook implements redis.Hook: it counts the redirections
// of a pipeline's commands (the cluster client sends ASKING and the
// redirected call as one).
func (h clusterHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if c.Err() != nil {
				h.count(c.Err())
			}
		}
		return err
	}
}

// count counts err when it is a redirection, and says whether it was one
// or another reply of Redis's.
func (h clusterHook) count(err error) (reply bool) {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	msg := re.Error()
	switch {
	case strings.HasPrefix(msg, "MOVED "):
		h.counts.Moved.Add(1)
	case strings.HasPrefix(msg, "ASK "):
		h.counts.Ask.Add(1)
	}
	return true
}

// finalError is a failed call that must not be sent again. It hides the
// error it carries from errors.Is and errors.As, which is how go-redis
// decides to retry; ErrorKind looks inside.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }

// finalize marks a call's connection failure as final. A closed pool (the
// cluster client dropped a node it no longer knows) never sent the call,
// and a context that ended is not retried anyway: both stay as they are.
func finalize(err error) error {
	if errors.Is(err, redis.ErrClosed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &finalError{err: err}
}

// unfinalize is the error a finalError carries, or err itself.
func unfinalize(err error) error {
	var f *finalError
	if errors.As(err, &f) {
		return f.err
	}
	return err
}
