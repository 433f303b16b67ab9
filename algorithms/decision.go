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
}

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
