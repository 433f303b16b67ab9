package algorithms

import "time"

// SlidingBucketsName is the registry name of SlidingBuckets.
const SlidingBucketsName = "sliding_buckets"

// SlidingBuckets keeps a rolling window as one counter per sub-window
// ("bucket", Policy.BucketWidth wide, aligned to the clock) rather than
// one entry per request, so an identity costs at most window/bucket hash
// fields whatever its traffic. A request is admitted while the current
// bucket and the n-1 before it (n = window/bucket) hold fewer than Limit.
// It approximates the exact rolling window at bucket granularity: a
// bucket's admissions all leave the window when the bucket n later
// begins, up to a bucket earlier than each would leave a sliding log.
type SlidingBuckets struct{ scripted }

var (
	_ Auditable     = (*SlidingBuckets)(nil)
	_ Windowed      = (*SlidingBuckets)(nil)
	_ Approximation = (*SlidingBuckets)(nil)
)

// NewSlidingBuckets binds the sliding-buckets script to rdb for policy p.
func NewSlidingBuckets(rdb Redis, p Policy) *SlidingBuckets {
	return &SlidingBuckets{newScripted(SlidingBucketsName, rdb, p, p.Limit, p.BucketWidth().Microseconds(), p.BucketsPerWindow())}
}

// Model implements Auditable: the live buckets, oldest first.
func (l *SlidingBuckets) Model() Model {
	return &slidingBucketsModel{limit: l.policy.Limit, bucketUs: l.policy.BucketWidth().Microseconds(), n: l.policy.BucketsPerWindow()}
}

// Exact implements Approximation: the sliding log is the rolling window
// the buckets approximate.
func (l *SlidingBuckets) Exact() Auditable { return NewSlidingLog(nil, l.policy) }

// WindowEnd implements Windowed: a hit's bucket leaves the window, and the
// hit is forgotten, when the bucket n later begins.
func (l *SlidingBuckets) WindowEnd(openedMicros int64) int64 {
	b := l.policy.BucketWidth().Microseconds()
	return (floorDiv(openedMicros, b) + l.policy.BucketsPerWindow()) * b
}

// Bound implements Auditable: Limit x ceil(M/n), where M = ceil((d-1us)/b)
// + 1 is the most buckets an interval of length d can touch.
//
// Every admission in bucket j leaves buckets j-n+1..j holding at most
// Limit, and buckets that admit nothing only let older ones leave, so any
// n consecutive buckets hold at most Limit; M consecutive buckets then
// hold at most Limit x ceil(M/n). Traffic reaches it: Limit admitted in the
// last microsecond of one bucket, nothing for n-1 buckets, Limit more in
// the first microsecond of the next (it no longer counts the first), and
// so on every n buckets. For d = W (M = n+1) that is 2 x Limit, within an
// interval of (n-1) buckets + 2us; any interval of up to (n-1) buckets +
// 1us holds at most Limit.
func (l *SlidingBuckets) Bound(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	b := l.policy.BucketWidth().Microseconds()
	touched := ceilDiv(d.Microseconds()-1, b) + 1
	return satMul(l.policy.Limit, ceilDiv(touched, l.policy.BucketsPerWindow()))
}

// bucketCount is one live bucket of the model.
type bucketCount struct{ index, count int64 }

// slidingBucketsModel replays sliding_buckets.lua. Server time only moves
// forward, so buckets are created in index order and leave from the
// front.
type slidingBucketsModel struct {
	limit, bucketUs, n int64
	buckets            []bucketCount
	sum                int64
	last               int64
}

var (
	_ ReplyModel = (*slidingBucketsModel)(nil)
	_ CostModel  = (*slidingBucketsModel)(nil)
)

func (m *slidingBucketsModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: admitted while the live buckets and the
// request hold at most limit units.
func (m *slidingBucketsModel) AllowN(nowMicros, cost int64) bool {
	m.last = nowMicros
	cur := floorDiv(nowMicros, m.bucketUs)
	drop := 0
	for drop < len(m.buckets) && m.buckets[drop].index <= cur-m.n {
		m.sum -= m.buckets[drop].count
		drop++
	}
	m.buckets = m.buckets[:copy(m.buckets, m.buckets[drop:])]
	if cost > m.limit-m.sum {
		return false
	}
	m.sum += cost
	if k := len(m.buckets); k > 0 && m.buckets[k-1].index == cur {
		m.buckets[k-1].count += cost
	} else {
		m.buckets = append(m.buckets, bucketCount{index: cur, count: cost})
	}
	return true
}

// Remaining implements ReplyModel: the limit less what the live buckets
// hold.
func (m *slidingBucketsModel) Remaining() float64 {
	return float64(max(m.limit-m.sum, 0))
}

// NextAdmitMicros implements ReplyModel: now while the window has room;
// else when enough of the oldest buckets have left it, bucket i when
// bucket i+n begins.
func (m *slidingBucketsModel) NextAdmitMicros() int64 {
	if m.sum < m.limit {
		return m.last
	}
	sum := m.sum
	for _, b := range m.buckets {
		sum -= b.count
		if sum < m.limit {
			return (b.index + m.n) * m.bucketUs
		}
	}
	return m.last
}
