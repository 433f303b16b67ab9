package algorithms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Registry names of the two forms of FixedWindowNX.
const (
	FixedWindowNXName          = "fixed_window_nx"
	FixedWindowNXPipelinedName = "fixed_window_nx_pipelined"
)

// FixedWindowNX is the fixed window without Lua, as services write it when
// scripts are not wanted: INCR counts the request (and creates the key on
// an identity's first hit), EXPIRE key ttl NX sets the window's expiry
// only when the key has none, so only the first request of a window sets
// it, and PTTL says how long the window has left, for the retry hint. A
// window that is not a whole number of seconds uses PEXPIRE ... NX. NX
// needs Redis 7.0.
//
// The transactional form sends the three commands in one MULTI/EXEC, so
// they run together. The pipelined form sends them in one round trip
// without MULTI, as many services do: other clients' commands may run in
// between, and a client that dies after INCR leaves a key without a TTL
// until the identity's next request sets one (NX then finds none).
//
// Its reply carries no server time (there is no script to read TIME in),
// so the audit judges it by the fixed window's bound on the client's
// clock. Its reference model, for callers that know the server time of
// each INCR, is the fixed window's.
type FixedWindowNX struct {
	name      string
	policy    Policy
	rdb       Redis
	pipelined bool
	// admitUpTo is the most counts admitted per window: the policy's limit.
	admitUpTo int64
}

var (
	_ Auditable       = (*FixedWindowNX)(nil)
	_ WindowProber    = (*FixedWindowNX)(nil)
	_ ReplyDescriber  = (*FixedWindowNX)(nil)
	_ ServerCommander = (*FixedWindowNX)(nil)
)

// NewFixedWindowNX binds the transactional form (MULTI/EXEC) to rdb for
// policy p.
func NewFixedWindowNX(rdb Redis, p Policy) *FixedWindowNX {
	return &FixedWindowNX{name: FixedWindowNXName, policy: p, rdb: rdb, admitUpTo: p.Limit}
}

// NewFixedWindowNXPipelined binds the pipelined form (no MULTI) to rdb for
// policy p.
func NewFixedWindowNXPipelined(rdb Redis, p Policy) *FixedWindowNX {
	return &FixedWindowNX{name: FixedWindowNXPipelinedName, policy: p, rdb: rdb, pipelined: true, admitUpTo: p.Limit}
}

// Name implements Limiter.
func (l *FixedWindowNX) Name() string { return l.name }

// Policy implements Limiter.
func (l *FixedWindowNX) Policy() Policy { return l.policy }

// Load implements Limiter; there is no script to load.
func (l *FixedWindowNX) Load(context.Context) error { return nil }

// NoScriptReloads implements Limiter; there is no script to lose.
func (l *FixedWindowNX) NoScriptReloads() int64 { return 0 }

// Pipelined reports whether this is the form without MULTI/EXEC.
func (l *FixedWindowNX) Pipelined() bool { return l.pipelined }

// ReplyFields implements ReplyDescriber: remaining and the retry hint, no
// server time.
func (l *FixedWindowNX) ReplyFields() ReplyFields {
	return ReplyFields{Remaining: true, RetryAfter: true}
}

// wholeSeconds reports whether the window is a whole number of seconds,
// so that EXPIRE (not PEXPIRE) sets it.
func (l *FixedWindowNX) wholeSeconds() bool { return l.policy.Window%time.Second == 0 }

// expireCommand is the command that sets the window's expiry.
func (l *FixedWindowNX) expireCommand() string {
	if l.wholeSeconds() {
		return "expire"
	}
	return "pexpire"
}

// ServerCommand implements ServerCommander: a decision is MULTI and EXEC
// (whose time includes the commands it runs), or INCR, the expiry and PTTL
// in the pipelined form.
func (l *FixedWindowNX) ServerCommand() string {
	if l.pipelined {
		return "incr+" + l.expireCommand() + "+pttl"
	}
	return "multi+exec"
}

