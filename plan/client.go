package plan

import "time"

// ErrorPolicy is what the limiter's caller does with a request when Redis
// gave it no decision (the call timed out or failed, retries included).
type ErrorPolicy string

// The error policies.
const (
	// FailOpen admits the request, and accepts the excess.
	FailOpen ErrorPolicy = "fail_open"
	// FailClosed denies the request, and accepts the lost traffic.
	FailClosed ErrorPolicy = "fail_closed"
	// FailLocal lets an in-process limiter of the same algorithm and
	// policy, with state of its own, decide.
	FailLocal ErrorPolicy = "local"
)

// ErrorPolicies lists the error policies, in the order messages name them.
var ErrorPolicies = []ErrorPolicy{FailOpen, FailClosed, FailLocal}

// Client is how the limiter's caller behaves, bounding and retrying each
// call and deciding on its own when Redis gives no answer.
type Client struct {
	// Timeout bounds each call of the limiter (each attempt); it overrides
	// the profile's timeout for those calls, which still bounds connecting
	// and the probes.
	Timeout time.Duration
	// Retries is how many times a call that failed is tried again.
	Retries int
	// Backoff is the wait before the first retry; it doubles before each
	// further one.
	Backoff time.Duration
	// OnError lists the error policies to run: each scenario runs once per
	// policy (and per algorithm) when it lists several.
	OnError []ErrorPolicy
	// Line is where the section starts, for messages.
	Line int
}
