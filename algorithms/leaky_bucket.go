package algorithms

import "time"

// LeakyBucketName is the registry name of LeakyBucket.
const LeakyBucketName = "leaky_bucket"

// LeakyBucket is the policing leaky bucket: each identity has a bucket of
// Capacity requests that drains at Limit per Window, and an arrival that
// would overflow it is rejected, never queued. As a meter it admits exactly
// what a token bucket of the same capacity and rate admits; it keeps the
// complementary state (how full, not how much is left).
type LeakyBucket struct{ scripted }

var _ Auditable = (*LeakyBucket)(nil)

// NewLeakyBucket binds the leaky-bucket script to rdb for policy p.
func NewLeakyBucket(rdb Redis, p Policy) *LeakyBucket {
	return &LeakyBucket{newScripted(LeakyBucketName, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}

// Model implements Auditable: the bucket level in the script's integer
// units.
func (l *LeakyBucket) Model() Model {
	p := l.policy
	return &leakyBucketModel{limit: p.Limit, windowUs: p.WindowMicros(), size: p.Capacity() * p.WindowMicros()}
}

// Bound implements Auditable: floor(capacity + rate*d), the same as the
// token bucket it mirrors. An interval starts with at most an empty bucket,
// which drains at Limit/Window, and every admission adds a whole request.
func (l *LeakyBucket) Bound(d time.Duration) int64 {
	return bucketBound(l.policy, d)
}

// leakyBucketModel replays leaky_bucket.lua in its units of 1/window_us
// request. A missing key is an empty bucket, and the key only expires once
// the bucket would be empty again, so the model never forgets its state.
type leakyBucketModel struct {
	limit, windowUs, size int64
	level, ts             int64
	seen                  bool
}

var (
	_ ReplyModel = (*leakyBucketModel)(nil)
	_ CostModel  = (*leakyBucketModel)(nil)
)

func (m *leakyBucketModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: a request pours cost units in when they fit
// below the brim.
func (m *leakyBucketModel) AllowN(nowMicros, cost int64) bool {
	if m.seen {
		if elapsed := nowMicros - m.ts; elapsed > 0 {
			if elapsed >= ceilDiv(m.level, m.limit) {
				m.level = 0
			} else {
				m.level -= elapsed * m.limit
			}
		}
	}
	m.seen, m.ts = true, nowMicros
	if cost > m.size/m.windowUs || m.level+cost*m.windowUs > m.size {
		return false
	}
	m.level += cost * m.windowUs
	return true
}

// Remaining implements ReplyModel: the room left in the bucket, a
// fraction of a request.
func (m *leakyBucketModel) Remaining() float64 {
	return float64(m.size-m.level) / float64(m.windowUs)
}

// NextAdmitMicros implements ReplyModel: once the bucket has drained
// enough to take one more request.
func (m *leakyBucketModel) NextAdmitMicros() int64 {
	if m.level+m.windowUs <= m.size {
		return m.ts
	}
	return m.ts + ceilDiv(m.level+m.windowUs-m.size, m.limit)
}
