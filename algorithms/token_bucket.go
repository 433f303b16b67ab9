package algorithms

import "time"

// TokenBucketName is the registry name of TokenBucket.
const TokenBucketName = "token_bucket"

// TokenBucket gives each identity a bucket of Capacity tokens refilled at
// Limit per Window; a request takes a token. An idle identity may spend the
// whole bucket at once, then gets the refill rate.
type TokenBucket struct{ scripted }

var _ Auditable = (*TokenBucket)(nil)

// NewTokenBucket binds the token-bucket script to rdb for policy p.
func NewTokenBucket(rdb Redis, p Policy) *TokenBucket {
	return &TokenBucket{newScripted(TokenBucketName, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}

// Model implements Auditable: the bucket in the script's integer units.
func (l *TokenBucket) Model() Model {
	p := l.policy
	return &tokenBucketModel{limit: p.Limit, windowUs: p.WindowMicros(), full: p.Capacity() * p.WindowMicros()}
}

// Bound implements Auditable: floor(capacity + rate*d). An interval starts
// with at most a full bucket and gains at most Limit/Window tokens per unit
// of time, and every admission takes a whole token.
func (l *TokenBucket) Bound(d time.Duration) int64 {
	return bucketBound(l.policy, d)
}

// tokenBucketModel replays token_bucket.lua in its units of 1/window_us
// token. A missing key is a full bucket, and the key only expires once the
// bucket would be full again, so the model never forgets its state.
type tokenBucketModel struct {
	limit, windowUs, full int64
	tokens, ts            int64
	seen                  bool
}

var (
	_ ReplyModel = (*tokenBucketModel)(nil)
	_ CostModel  = (*tokenBucketModel)(nil)
)

func (m *tokenBucketModel) Allow(nowMicros int64) bool { return m.AllowN(nowMicros, 1) }

// AllowN implements CostModel: a request takes cost tokens when the bucket
// holds them; more than the bucket holds when full never fits.
func (m *tokenBucketModel) AllowN(nowMicros, cost int64) bool {
	if !m.seen {
		m.tokens, m.seen = m.full, true
	} else if elapsed := nowMicros - m.ts; elapsed > 0 {
		// The script compares elapsed*limit with what the bucket lacks
		// before adding; comparing elapsed with the time that takes keeps
		// the product within 64 bits.
		if elapsed >= ceilDiv(m.full-m.tokens, m.limit) {
			m.tokens = m.full
		} else {
			m.tokens += elapsed * m.limit
		}
	}
	m.ts = nowMicros
	// cost <= capacity keeps cost * window_us within the bucket's units.
	if cost > m.full/m.windowUs || m.tokens < cost*m.windowUs {
		return false
	}
	m.tokens -= cost * m.windowUs
	return true
}

// Remaining implements ReplyModel: the tokens left, a fraction.
func (m *tokenBucketModel) Remaining() float64 {
	if !m.seen {
		return float64(m.full) / float64(m.windowUs)
	}
	return float64(m.tokens) / float64(m.windowUs)
}

// NextAdmitMicros implements ReplyModel: once the bucket has refilled to a
// whole token.
func (m *tokenBucketModel) NextAdmitMicros() int64 {
	if !m.seen || m.tokens >= m.windowUs {
		return m.ts
	}
	return m.ts + ceilDiv(m.windowUs-m.tokens, m.limit)
}
