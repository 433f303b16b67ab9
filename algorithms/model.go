package algorithms

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Model is a pure-Go replay of one limiter for one identity. Fed that
// identity's requests in the order the server decided them, each with the
// server time (TIME, microseconds) its decision used, it says which ones
// the algorithm admits. It repeats the script's arithmetic exactly, so on a
// correct run the model and Redis agree on every decision.
type Model interface {
	// Allow decides the identity's next request, decided by the server at
	// nowMicros, and updates the model's state.
	Allow(nowMicros int64) bool
}

// CostModel is a Model that decides requests of any cost: the policy's
// limit then counts units. The built-in families' models implement it.
type CostModel interface {
	Model
	// AllowN decides the identity's next request, asking for cost units
	// (at least 1), decided at atMicros: admitted when that many fit, in
	// which case it takes them; a denied request takes nothing. AllowN(t, 1)
	// decides as Allow(t).
	AllowN(atMicros int64, cost int64) bool
}

// ReplyModel is a Model that also predicts what a reply tells its caller,
// who builds X-RateLimit-Remaining and Retry-After headers from it.
type ReplyModel interface {
	Model
	// Remaining is how many requests the identity has left after the last
	// decision, as a fraction for the buckets (tokens left, or room left),
	// in whole requests otherwise.
	Remaining() float64
	// NextAdmitMicros is the earliest server microsecond, at or after the
	// last decision, at which a request would be admitted if no other
	// request came in between.
	NextAdmitMicros() int64
}

// Bounded is a Limiter with a promise: the most it admits to one identity
// within any interval. Every limiter rlbench can audit has one.
type Bounded interface {
	Limiter
	// Bound is the most units the algorithm may admit to one identity
	// within any interval of length d: requests, when each asks for one
	// unit; with a cost per request (Decision.Cost), the admitted
	// requests' costs added up.
	Bound(d time.Duration) int64
}

// Auditable is a Limiter that can be checked against its own promise: a
// reference model of its decisions and a bound on what it may admit.
type Auditable interface {
	Bounded
	// Model returns a fresh model for one identity that has sent nothing.
	Model() Model
}

// Approximation is implemented by limiters that approximate an exact
// algorithm (the sliding counter and the sliding buckets approximate the
// sliding log): the audit also replays their arrivals through the exact
// algorithm's model and counts where the two decide differently.
type Approximation interface {
	// Exact is the exact algorithm for the same policy, unbound.
	Exact() Auditable
}

// BoundIntervaler is implemented by limiters whose promise is stated over an
// interval of its own rather than the policy's window (a declared
// "admitted per interval" promise).
type BoundIntervaler interface {
	BoundInterval() time.Duration
}

// ReplyFields says which parts of its replies a limiter fills in, so an
// audit checks only what was promised.
type ReplyFields struct {
	// Remaining and RetryAfter are set when the reply carries them.
	Remaining, RetryAfter bool
	// ServerTime is set when each Decision carries the Redis TIME it used.
	ServerTime bool
	// WindowEnd is set when the reply says where the window ends
	// (ReplyWindower).
	WindowEnd bool
}

// ReplyDescriber is implemented by limiters that say which parts of their
// replies they fill in. The built-in limiters fill in every part.
type ReplyDescriber interface {
	ReplyFields() ReplyFields
}

// WindowProber is implemented by limiters whose window ends where Redis
// says, not where a formula does: a user's fixed window expires its key as
// its script decides. Traffic aimed at a window boundary asks it, right
// after the request that opened the window.
type WindowProber interface {
	// ProbeWindowEnd reads, for the identity key, the first server
	// microsecond that belongs to the next window. ok is false when the
	// limiter's windows do not end at an instant (a bucket, a rolling
	// window).
	ProbeWindowEnd(ctx context.Context, key string) (end int64, ok bool, err error)
}

// InstantWindowed is implemented by limiters that may say their windows
// end at instants no formula gives (a declared fixed window): traffic aimed
// at a window boundary then finds that instant from the limiter's own
// decisions, unless the reply says where it is (ReplyWindower).
type InstantWindowed interface {
	// WindowsEndAtInstants says whether this limiter's windows end at
	// instants: a declared fixed window's do, a bucket's do not.
	WindowsEndAtInstants() bool
}

// ReplyWindower is implemented by limiters whose reply can say where the
// window that decided a request ends: a declared window_end, or for a
// fixed window its reset_at or reset_after. Traffic aimed at a window
// boundary can ask it with the decision of the request that opened the
// window, rather than probe the server or assume a window after it.
type ReplyWindower interface {
	// ReplyWindowEnd is the first microsecond of the next window, since
	// the epoch, as the decision's reply says: on the server's clock when
	// the limiter takes its time from Redis, on the caller's when it takes
	// it from its arguments (Clocked). ok is false when this reply does
	// not say.
	ReplyWindowEnd(d Decision) (micros int64, ok bool)
	// ReplyWindowResolution is the unit the reply counts that instant in
	// (a second, a millisecond): the window's true end lies within one of
	// it of the instant read, as the script rounds.
	ReplyWindowResolution() time.Duration
}

// Clocked is implemented by limiters that say whose clock they decide by:
// the server's (TIME in the script) or the caller's (in the arguments).
type Clocked interface {
	TimeFrom() TimeSource
}

// WindowKeyWithoutTTLError is what ProbeWindowEnd finds when, right after
// the request that opened its window, a fixed window's first key has no
// TTL: the window never ends. That is the limiter's fault, found early,
// not a failure to measure it.
type WindowKeyWithoutTTLError struct {
	Limiter, Key string
}

func (e *WindowKeyWithoutTTLError) Error() string {
	return fmt.Sprintf("%s: right after the request that opened its window, the key %s has no TTL: a fixed window's first key must expire when its window ends",
		e.Limiter, e.Key)
}

// Windowed is implemented by limiters whose window opens at an identity's
// first hit and closes at an instant that follows from it. Traffic that
// aims at a window boundary asks it where that is.
type Windowed interface {
	// WindowEnd is the first server microsecond that belongs to the next
	// window, for a window opened by a hit at openedMicros; both on the
	// caller's clock for a limiter that takes its time from its caller
	// (Clocked).
	WindowEnd(openedMicros int64) int64
}

// floorDiv is a/b rounded towards minus infinity, for b > 0: the integer
// result of Lua's math.floor(a / b) on values a double holds exactly.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is a/b rounded towards plus infinity, for a >= 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	return (a + b - 1) / b
}

// satMul multiplies two non-negative numbers, saturating at MaxInt64: a
// bound over a very long interval is "more than anyone will send", not a
// wrapped-around negative.
func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// windowsMet is how many back-to-back periods of length w an interval of
// length d can touch without containing one whole: ceil(d/w).
func windowsMet(d time.Duration, w time.Duration) int64 {
	return ceilDiv(d.Microseconds(), w.Microseconds())
}

// bucketBound is floor(capacity + rate*d) for a bucket of the policy's
// capacity refilled (or drained) at Limit per Window, computed in integers:
// limit*d_us/window_us can exceed 64 bits for a long d.
func bucketBound(p Policy, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(p.Limit), uint64(d.Microseconds()))
	w := uint64(p.WindowMicros())
	if hi >= w {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, w)
	if q > math.MaxInt64-uint64(p.Capacity()) {
		return math.MaxInt64
	}
	return p.Capacity() + int64(q)
}
