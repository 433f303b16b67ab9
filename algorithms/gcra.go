package algorithms

import "time"

// GCRAName is the registry name of GCRA.
const GCRAName = "gcra"

// GCRA is the generic cell rate algorithm: one theoretical arrival time
// (TAT) per identity, a single string key. Requests are spaced by the
// emission interval T = Window/Limit; a request is admitted when it comes
// at most (Burst-1) x T ahead of its due time, and then moves the TAT one
// interval on.
//
// Its burst is the token bucket's capacity (Policy.Capacity: Burst, or
// Limit when none is given): an idle identity may send Burst requests at
// once, then one every T, which is Limit per Window. GCRA and the token
// bucket of that capacity admit exactly the same requests on the same
// arrivals (the TAT ahead of now is the bucket's missing tokens, in time);
// GCRA keeps one number instead of two.
type GCRA struct{ scripted }

var _ Auditable = (*GCRA)(nil)

// NewGCRA binds the GCRA script to rdb for policy p.
func NewGCRA(rdb Redis, p Policy) *GCRA {
	return &GCRA{newScripted(GCRAName, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}

// Model implements Auditable: the TAT in the script's units.
func (l *GCRA) Model() Model {
	p := l.policy
	return &gcraModel{limit: p.Limit, windowUs: p.WindowMicros(), tolerance: (p.Capacity() - 1) * p.WindowMicros(), burst: p.Capacity()}
}

// Bound implements Auditable: N(d) <= burst + floor(d/T), with T =
// Window/Limit, counting the admissions in any closed interval of length
// d (both ends included; the audit's half-open windows of length d lie
// within one). After the first admission in the interval the TAT is at
// least T past it, and each admission moves it one T on; an admission
// needs the TAT at most (burst-1) x T ahead of it, so the N-th comes no
// earlier than (N - burst) x T after the first. In one window that is
// burst + limit, the token bucket's bound.
func (l *GCRA) Bound(d time.Duration) int64 {
	return bucketBound(l.policy, d)
}

// gcraModel replays gcra.lua. The TAT's distance ahead of the last
// decision is kept in the script's units of 1/limit microsecond; the TAT
// itself is that distance after the last decision.
type gcraModel struct {
	limit, windowUs, tolerance, burst int64
	// ahead is how far the TAT was ahead of last, in 1/limit us.
	ahead int64
	last  int64
	seen  bool
}

var (
	_ ReplyModel = (*gcraModel)(nil)
	_ CostModel  = (*gcraModel)(nil)
)

func (m *gcraModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: a request of cost units moves the TAT cost
// intervals on, and is admitted when its last unit would still be within
// the tolerance: the TAT at most (burst - cost) x T ahead.
func (m *gcraModel) AllowN(nowMicros, cost int64) bool {
	if m.seen {
		// A TAT in the past is the same as none: due now.
		if drained := (nowMicros - m.last); drained > 0 {
			if drained >= ceilDiv(m.ahead, m.limit) {
				m.ahead = 0
			} else {
				m.ahead -= drained * m.limit
			}
		}
	}
	m.seen, m.last = true, nowMicros
	if cost > m.burst || m.ahead+(cost-1)*m.windowUs > m.tolerance {
		return false
	}
	m.ahead += cost * m.windowUs
	return true
}

// Remaining implements ReplyModel: how many requests the identity may
// still send at once, the token bucket's tokens, a fraction.
func (m *gcraModel) Remaining() float64 {
	return float64(m.burst*m.windowUs-m.ahead) / float64(m.windowUs)
}

// NextAdmitMicros implements ReplyModel: once the TAT is no more than the
// tolerance ahead.
func (m *gcraModel) NextAdmitMicros() int64 {
	if m.ahead <= m.tolerance {
		return m.last
	}
	return m.last + ceilDiv(m.ahead-m.tolerance, m.limit)
}
