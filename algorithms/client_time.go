package algorithms

import (
	"context"
	"strconv"
	"time"
)

// The client-time built-ins' registry names: the fixed window, the sliding
// log and the token bucket taking their time from the caller (a Lua
// argument, as microtime(true) or now() in an application) instead of
// Redis TIME. They are references for a fleet of application servers
// whose clocks disagree, and run only when a profile lists them.
const (
	FixedWindowClientTimeName = "fixed_window_client_time"
	SlidingLogClientTimeName  = "sliding_log_client_time"
	TokenBucketClientTimeName = "token_bucket_client_time"
)

// MaxCallerSkew is the furthest a caller's clock may be from the true
// time for a client-time built-in to keep its state exactly: each keeps
// its key twice that long after its state would be forgotten on the clock
// of the caller that wrote it, so that a caller as far behind as another
// is ahead still finds it.
const MaxCallerSkew = 10 * time.Minute

// callerKeep is how long a client-time built-in keeps its key beyond its
// own need, on the server's clock.
const callerKeep = 2 * MaxCallerSkew

// clientTimed is the binding shared by the client-time built-ins: a
// built-in script whose last argument is the caller's clock in
// microseconds, read once per request from clock (the true clock when it
// has none, without skew).
type clientTimed struct {
	scripted
	clock CallerClock
}

var (
	_ CallerTimed = (*clientTimed)(nil)
	_ Pipelined   = (*clientTimed)(nil)
	_ Clocked     = (*clientTimed)(nil)
)

// newClientTimed binds the built-in script name to rdb for policy p, with
// the fixed arguments args, then how long it keeps its keys.
func newClientTimed(name string, rdb Redis, p Policy, args ...int64) clientTimed {
	return clientTimed{scripted: newScripted(name, rdb, p, append(args, callerKeep.Milliseconds())...)}
}

// request reads the caller's clock cc for one request: what the request
// carries, and its argument.
func (c *clientTimed) request(cc CallerClock) (Request, string) {
	now, skew := cc.read(time.Now)
	us := now.Add(skew).UnixMicro()
	return Request{NowMicros: us, SkewMicros: skew.Microseconds()}, strconv.FormatInt(us, 10)
}

// Allow implements Limiter: the script, told the caller's clock (the
// view's, else the one ctx carries, else the true clock).
func (c *clientTimed) Allow(ctx context.Context, key string) (Decision, error) {
	cc := c.clock
	if cc.Now == nil && cc.Skew == nil {
		cc = CallerClockFrom(ctx)
	}
	req, now := c.request(cc)
	args := make([]any, len(c.args)+1)
	copy(args, c.args)
	args[len(c.args)] = now
	reply, err := c.script.Run(ctx, c.rdb, []string{key}, args...)
	return c.Decide(req, reply, err)
}

// AppendCommand implements Pipelined: EVALSHA of the script on key, told
// the caller's clock; one unit per request, as its family decides.
func (c *clientTimed) AppendCommand(dst []any, key *string, _ int64) ([]any, Request) {
	req, now := c.request(c.clock)
	dst = append(dst, "evalsha", c.script.shaArg, 1, key)
	dst = append(dst, c.args...)
	return append(dst, now), req
}

// Decide implements Pipelined: the uniform reply, and the caller's clock
// the request carried, which the decision was made by.
func (c *clientTimed) Decide(req Request, reply any, err error) (Decision, error) {
	d, err := c.scripted.Decide(req, reply, err)
	d.ClientNowMicros, d.ClientSkewMicros = req.NowMicros, req.SkewMicros
	return d, err
}

// TimeFrom implements Clocked: the caller's clock.
func (c *clientTimed) TimeFrom() TimeSource { return TimeFromArgs }

// OnClock implements CallerTimed: the same script and counters, called
// from an instance whose clock is cc.
func (c *clientTimed) OnClock(cc CallerClock) Limiter {
	v := *c
	v.clock = cc
	return &v
}

// FixedWindowClientTime is the fixed window as limiters that take the time
// from their caller write it: the window is the caller's clock divided by
// the window's length, kept in one key with its count, and a request of
// another window starts it anew. On one clock it is a fixed window aligned
// to the epoch; callers whose clocks disagree across a boundary start the
// window anew each time one follows the other.
type FixedWindowClientTime struct{ clientTimed }

var (
	_ Auditable = (*FixedWindowClientTime)(nil)
	_ Windowed  = (*FixedWindowClientTime)(nil)
)

