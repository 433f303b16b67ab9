package algorithms

import (
	"fmt"
	"strings"
	"time"
)

// Ideal names the limiter a policy describes when nothing approximates
// it: what "limit per window" means decided exactly, request by request,
// on the requests as they arrive. Every limiter's decisions can be set
// beside its policy's ideal on the same arrivals: where the two differ,
// the limiter admitted what the policy denies (a false admit) or denied
// what it admits (a false deny).
type Ideal string

// The ideals a policy may be read as.
const (
	// IdealSlidingWindow is the exact rolling window: a request is
	// admitted while the units admitted within the window before it
	// (the half-open (now-window, now]), with its own, are at most the
	// limit. The sliding log's reference model decides exactly so.
	IdealSlidingWindow Ideal = "sliding_window"
	// IdealTokenBucket is the exact token bucket of the policy's capacity
	// (its burst), refilled at limit per window: what a policy with a
	// burst describes. The token bucket's reference model decides exactly
	// so.
	IdealTokenBucket Ideal = "token_bucket"
)

// Ideals lists the ideals, in the order messages name them.
var Ideals = []Ideal{IdealSlidingWindow, IdealTokenBucket}

// ParseIdeal reads an ideal's name.
func ParseIdeal(s string) (Ideal, error) {
	for _, i := range Ideals {
		if string(i) == s {
			return i, nil
		}
	}
	names := make([]string, len(Ideals))
	for k, i := range Ideals {
		names[k] = string(i)
	}
	return "", fmt.Errorf("unknown ideal %q (known: %s)", s, strings.Join(names, ", "))
}

// DefaultIdeal is the ideal a policy describes when the profile names
// none: the token bucket when the policy gives a burst, the exact rolling
// window otherwise.
func DefaultIdeal(p Policy) Ideal {
	if p.Burst > 0 {
		return IdealTokenBucket
	}
	return IdealSlidingWindow
}

// Model is a fresh ideal limiter of policy p for one identity that has
// sent nothing: fed that identity's arrivals in time order (their instants
// in microseconds and their units), it decides each as the ideal does.
func (i Ideal) Model(p Policy) CostModel {
	if i == IdealTokenBucket {
		return &tokenBucketModel{limit: p.Limit, windowUs: p.WindowMicros(), full: p.Capacity() * p.WindowMicros()}
	}
	return &slidingLogModel{limit: p.Limit, windowUs: p.WindowMicros()}
}

// Memory is how far back the ideal of policy p looks: an admission counts
// against the rolling window for one window, and a bucket emptied at once
// is full again after capacity / (limit per window). Within that span
// after a limiter lost its state (a restart, a flush), its decisions
// follow from what the loss took as much as from its algorithm.
func (i Ideal) Memory(p Policy) time.Duration {
	if i == IdealTokenBucket {
		us := ceilDiv(satMul(p.Capacity(), p.WindowMicros()), p.Limit)
		return time.Duration(us) * time.Microsecond
	}
	return p.Window
}

// Describe says in a few words what the ideal of policy p is.
func (i Ideal) Describe(p Policy) string {
	if i == IdealTokenBucket {
		return fmt.Sprintf("an exact token bucket of %d refilled at %d per %s", p.Capacity(), p.Limit, p.Window)
	}
	return fmt.Sprintf("an exact sliding window of %d per %s", p.Limit, p.Window)
}
