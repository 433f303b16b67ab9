package algorithms

import "time"

// FixedWindowName is the registry name of FixedWindow.
const FixedWindowName = "fixed_window"

// FixedWindow counts an identity's requests in a window that opens at its
// first hit and admits the first Limit of them. It is the cheapest limiter
// (one small string per identity) and the loosest: a burst at the end of one
// window and another at the start of the next admit 2 x Limit within a
// window's length.
type FixedWindow struct{ scripted }

var (
	_ Auditable = (*FixedWindow)(nil)
	_ Windowed  = (*FixedWindow)(nil)
)

// NewFixedWindow binds the fixed-window script to rdb for policy p.
func NewFixedWindow(rdb Redis, p Policy) *FixedWindow {
	return &FixedWindow{newScripted(FixedWindowName, rdb, p, p.Limit, p.WindowMillis())}
}

// Model implements Auditable: a counter that restarts, like the script's
// key, once the server's millisecond passes the window's expiry.
func (l *FixedWindow) Model() Model {
	return &fixedWindowModel{limit: l.policy.Limit, windowMs: l.policy.WindowMillis()}
}

// Bound implements Auditable: limit * (ceil(d/W) + 1). Windows follow one
// another without overlapping and each lasts at least W, so an interval of
// length d meets at most ceil(d/W)+1 of them, each admitting Limit: a burst
// at the end of one window and another at the start of the next fit in one
// interval of length W. (The tight figure for d = W is 2*Limit-1: the hit
// that opened the first window lies more than W before any admission of
// the next one.)
func (l *FixedWindow) Bound(d time.Duration) int64 {
	return fixedWindowBound(l.policy, d)
}

// WindowEnd implements Windowed: the script sets the key to expire at
// floor(opened/1000) + window_ms, and the key lives through that whole
// millisecond, so the next window can open one millisecond later.
func (l *FixedWindow) WindowEnd(openedMicros int64) int64 {
	return fixedWindowEnd(l.policy, openedMicros)
}

func fixedWindowBound(p Policy, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return satMul(p.Limit, windowsMet(d, p.Window)+1)
}

func fixedWindowEnd(p Policy, openedMicros int64) int64 {
	return (floorDiv(openedMicros, 1000) + p.WindowMillis() + 1) * 1000
}

// fixedWindowModel replays fixed_window.lua. The key holds a count and
// expires at expireAtMs; it is alive while the decision's millisecond
// floor(now/1000) is at most expireAtMs. The script counts denied
// requests too (INCR does not know the answer), which leaves the count
// above the limit until the window ends; the model counts the admitted
// units only, which admits and denies the same requests of one unit and
// lets a request of several units that did not fit leave room for a
// smaller one.
type fixedWindowModel struct {
	limit, windowMs int64
	count           int64
	expireAtMs      int64
	last            int64
}

var (
	_ ReplyModel = (*fixedWindowModel)(nil)
	_ CostModel  = (*fixedWindowModel)(nil)
)

func (m *fixedWindowModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: a window opens at the first request it
// admits and holds limit units.
func (m *fixedWindowModel) AllowN(nowMicros, cost int64) bool {
	m.last = nowMicros
	nowMs := floorDiv(nowMicros, 1000)
	if m.count == 0 || nowMs > m.expireAtMs {
		m.count, m.expireAtMs = 0, nowMs+m.windowMs
	}
	if cost > m.limit-m.count {
		return false
	}
	m.count += cost
	return true
}

// Remaining implements ReplyModel: what the window has left.
func (m *fixedWindowModel) Remaining() float64 {
	return float64(max(m.limit-m.count, 0))
}

// NextAdmitMicros implements ReplyModel: now while the window has room,
// else the first microsecond after the expiry millisecond.
func (m *fixedWindowModel) NextAdmitMicros() int64 {
	if m.count < m.limit {
		return m.last
	}
	return (m.expireAtMs + 1) * 1000
}
