package algorithms

import (
	"context"
	"time"
)

// CallerClock is the clock of the application instance a request comes
// from: the true time, and how far the instance's clock is off it. A
// request of a limiter that takes its time from its caller carries the
// instance's reading, the true time plus its skew.
type CallerClock struct {
	// Now reads the true time; nil is time.Now (or, for a declared
	// limiter, its Binding's clock).
	Now func() time.Time
	// Skew is how far the instance's clock is ahead of the true time when
	// the true time is now (negative: behind); nil is none.
	Skew func(now time.Time) time.Duration
}

// read is the instance's clock: the true time when asked, and the skew
// the instance's reading carries; now is the true clock to use when c has
// none.
func (c CallerClock) read(now func() time.Time) (trueNow time.Time, skew time.Duration) {
	if c.Now != nil {
		now = c.Now
	}
	trueNow = now()
	if c.Skew != nil {
		skew = c.Skew(trueNow)
	}
	return trueNow, skew
}

// CallerTimed is a limiter that takes the time from its caller: each
// request carries the caller's clock in its arguments. A fleet of
// application instances calls it through OnClock, once per instance.
type CallerTimed interface {
	Limiter
	// OnClock is the limiter as called from an application instance whose
	// clock is c: its requests carry that clock's reading, and their
	// decisions say how far it was off the true time
	// (Decision.ClientSkewMicros). Everything else — the script, its
	// counters, the costs drawn — is the limiter's, shared.
	OnClock(c CallerClock) Limiter
}

// TakesCallerTime reports whether lim's requests carry the caller's clock:
// a client-time built-in, or a declared limiter one of whose arguments
// carries the time. A fleet's clocks reach no other limiter.
func TakesCallerTime(lim Limiter) bool {
	switch l := lim.(type) {
	case *Declared:
		return l.usesNow
	case *declaredExact:
		return l.usesNow
	case CallerTimed:
		return true
	}
	return false
}

// CallerTicked is implemented by limiters that take their time from their
// caller: CallerTick is the unit the time reaches the script in, the
// caller's clock rounded down to it (a second for ${now_s}, a millisecond
// for ${now_ms}, a microsecond for ${now_us}, ${now_s_float} and the
// client-time built-ins). A limiter whose tick is coarse cannot tell two
// requests a few milliseconds apart across a tick from two a tick apart.
type CallerTicked interface {
	CallerTick() time.Duration
}

var (
	_ CallerTicked = (*clientTimed)(nil)
	_ CallerTicked = (*Declared)(nil)
)

// CallerTick implements CallerTicked: the client-time built-ins take the
// caller's clock in microseconds.
func (c *clientTimed) CallerTick() time.Duration { return time.Microsecond }

// CallerTick implements CallerTicked: the unit of the finest time its
// arguments carry (a microsecond when none does).
func (l *Declared) CallerTick() time.Duration {
	return time.Duration(l.decl.clockUnitMicros()) * time.Microsecond
}

// callerClockKey is the context key of the caller's clock.
type callerClockKey struct{}

// WithCallerClock returns ctx carrying c: a limiter that takes its time
// from its caller, called with it, reads the time from c, as if called
// through OnClock(c). A caller that wraps the limiter (retrying it, say)
// passes it on with the context.
func WithCallerClock(ctx context.Context, c CallerClock) context.Context {
	return context.WithValue(ctx, callerClockKey{}, c)
}

// CallerClockFrom is the caller's clock ctx carries (WithCallerClock);
// the zero CallerClock (the true clock, no skew) when it carries none. A
// limiter of a program's own that takes its time from its caller reads it
// so.
func CallerClockFrom(ctx context.Context) CallerClock {
	c, _ := ctx.Value(callerClockKey{}).(CallerClock)
	return c
}
