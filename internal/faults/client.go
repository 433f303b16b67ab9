package faults

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
)

// caller is the limiter as the service that calls it uses it: each call
// bounded by the client's timeout, a failed call tried again after a
// backoff that doubles, up to the client's retries, and, when every call
// failed, the error policy deciding in Redis's place. It counts every call
// it makes, and tells the audit about failed calls that may have run.
type caller struct {
	algorithms.Limiter
	client *plan.Client
	policy plan.ErrorPolicy
	clock  event.Clock
	keys   event.KeyScheme
	rec    *recorder
	local  *localLimiter
}

var _ algorithms.Limiter = (*caller)(nil)

// newCaller wraps lim for a run whose keys keys names; client may be nil
// (each call made once, an error only counted).
func newCaller(lim algorithms.Limiter, client *plan.Client, policy plan.ErrorPolicy, clock event.Clock, keys event.KeyScheme, rec *recorder) *caller {
	c := &caller{Limiter: lim, client: client, policy: policy, clock: clock, keys: keys, rec: rec}
	if policy == plan.FailLocal {
		c.local = newLocalLimiter(lim)
	}
	return c
}

// Allow decides one request as the caller would.
func (c *caller) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	tries := 1
	var timeout, backoff time.Duration
	if c.client != nil {
		tries += c.client.Retries
		timeout, backoff = c.client.Timeout, c.client.Backoff
	}
	var err error
	n := 0
	for n < tries {
		if n > 0 && backoff > 0 {
			if c.clock.Sleep(ctx, backoff<<(n-1)) != nil {
				break
			}
		}
		n++
		actx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, timeout)
		}
		sent := c.clock.Now()
		var d algorithms.Decision
		d, err = c.Limiter.Allow(actx, key)
		cancel()
		done := c.clock.Now()
		if err == nil {
			c.rec.calls(done, int64(n))
			return d, nil
		}
		c.rec.failedCall(c.identity(key), sent, done, d, err)
		if !retryable(err) {
			break
		}
	}
	c.rec.calls(c.clock.Now(), int64(n))
	out := &event.PolicyDecision{Err: err, Attempts: n, Policy: c.policy}
	switch c.policy {
	case plan.FailOpen:
		out.Decided, out.Allowed = true, true
	case plan.FailClosed:
		out.Decided = true
	case plan.FailLocal:
		out.Decided, out.Allowed = true, c.local.allow(key, c.clock.Now())
	}
	return algorithms.Decision{}, out
}

// identity reads the identity back out of a key the run built.
func (c *caller) identity(key string) uint64 {
	id, _ := c.keys.Identity(key)
	return id
}

// retryable reports whether a call that failed with err is worth trying
// again: the connection failed or timed out, or the server said it cannot
// answer now (loading its data, busy with a script, read-only while a
// failover goes on). An answer that says the call is wrong (NOPERM, a
// script error) would fail again.
func retryable(err error) bool {
	switch redisenv.ErrorKind(err) {
	case redisenv.KindTimeout, redisenv.KindRefused, redisenv.KindEOF, redisenv.KindReset,
		"LOADING", "BUSY", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN":
		return true
	case redisenv.KindOther:
		var reply redis.Error
		return !errors.As(err, &reply)
	}
	return false
}

// localLimiter is the in-process limiter the local policy falls back to:
// the algorithm's own reference model for each identity (a token bucket
// of the same policy for a limiter without one), on this machine's clock,
// with state of its own that starts empty at an identity's first fallback.
type localLimiter struct {
	newModel func() algorithms.Model
	mu       sync.Mutex
	models   map[string]algorithms.Model
}

func newLocalLimiter(lim algorithms.Limiter) *localLimiter {
	l := &localLimiter{models: map[string]algorithms.Model{}}
	if a, ok := lim.(algorithms.Auditable); ok {
		l.newModel = a.Model
	} else {
		tb := algorithms.NewTokenBucket(nil, lim.Policy())
		l.newModel = tb.Model
	}
	return l
}

func (l *localLimiter) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.models[key]
	if !ok {
		m = l.newModel()
		l.models[key] = m
	}
	return m.Allow(now.UnixMicro())
}

// redial is the limiter's connection to Redis as the caller holds it: a
// client that the session replaces with a fresh one whenever a fault
// replaced the server. A go-redis pool that failed a pool's worth of dials
// (while a killed server was down) stops dialling for up to a second after
// the server is back; the caller's own timeouts, retries and backoff, not
// that, should say how fast it reconnects.
type redial struct {
	cur atomic.Pointer[redis.Client]
	mu  sync.Mutex
	old []*redis.Client
}

var _ algorithms.Redis = (*redial)(nil)

func newRedial(rdb *redis.Client) *redial {
	r := &redial{}
	r.cur.Store(rdb)
	return r
}

// client is the client calls go to now.
func (r *redial) client() *redis.Client { return r.cur.Load() }

// renew sends calls to rdb from now on; the replaced client is closed by
// close, as calls may still be in flight on it.
func (r *redial) renew(rdb *redis.Client) {
	r.mu.Lock()
	r.old = append(r.old, r.cur.Swap(rdb))
	r.mu.Unlock()
}

// close closes every client it had.
func (r *redial) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range append(r.old, r.cur.Load()) {
		_ = c.Close()
	}
	r.old = nil
}

func (r *redial) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return r.client().Eval(ctx, script, keys, args...)
}

func (r *redial) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return r.client().EvalSha(ctx, sha1, keys, args...)
}

func (r *redial) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return r.client().EvalRO(ctx, script, keys, args...)
}

func (r *redial) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return r.client().EvalShaRO(ctx, sha1, keys, args...)
}

func (r *redial) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	return r.client().ScriptExists(ctx, hashes...)
}

func (r *redial) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	return r.client().ScriptLoad(ctx, script)
}

func (r *redial) FunctionLoad(ctx context.Context, code string) *redis.StringCmd {
	return r.client().FunctionLoad(ctx, code)
}

func (r *redial) FunctionList(ctx context.Context, q redis.FunctionListQuery) *redis.FunctionListCmd {
	return r.client().FunctionList(ctx, q)
}

func (r *redial) FunctionDelete(ctx context.Context, libName string) *redis.StringCmd {
	return r.client().FunctionDelete(ctx, libName)
}

func (r *redial) FCall(ctx context.Context, function string, keys []string, args ...any) *redis.Cmd {
	return r.client().FCall(ctx, function, keys, args...)
}

func (r *redial) Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error) {
	return r.client().Pipelined(ctx, fn)
}

func (r *redial) TxPipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error) {
	return r.client().TxPipelined(ctx, fn)
}