// Allow implements Limiter: INCR, EXPIRE (or PEXPIRE) NX and PTTL in one
// round trip, in a transaction or not. A request is admitted while the
// count stays within the limit; a denial's retry hint is the window's
// remaining time, plus the millisecond the key lives through.
func (l *FixedWindowNX) Allow(ctx context.Context, key string) (Decision, error) {
	var incr *redis.IntCmd
	var expire *redis.BoolCmd
	var ttl *redis.DurationCmd
	fn := func(p redis.Pipeliner) error {
		incr = p.Incr(ctx, key)
		if l.wholeSeconds() {
			expire = p.ExpireNX(ctx, key, l.policy.Window)
		} else {
			expire = redis.NewBoolCmd(ctx, "pexpire", key, l.policy.WindowMillis(), "nx")
			_ = p.Process(ctx, expire)
		}
		ttl = p.PTTL(ctx, key)
		return nil
	}
	var err error
	if l.pipelined {
		_, err = l.rdb.Pipelined(ctx, fn)
	} else {
		_, err = l.rdb.TxPipelined(ctx, fn)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", l.name, err)
	}
	if err := errors.Join(incr.Err(), expire.Err(), ttl.Err()); err != nil {
		return Decision{}, fmt.Errorf("%s: %w", l.name, err)
	}
	count := incr.Val()
	if count <= l.admitUpTo {
		return Decision{Allowed: true, Remaining: strconv.FormatInt(l.policy.Limit-count, 10)}, nil
	}
	// PTTL is -2 when the key expired between INCR and PTTL: the next
	// window is already open.
	retry := time.Millisecond
	if left := ttl.Val(); left >= 0 {
		retry = left + time.Millisecond
	}
	return Decision{Remaining: "0", RetryAfter: retry}, nil
}

// Model implements Auditable: the fixed window's model, fed the server
// time at which each INCR ran. The key opens a window at its first INCR
// and expires window_ms after the EXPIRE that follows it, living through
// that millisecond, as fixed_window.lua's does.
func (l *FixedWindowNX) Model() Model {
	return NewFixedWindow(nil, l.policy).Model()
}

// Bound implements Auditable: the fixed window's, limit * (ceil(d/W) + 1).
// Whatever runs between INCR and EXPIRE, a key's life begins at the INCR
// that created it and ends at least a window after the first EXPIRE NX
// that found it without a TTL, so windows never overlap, each lasts at
// least W, and each admits at most Limit.
func (l *FixedWindowNX) Bound(d time.Duration) int64 {
	return fixedWindowBound(l.policy, d)
}

// ProbeWindowEnd implements WindowProber: right after the request that
// opened the window, the key's PTTL read with TIME says when Redis will
// expire it.
func (l *FixedWindowNX) ProbeWindowEnd(ctx context.Context, key string) (int64, bool, error) {
	end, err := probeExpiry(ctx, l.rdb, l.name, key)
	return end, err == nil, err
}

// probeExpiry reads, with TIME and PTTL in one round trip, when key
// expires: the first server microsecond after the millisecond it lives
// through. A key without a TTL (a *WindowKeyWithoutTTLError), or gone, is
// an error naming limiter: right after the request that opened its
// window, a fixed window's key must expire when its window ends.
func probeExpiry(ctx context.Context, rdb Redis, limiter, key string) (int64, error) {
	// On a cluster, TIME goes to the master that holds key, beside its PTTL.
	server, err := serverFor(ctx, rdb, key)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", limiter, err)
	}
	var now *redis.TimeCmd
	var ttl *redis.IntCmd
	if _, err := server.Pipelined(ctx, func(p redis.Pipeliner) error {
		now = p.Time(ctx)
		ttl = redis.NewIntCmd(ctx, "pttl", key)
		return p.Process(ctx, ttl)
	}); err != nil {
		return 0, fmt.Errorf("%s: reading TIME and PTTL %s to find the window's end: %w", limiter, key, err)
	}
	ms := ttl.Val()
	if ms == -1 {
		return 0, &WindowKeyWithoutTTLError{Limiter: limiter, Key: key}
	}
	if ms < 0 {
		return 0, fmt.Errorf("%s: right after the request that opened its window, the key %s does not exist: a fixed window's first key must expire when its window ends", limiter, key)
	}
	nowMs := floorDiv(now.Val().UnixMicro(), 1000)
	if ms > math.MaxInt64/1000-nowMs-1 {
		return 0, fmt.Errorf("%s: key %s expires in %dms, beyond any window", limiter, key, ms)
	}
	return (nowMs + ms + 1) * 1000, nil
}