// NewFixedWindowClientTime binds fixed_window_client_time.lua to rdb for
// policy p.
func NewFixedWindowClientTime(rdb Redis, p Policy) *FixedWindowClientTime {
	return &FixedWindowClientTime{newClientTimed(FixedWindowClientTimeName, rdb, p, p.Limit, p.WindowMicros())}
}

// Model implements Auditable: the window and its count, fed the caller's
// times.
func (l *FixedWindowClientTime) Model() Model {
	return &alignedWindowModel{limit: l.policy.Limit, windowUs: l.policy.WindowMicros()}
}

// Bound implements Auditable: the fixed window's, limit * (ceil(d/W) + 1),
// on one clock: windows of exactly W follow one another.
func (l *FixedWindowClientTime) Bound(d time.Duration) int64 { return fixedWindowBound(l.policy, d) }

// WindowEnd implements Windowed, on the caller's clock: the window of a
// request at openedMicros ends at the next multiple of the window.
func (l *FixedWindowClientTime) WindowEnd(openedMicros int64) int64 {
	w := l.policy.WindowMicros()
	return (floorDiv(openedMicros, w) + 1) * w
}

// SlidingLogClientTime is the sliding log stamped with the caller's
// clock: exact on one clock; callers ahead remove the stamps of callers
// behind early.
type SlidingLogClientTime struct{ clientTimed }

var _ Auditable = (*SlidingLogClientTime)(nil)

// NewSlidingLogClientTime binds sliding_log_client_time.lua to rdb for
// policy p.
func NewSlidingLogClientTime(rdb Redis, p Policy) *SlidingLogClientTime {
	return &SlidingLogClientTime{newClientTimed(SlidingLogClientTimeName, rdb, p, p.Limit, p.WindowMicros())}
}

// Model implements Auditable: the sliding log's, fed the caller's times
// (which it keeps in order, as the sorted set does).
func (l *SlidingLogClientTime) Model() Model {
	return &slidingLogModel{limit: l.policy.Limit, windowUs: l.policy.WindowMicros()}
}

// Bound implements Auditable: the sliding log's, on one clock.
func (l *SlidingLogClientTime) Bound(d time.Duration) int64 {
	return NewSlidingLog(nil, l.policy).Bound(d)
}

// TokenBucketClientTime is the token bucket refilled by the caller's
// clock: exact on one clock; a caller behind sets the bucket's time back,
// and the next caller ahead refills the difference again.
type TokenBucketClientTime struct{ clientTimed }

var _ Auditable = (*TokenBucketClientTime)(nil)

// NewTokenBucketClientTime binds token_bucket_client_time.lua to rdb for
// policy p.
func NewTokenBucketClientTime(rdb Redis, p Policy) *TokenBucketClientTime {
	return &TokenBucketClientTime{newClientTimed(TokenBucketClientTimeName, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}

// Model implements Auditable: the token bucket's, fed the caller's times
// (an earlier time refills nothing, and becomes the bucket's, as in the
// script).
func (l *TokenBucketClientTime) Model() Model { return NewTokenBucket(nil, l.policy).Model() }

// Bound implements Auditable: floor(capacity + rate*d), on one clock.
func (l *TokenBucketClientTime) Bound(d time.Duration) int64 { return bucketBound(l.policy, d) }

// alignedWindowModel replays fixed_window_client_time.lua: window
// floor(now/W) with its count, started anew by a request of any other
// window, earlier or later.
type alignedWindowModel struct {
	limit, windowUs int64
	window, count   int64
	seen            bool
	last            int64
}

var (
	_ ReplyModel = (*alignedWindowModel)(nil)
	_ CostModel  = (*alignedWindowModel)(nil)
	_ Stater     = (*alignedWindowModel)(nil)
)

func (m *alignedWindowModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: a window holds limit units.
func (m *alignedWindowModel) AllowN(nowMicros, cost int64) bool {
	m.last = nowMicros
	if w := floorDiv(nowMicros, m.windowUs); !m.seen || w != m.window {
		m.window, m.count, m.seen = w, 0, true
	}
	if cost > m.limit-m.count {
		return false
	}
	m.count += cost
	return true
}

// Remaining implements ReplyModel: what the window has left.
func (m *alignedWindowModel) Remaining() float64 { return float64(max(m.limit-m.count, 0)) }

// NextAdmitMicros implements ReplyModel: now while the window has room,
// else the next window's first microsecond.
func (m *alignedWindowModel) NextAdmitMicros() int64 {
	if m.count < m.limit {
		return m.last
	}
	return (m.window + 1) * m.windowUs
}

// AppendState implements Stater: the window and its count.
func (m *alignedWindowModel) AppendState(dst []int64) []int64 {
	return append(dst, b2i64(m.seen), m.window, m.count)
}
