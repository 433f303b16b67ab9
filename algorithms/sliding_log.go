package algorithms

import (
	"slices"
	"time"
)

// SlidingLogName is the registry name of SlidingLog.
const SlidingLogName = "sliding_log"

// SlidingLog keeps the server time of every admitted request in a sorted
// set and admits a request when fewer than Limit lie in the last Window. It
// is exact, and costs memory in proportion to Limit.
type SlidingLog struct{ scripted }

var _ Auditable = (*SlidingLog)(nil)

// NewSlidingLog binds the sliding-log script to rdb for policy p.
func NewSlidingLog(rdb Redis, p Policy) *SlidingLog {
	return &SlidingLog{newScripted(SlidingLogName, rdb, p, p.Limit, p.WindowMicros())}
}

// Model implements Auditable: the log of admitted stamps, trimmed like the
// script's sorted set.
func (l *SlidingLog) Model() Model {
	return &slidingLogModel{limit: l.policy.Limit, windowUs: l.policy.WindowMicros()}
}

// Bound implements Auditable: limit * ceil(d/W), which is Limit for any
// d <= W. A request is admitted only when fewer than Limit admitted stamps
// lie in (now-W, now], so no half-open interval of length W holds more
// than Limit; a longer interval splits into ceil(d/W) such pieces.
func (l *SlidingLog) Bound(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return satMul(l.policy.Limit, windowsMet(d, l.policy.Window))
}

// slidingLogModel replays sliding_log.lua: stamps <= now - W leave the log,
// and a request is admitted while its units fit beside those that remain.
// The log is kept sorted, as the sorted set is, so trimming is from the
// front: server time only moves forward and a stamp goes at the end; a
// caller's clock (sliding_log_client_time.lua) may go back, and its stamp
// goes where it belongs.
type slidingLogModel struct {
	limit, windowUs int64
	log             []logEntry
	head            int
	// active is the units of log[head:].
	active int64
	last   int64
}

// logEntry is one admitted request: when, and how many units it took.
type logEntry struct{ at, units int64 }

var (
	_ ReplyModel = (*slidingLogModel)(nil)
	_ CostModel  = (*slidingLogModel)(nil)
)

func (m *slidingLogModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: admitted while the units in the last window
// and the request's together are at most limit.
func (m *slidingLogModel) AllowN(nowMicros, cost int64) bool {
	m.last = nowMicros
	for m.head < len(m.log) && m.log[m.head].at <= nowMicros-m.windowUs {
		m.active -= m.log[m.head].units
		m.head++
	}
	if m.head > 0 && m.head >= len(m.log)/2 {
		m.log = m.log[:copy(m.log, m.log[m.head:])]
		m.head = 0
	}
	if cost > m.limit-m.active {
		return false
	}
	i := len(m.log)
	for i > m.head && m.log[i-1].at > nowMicros {
		i--
	}
	m.log = slices.Insert(m.log, i, logEntry{at: nowMicros, units: cost})
	m.active += cost
	return true
}

// Remaining implements ReplyModel: the limit less the units in the log.
func (m *slidingLogModel) Remaining() float64 {
	return float64(max(m.limit-m.active, 0))
}

// NextAdmitMicros implements ReplyModel: now while the log has room for a
// unit, else when enough of the oldest entries have left the window (an
// entry leaves once it is at most now - W).
func (m *slidingLogModel) NextAdmitMicros() int64 {
	if m.active < m.limit {
		return m.last
	}
	need := m.active - m.limit + 1
	for _, e := range m.log[m.head:] {
		if need -= e.units; need <= 0 {
			return e.at + m.windowUs
		}
	}
	return m.last
}
