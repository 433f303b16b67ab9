package algorithms

import "time"

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
// and a request is admitted while fewer than limit remain. Server time
// only moves forward, so the log is sorted and trimming is from the front.
type slidingLogModel struct {
	limit, windowUs int64
	stamps          []int64
	head            int
	last            int64
}

var _ ReplyModel = (*slidingLogModel)(nil)

func (m *slidingLogModel) Allow(nowMicros int64) bool {
	m.last = nowMicros
	for m.head < len(m.stamps) && m.stamps[m.head] <= nowMicros-m.windowUs {
		m.head++
	}
	if m.head > 0 && m.head >= len(m.stamps)/2 {
		m.stamps = m.stamps[:copy(m.stamps, m.stamps[m.head:])]
		m.head = 0
	}
	if int64(len(m.stamps)-m.head) >= m.limit {
		return false
	}
	m.stamps = append(m.stamps, nowMicros)
	return true
}

// Remaining implements ReplyModel: the limit less the stamps in the log.
func (m *slidingLogModel) Remaining() float64 {
	return float64(max(m.limit-int64(len(m.stamps)-m.head), 0))
}

// NextAdmitMicros implements ReplyModel: now while the log has room, else
// when enough of the oldest stamps have left the window (a stamp leaves
// once it is at most now - W).
func (m *slidingLogModel) NextAdmitMicros() int64 {
	active := int64(len(m.stamps) - m.head)
	if active < m.limit {
		return m.last
	}
	return m.stamps[m.head+int(active-m.limit)] + m.windowUs
}
