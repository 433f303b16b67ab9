package algorithms

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// SlidingCounterName is the registry name of SlidingCounter.
const SlidingCounterName = "sliding_counter"

// SlidingCounter is the sliding-window counter: two counts per identity,
// of the current clock-aligned window and of the one before, and a request
// is admitted while the previous count, weighted by the share of the
// previous window the rolling window still covers, plus the current count
// stays below Limit. It costs O(1) memory and approximates the exact
// rolling window by assuming the previous window's admissions were spread
// evenly over it.
//
// Its worst case is a burst of Limit in the last microsecond of a window
// (after a quiet window), then requests through the next window spaced to
// match the shrinking weight: 2 x Limit - floor(2 x Limit / window_us) in
// one window-long interval, which is 2 x Limit for any window of at least
// 2 microseconds per request.
type SlidingCounter struct{ scripted }

var (
	_ Auditable     = (*SlidingCounter)(nil)
	_ Windowed      = (*SlidingCounter)(nil)
	_ Approximation = (*SlidingCounter)(nil)
)

// NewSlidingCounter binds the sliding-counter script to rdb for policy p.
// The policy must keep Limit x window_us within 2^53 (CheckPolicy).
func NewSlidingCounter(rdb Redis, p Policy) *SlidingCounter {
	return &SlidingCounter{newScripted(SlidingCounterName, rdb, p, p.Limit, p.WindowMicros())}
}

// checkCounterPolicy refuses a policy whose limit x window_us is too large
// for the script's integer comparison to stay exact in a Lua number.
func checkCounterPolicy(p Policy) error {
	if units := float64(p.Limit) * float64(p.WindowMicros()); units > MaxExactUnits {
		return fmt.Errorf("limit %d x window %s is too large to keep the counters' comparison exact (%.3g > 2^53); use a shorter window or a smaller limit",
			p.Limit, p.Window, units)
	}
	return nil
}

// Model implements Auditable: the two counters, in the script's integers.
func (l *SlidingCounter) Model() Model {
	return &slidingCounterModel{limit: l.policy.Limit, windowUs: l.policy.WindowMicros(), w: math.MinInt64}
}

// Exact implements Approximation: the sliding log is the rolling window
// the counter estimates.
func (l *SlidingCounter) Exact() Auditable { return NewSlidingLog(nil, l.policy) }

// WindowEnd implements Windowed: the clock-aligned window the hit falls in
// ends at the next multiple of the window, where its count starts to be
// weighted down.
func (l *SlidingCounter) WindowEnd(openedMicros int64) int64 {
	w := l.policy.WindowMicros()
	return (floorDiv(openedMicros, w) + 1) * w
}

// Bound implements Auditable. Every clock-aligned window admits at most
// Limit (each admission needs cur < Limit), so an interval of length d,
// which meets at most ceil(d/W)+1 of them, holds at most
// Limit x (ceil(d/W) + 1).
//
// For d <= W that is tightened to what adversarial traffic reaches
// exactly. An interval that meets two windows holds at most the P
// admissions of the first (P <= Limit) plus those of the second decided
// by elapsed time d - 2us (the interval starts at the earliest in the
// first window's last microsecond): the j-th of those needs
// (j-1) x W < Limit x W - P x (W - e), so with e = d - 2us there are at
// most ceil(Limit - P x (W - d + 2us) / W). P = Limit, all in the first
// window's last microsecond after a quiet window, reaches it:
// 2 x Limit - floor(Limit x (W - d + 2us) / W), at least Limit (an
// interval within one window). For d = W that is
// 2 x Limit - floor(2 x Limit / window_us).
func (l *SlidingCounter) Bound(d time.Duration) int64 {
	p := l.policy
	dUs, wUs := d.Microseconds(), p.WindowMicros()
	switch {
	case dUs <= 0:
		return 0
	case dUs > wUs:
		return satMul(p.Limit, windowsMet(d, p.Window)+1)
	case dUs < 2:
		return p.Limit
	}
	hi, lo := bits.Mul64(uint64(p.Limit), uint64(wUs-dUs+2))
	weighted, _ := bits.Div64(hi, lo, uint64(wUs))
	return max(p.Limit, 2*p.Limit-int64(weighted))
}

// slidingCounterModel replays sliding_counter.lua: the index of the
// current window, its admitted count and the previous window's.
type slidingCounterModel struct {
	limit, windowUs int64
	w, cur, prev    int64
	last            int64
}

var (
	_ ReplyModel = (*slidingCounterModel)(nil)
	_ CostModel  = (*slidingCounterModel)(nil)
)

// roll moves the counters to the window nowMicros falls in.
func (m *slidingCounterModel) roll(nowMicros int64) {
	w := floorDiv(nowMicros, m.windowUs)
	switch {
	case w == m.w:
	case w == m.w+1:
		m.prev, m.cur = m.cur, 0
	default:
		m.prev, m.cur = 0, 0
	}
	m.w = w
}

// budget is what the current window may still hold, times window_us, at
// nowMicros.
func (m *slidingCounterModel) budget(nowMicros int64) int64 {
	elapsed := nowMicros - m.w*m.windowUs
	return m.limit*m.windowUs - m.prev*(m.windowUs-elapsed)
}

func (m *slidingCounterModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: as the script admits a request while the
// estimate is below the limit, a request of cost units is admitted while
// the estimate with all but its last unit is; it counts them all.
func (m *slidingCounterModel) AllowN(nowMicros, cost int64) bool {
	m.last = nowMicros
	m.roll(nowMicros)
	if cost > m.limit || (m.cur+cost-1)*m.windowUs >= m.budget(nowMicros) {
		return false
	}
	m.cur += cost
	return true
}

// Remaining implements ReplyModel: how many more requests the estimate
// admits at the time of the last decision.
func (m *slidingCounterModel) Remaining() float64 {
	if m.w == math.MinInt64 {
		return float64(m.limit)
	}
	return float64(max(ceilDiv(m.budget(m.last), m.windowUs)-m.cur, 0))
}

// NextAdmitMicros implements ReplyModel: now while the estimate has room;
// else when the previous window's weight has shrunk enough, or failing
// that in this window, in the next one, which starts with prev = cur.
func (m *slidingCounterModel) NextAdmitMicros() int64 {
	if m.w == math.MinInt64 || m.cur*m.windowUs < m.budget(m.last) {
		return m.last
	}
	if m.cur < m.limit && m.prev > 0 {
		if e := m.windowUs - ceilDiv((m.limit-m.cur)*m.windowUs, m.prev) + 1; e < m.windowUs {
			return m.w*m.windowUs + e
		}
	}
	var e int64
	if m.cur > 0 {
		e = max(0, m.windowUs-ceilDiv(m.limit*m.windowUs, m.cur)+1)
	}
	return (m.w+1)*m.windowUs + e
}
