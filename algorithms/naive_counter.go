package algorithms

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// NaiveCounterName is the registry name of NaiveCounter.
const NaiveCounterName = "naive_counter"

// NaiveCounter is a fixed window done wrong on purpose, as a negative
// control for the audit: it reads the count (GET), decides in Go, and only
// then counts the request (INCR, plus the window's expiry). Between the
// read and the write other requests read the same count, so concurrent
// requests are admitted past the limit: the time-of-check to time-of-use
// race. It is never run unless a profile names it.
type NaiveCounter struct {
	policy Policy
	rdb    Redis
}

var (
	_ Auditable = (*NaiveCounter)(nil)
	_ Windowed  = (*NaiveCounter)(nil)
)

// NewNaiveCounter binds the naive counter to rdb for policy p.
func NewNaiveCounter(rdb Redis, p Policy) *NaiveCounter {
	return &NaiveCounter{policy: p, rdb: rdb}
}

// Name implements Limiter.
func (n *NaiveCounter) Name() string { return NaiveCounterName }

// Policy implements Limiter.
func (n *NaiveCounter) Policy() Policy { return n.policy }

// Load implements Limiter; there is no script to load.
func (n *NaiveCounter) Load(context.Context) error { return nil }

// NoScriptReloads implements Limiter; there is no script to lose.
func (n *NaiveCounter) NoScriptReloads() int64 { return 0 }

// Allow implements Limiter in two round trips: TIME, GET and PTTL together,
// then, when the count read was under the limit, INCR and PEXPIREAT NX
// together. Its decision carries the TIME of the read.
func (n *NaiveCounter) Allow(ctx context.Context, key string) (Decision, error) {
	var now *redis.TimeCmd
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, _ = n.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		now, get, ttl = p.Time(ctx), p.Get(ctx, key), p.PTTL(ctx, key)
		return nil
	})
	if err := errors.Join(now.Err(), ttl.Err()); err != nil {
		return Decision{}, fmt.Errorf("%s: %w", NaiveCounterName, err)
	}
	count, err := get.Int64()
	if errors.Is(err, redis.Nil) {
		count, err = 0, nil
	}
	if err != nil {
		return Decision{}, fmt.Errorf("%s: GET: %w", NaiveCounterName, err)
	}
	nowUs := now.Val().UnixMicro()
	if count >= n.policy.Limit {
		return Decision{Remaining: "0", RetryAfter: max(ttl.Val(), 0) + time.Millisecond, ServerNowMicros: nowUs}, nil
	}
	expireMs := nowUs/1000 + n.policy.WindowMillis()
	if _, err := n.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, key)
		p.Do(ctx, "PEXPIREAT", key, expireMs, "NX")
		return nil
	}); err != nil {
		return Decision{}, fmt.Errorf("%s: INCR: %w", NaiveCounterName, err)
	}
	return Decision{Allowed: true, Remaining: strconv.FormatInt(n.policy.Limit-count-1, 10), ServerNowMicros: nowUs}, nil
}

// Model implements Auditable with the fixed window's model: that is the
// algorithm the naive counter means to be, and fails to be.
func (n *NaiveCounter) Model() Model {
	return NewFixedWindow(nil, n.policy).Model()
}

// Bound implements Auditable with the fixed window's bound, the promise
// the naive counter breaks under concurrency.
func (n *NaiveCounter) Bound(d time.Duration) int64 {
	return fixedWindowBound(n.policy, d)
}

// WindowEnd implements Windowed: the window expires like the fixed
// window's.
func (n *NaiveCounter) WindowEnd(openedMicros int64) int64 {
	return fixedWindowEnd(n.policy, openedMicros)
}
