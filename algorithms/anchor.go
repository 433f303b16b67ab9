package algorithms

import "math"

// Anchorer is a Model whose whole state a reply states: a bucket's tokens
// (or room) after the decision, at the server time the decision used.
// Where the audit is unsure of an identity's past (a call that may have
// run at an instant known only roughly), the first reply that states the
// state tells it what the past left.
type Anchorer interface {
	Model
	// Anchor sets the state to the one a reply stated: remaining (as
	// Remaining says it) right after a decision at atMicros.
	Anchor(remaining float64, atMicros int64)
	// Rate is how fast the state moves, in Remaining's units a
	// microsecond: how far an instant off by one microsecond moves it.
	Rate() float64
}

var (
	_ Anchorer = (*tokenBucketModel)(nil)
	_ Anchorer = (*leakyBucketModel)(nil)
	_ Anchorer = (*gcraModel)(nil)
)

// units is remaining in the models' units of 1/window_us.
func units(remaining float64, windowUs int64) int64 {
	return int64(math.Round(remaining * float64(windowUs)))
}

// Anchor implements Anchorer.
func (m *tokenBucketModel) Anchor(remaining float64, atMicros int64) {
	m.tokens, m.ts, m.seen = min(max(units(remaining, m.windowUs), 0), m.full), atMicros, true
}

// Rate implements Anchorer: tokens a microsecond.
func (m *tokenBucketModel) Rate() float64 { return float64(m.limit) / float64(m.windowUs) }

// Anchor implements Anchorer.
func (m *leakyBucketModel) Anchor(remaining float64, atMicros int64) {
	m.level, m.ts, m.seen = min(max(m.size-units(remaining, m.windowUs), 0), m.size), atMicros, true
}

// Rate implements Anchorer: room a microsecond.
func (m *leakyBucketModel) Rate() float64 { return float64(m.limit) / float64(m.windowUs) }

// Anchor implements Anchorer.
func (m *gcraModel) Anchor(remaining float64, atMicros int64) {
	m.ahead, m.last, m.seen = max(m.burst*m.windowUs-units(remaining, m.windowUs), 0), atMicros, true
}

// Rate implements Anchorer: requests of room a microsecond.
func (m *gcraModel) Rate() float64 { return float64(m.limit) / float64(m.windowUs) }
