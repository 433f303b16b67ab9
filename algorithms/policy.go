package algorithms

import (
	"fmt"
	"math"
	"time"
)

// MaxExactUnits is the largest integer a Lua number (an IEEE double) holds
// exactly. The bucket scripts keep state in units of 1/window_us of a
// request, so capacity * window_us must stay at or below it.
const MaxExactUnits = 1 << 53

// Policy is the one sentence every limiter interprets: Limit requests per
// Window, with an optional Burst. Each algorithm maps it onto its own state,
// which is what makes their answers comparable.
type Policy struct {
	// Limit is how many requests one identity may make per Window.
	Limit int64
	// Window is the period the Limit applies to. It must be a whole number
	// of milliseconds, because Redis expiries are kept in milliseconds.
	Window time.Duration
	// Burst is the capacity of the token and leaky buckets and of GCRA:
	// the most requests an idle identity may send at once. Zero means
	// Limit.
	Burst int64
	// Bucket is the width of one sub-window of the sliding buckets: a
	// whole number of milliseconds that divides Window. Zero means
	// DefaultBucket(Window).
	Bucket time.Duration
}

// MaxDefaultBucket is the widest sub-window the sliding buckets take when
// the policy names none.
const MaxDefaultBucket = time.Second

// DefaultBucket is the sub-window width the sliding buckets use for a
// window when the policy names none: the largest whole number of
// milliseconds, up to a second, that divides the window (600ms for a
// 1200ms window, 1s for a minute).
func DefaultBucket(window time.Duration) time.Duration {
	ms := window.Milliseconds()
	for b := min(ms, MaxDefaultBucket.Milliseconds()); b > 1; b-- {
		if ms%b == 0 {
			return time.Duration(b) * time.Millisecond
		}
	}
	return time.Millisecond
}

// BucketWidth is the sub-window width of the sliding buckets: Bucket, or
// DefaultBucket(Window) when no width is given.
func (p Policy) BucketWidth() time.Duration {
	if p.Bucket > 0 {
		return p.Bucket
	}
	return DefaultBucket(p.Window)
}

// BucketsPerWindow is how many sub-windows of BucketWidth make a window.
func (p Policy) BucketsPerWindow() int64 {
	return int64(p.Window / p.BucketWidth())
}

// Capacity is the bucket size the bucket algorithms use: Burst, or Limit
// when no burst is given.
func (p Policy) Capacity() int64 {
	if p.Burst > 0 {
		return p.Burst
	}
	return p.Limit
}

// WindowMicros is the window in microseconds, the unit of server time.
func (p Policy) WindowMicros() int64 { return p.Window.Microseconds() }

// WindowMillis is the window in milliseconds, the unit of Redis expiries.
func (p Policy) WindowMillis() int64 { return p.Window.Milliseconds() }

// RatePerSecond is the long-run admitted rate the policy allows for one
// identity.
func (p Policy) RatePerSecond() float64 {
	return float64(p.Limit) / p.Window.Seconds()
}

// String renders the policy as people say it, e.g. "100 per 1s (burst 150)".
func (p Policy) String() string {
	s := fmt.Sprintf("%d per %s", p.Limit, p.Window)
	if p.Burst > 0 && p.Burst != p.Limit {
		s += fmt.Sprintf(" (burst %d)", p.Burst)
	}
	if p.Bucket > 0 {
		s += fmt.Sprintf(" (bucket %s)", p.Bucket)
	}
	return s
}

// Validate reports the first reason the policy cannot be enforced exactly.
func (p Policy) Validate() error {
	switch {
	case p.Limit < 1:
		return fmt.Errorf("limit must be at least 1, got %d", p.Limit)
	case p.Limit > 1_000_000_000:
		return fmt.Errorf("limit %d is more than 1000000000 per window", p.Limit)
	case p.Window < time.Millisecond:
		return fmt.Errorf("window must be at least 1ms, got %s", p.Window)
	case p.Window%time.Millisecond != 0:
		return fmt.Errorf("window %s is not a whole number of milliseconds", p.Window)
	case p.Burst < 0:
		return fmt.Errorf("burst must not be negative, got %d", p.Burst)
	case p.Bucket < 0:
		return fmt.Errorf("bucket must not be negative, got %s", p.Bucket)
	case p.Bucket%time.Millisecond != 0:
		return fmt.Errorf("bucket %s is not a whole number of milliseconds", p.Bucket)
	case p.Bucket > 0 && p.Window%p.Bucket != 0:
		return fmt.Errorf("bucket %s does not divide the window %s; give a width like %s", p.Bucket, p.Window, DefaultBucket(p.Window))
	}
	if units := float64(p.Capacity()) * float64(p.WindowMicros()); units > MaxExactUnits || math.IsInf(units, 0) {
		return fmt.Errorf("capacity %d x window %s is too large to keep bucket state exact (%.3g units > 2^53); use a shorter window or a smaller burst",
			p.Capacity(), p.Window, units)
	}
	return nil
}
