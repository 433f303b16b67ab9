package algorithms

import (
	"fmt"
	"time"
)

// Decision is one limiter reply. Being denied is a normal Decision, not an
// error.
type Decision struct {
	// Allowed says whether the request was admitted.
	Allowed bool
	// Remaining is what the limiter says is left after this request, as the
	// script sent it: a decimal string, because Redis truncates Lua numbers
	// in replies to integers and bucket levels are fractional.
	Remaining string
	// RetryAfter is how long until a request would be admitted; zero when
	// this one was.
	RetryAfter time.Duration
	// ServerNowMicros is the Redis TIME, in microseconds since the epoch,
	// that the decision used.
	ServerNowMicros int64

	// Cost is how many units the request asked for: admitted, it took that
	// many of what the limiter allows. Zero reads as one (Units); the
	// built-in limiters decide one unit per request.
	Cost int64
	// ClientNowMicros is the caller's clock reading, in microseconds since
	// the epoch, that the request's time templates carried (${now_s},
	// ${now_ms}, ...), rounded down to the coarsest unit they carry it in:
	// the time a limiter that takes its time from its arguments decided
	// by. Zero when the request carried no time.
	ClientNowMicros int64
	// ClientSkewMicros is how far the caller's clock that ClientNowMicros
	// was read from was ahead of the true time (negative: behind), in
	// microseconds: an application instance of a fleet whose clock is
	// off. ClientNowMicros - ClientSkewMicros is the true time the request
	// carried (rounded as ClientNowMicros is). Zero without a fleet.
	ClientSkewMicros int64

	// ResetAfter, ResetAtMicros and WindowEndMicros are what a declared
	// reply says of the window: how long until the limit is whole again,
	// the instant it is, and the first microsecond of the next window,
	// since the epoch on the limiter's clock. Each is zero when the reply
	// does not carry it.
	ResetAfter      time.Duration
	ResetAtMicros   int64
	WindowEndMicros int64

	// Unread are the optional parts the limiter's replies are declared to
	// carry that this reply did not: a value the declaration names as
	// "none", or one that could not be read (counted by the limiter). An
	// audit skips them rather than read the zero value.
	Unread ReplyParts
}

// Units is how many units the request asked for: Cost, or 1 when unset.
func (d Decision) Units() int64 { return unitsOf(d.Cost) }

// Carries reports whether the decision holds a value of part: declared for
// the limiter's replies (see ReplyFields) and read from this one.
func (d Decision) Carries(part ReplyPart) bool { return !d.Unread.Has(part) }

// ParseReply turns the uniform script reply
// {allowed 0|1, remaining (string), retry_after_ms, server_now_us} into a
// Decision, with an error that says which element is wrong.
func ParseReply(v any) (Decision, error) {
	arr, ok := v.([]any)
	if !ok {
		return Decision{}, fmt.Errorf("limiter reply is %T, want an array of 4", v)
	}
	if len(arr) != 4 {
		return Decision{}, fmt.Errorf("limiter reply has %d elements, want 4", len(arr))
	}
	allowed, ok := arr[0].(int64)
	if !ok || (allowed != 0 && allowed != 1) {
		return Decision{}, fmt.Errorf("limiter reply allowed = %v, want 0 or 1", arr[0])
	}
	remaining, ok := arr[1].(string)
	if !ok {
		return Decision{}, fmt.Errorf("limiter reply remaining is %T, want a string", arr[1])
	}
	retryMs, ok := arr[2].(int64)
	if !ok || retryMs < 0 {
		return Decision{}, fmt.Errorf("limiter reply retry_after_ms = %v, want an integer >= 0", arr[2])
	}
	nowUs, ok := arr[3].(int64)
	if !ok || nowUs <= 0 {
		return Decision{}, fmt.Errorf("limiter reply server_now_us = %v, want a positive integer", arr[3])
	}
	return Decision{
		Allowed:         allowed == 1,
		Remaining:       remaining,
		RetryAfter:      time.Duration(retryMs) * time.Millisecond,
		ServerNowMicros: nowUs,
	}, nil
}
