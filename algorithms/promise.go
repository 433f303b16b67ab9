package algorithms

import "time"

// Promiser is a limiter that promises to admit: a request of one identity
// is admitted whenever fewer than admits requests of that identity were
// admitted within the within before it. It is the other side of the bound
// (what a limiter may not exceed): where replies cannot be replayed
// through a model (no server time), the audit holds each denial to it,
// and a denial the promise rules out is an under-admission. Zero admits
// is no promise.
type Promiser interface {
	AdmitPromise() (admits int64, within time.Duration)
}

// promiseMargin widens an interval a promise is stated over, for windows
// that expire with a key's TTL, to the millisecond.
const promiseMargin = time.Millisecond

// admitPromise is the promise of the algorithm family name under policy
// p. A fixed window or a sliding log denies only with limit admissions in
// the window before; a bucket (token, leaky, or GCRA) has at least one
// request's room whenever fewer than its capacity were admitted over the
// time it takes to refill (or drain) the whole capacity; a sliding
// counter's estimate counts at most the current and the previous window,
// and sliding buckets at most a window and a bucket.
func admitPromise(name string, p Policy) (int64, time.Duration) {
	switch name {
	case FixedWindowName, FixedWindowNXName, FixedWindowNXPipelinedName, NaiveCounterName, SlidingLogName,
		FixedWindowClientTimeName, SlidingLogClientTimeName:
		return p.Limit, p.Window + promiseMargin
	case SlidingCounterName:
		return p.Limit, 2*p.Window + promiseMargin
	case SlidingBucketsName:
		return p.Limit, p.Window + p.BucketWidth() + promiseMargin
	case TokenBucketName, LeakyBucketName, GCRAName, TokenBucketClientTimeName:
		refill := time.Duration(ceilDiv(satMul(p.Capacity(), p.WindowMicros()), p.Limit)) * time.Microsecond
		return p.Capacity(), refill + promiseMargin
	}
	return 0, 0
}

// AdmitPromise implements Promiser.
func (s *scripted) AdmitPromise() (int64, time.Duration) { return admitPromise(s.name, s.policy) }

// AdmitPromise implements Promiser.
func (l *FixedWindowNX) AdmitPromise() (int64, time.Duration) {
	return admitPromise(FixedWindowName, l.policy)
}

// AdmitPromise implements Promiser: the promise of the family the
// declaration names; none for a bound stated outright.
func (l *Declared) AdmitPromise() (int64, time.Duration) {
	return admitPromise(string(l.decl.Semantics), l.policy)
}

var (
	_ Promiser = (*FixedWindow)(nil)
	_ Promiser = (*FixedWindowNX)(nil)
	_ Promiser = (*Declared)(nil)
	_ Promiser = (*TokenBucket)(nil)
)

// LinearBounded is a limiter whose bound grows in a straight line with the
// interval: a bucket (token, leaky, or GCRA) admits at most its capacity
// plus its rate times any interval, Capacity + Limit*d/Window. An audit
// checks that over every interval between two admissions, not only over a
// window: a bucket one token too large keeps its bound over a window
// (what it admits ahead is what it lacks after) and breaks it over the
// instant its first burst takes.
type LinearBounded interface {
	// LinearBound is the bucket's capacity and its rate, limit per
	// window; ok is false when the bound is not linear.
	LinearBound() (capacity, limit int64, window time.Duration, ok bool)
}

// linearBound is the linear bound of the algorithm family name under p.
func linearBound(name string, p Policy) (int64, int64, time.Duration, bool) {
	switch name {
	case TokenBucketName, LeakyBucketName, GCRAName, TokenBucketClientTimeName:
		return p.Capacity(), p.Limit, p.Window, true
	}
	return 0, 0, 0, false
}

// LinearBound implements LinearBounded.
func (s *scripted) LinearBound() (int64, int64, time.Duration, bool) {
	return linearBound(s.name, s.policy)
}

// LinearBound implements LinearBounded: the family's the declaration
// names.
func (l *Declared) LinearBound() (int64, int64, time.Duration, bool) {
	return linearBound(string(l.decl.Semantics), l.policy)
}

var (
	_ LinearBounded = (*TokenBucket)(nil)
	_ LinearBounded = (*Declared)(nil)
)
