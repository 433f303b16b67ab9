package algorithms

import (
	"math"
	"time"
)

// remainingPrecision is how far a reply's remaining may exceed the model's:
// the built-in scripts print fractions to six decimals.
const remainingPrecision = 1e-6

// RemainingAgrees reports whether a reply's remaining agrees with what the
// model has left: at least the whole requests left (a limiter may report
// whole requests, or the fraction too) and no more than the model has, to
// the sixth decimal. A reply that promises a request the limiter would deny,
// or hides one it would admit, disagrees.
func RemainingAgrees(reported, model float64) bool {
	return reported >= math.Floor(model) && reported <= model+remainingPrecision
}

// RetryAgrees reports whether a denial decided at nowMicros keeps its
// retry hint: a request retried exactly retry later, with nothing admitted
// in between, must be admitted. m is the model right after it decided the
// denial.
func RetryAgrees(m ReplyModel, nowMicros int64, retry time.Duration) bool {
	return nowMicros+retry.Microseconds() >= m.NextAdmitMicros()
}
