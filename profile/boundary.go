package profile

import (
	"fmt"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// boundaryFields are the fields a boundary scenario takes.
var boundaryFields = []string{"name", "shape", "identities", "burst", "offset", "spread", "stagger", "concurrency", "pipeline"}

// maxBoundaryRequests bounds the size of one boundary scenario.
const maxBoundaryRequests = 10_000_000

// parseBoundary reads a boundary scenario's fields and completes them with
// the policy: the burst defaults to the limit, both bursts must fit between
// the prime and the end of its window, and the scenario's duration, request
// count and average rate follow from the schedule. With pol nil (the policy
// itself was wrong) only the fields are read.
func parseBoundary(f *yamlMap, s *Scenario, pol *algorithms.Policy) {
	b := &s.Boundary
	f.intField("identities", &s.Identities, 1)
	f.integer("burst", &b.Burst, 1)
	b.Offset = DefaultBoundaryOffset
	f.duration("offset", &b.Offset, time.Millisecond)
	f.duration("spread", &b.Spread, 0)
	b.Stagger = DefaultStagger(b.Offset, b.Spread)
	f.duration("stagger", &b.Stagger, 0)
	if pol == nil {
		return
	}
	if b.Burst == 0 {
		// One more than a window admits on each side: the two bursts offer
		// more than any built-in's bound over the span they cover, so an
		// admission beyond it (an off-by-one) can show.
		b.Burst = max(pol.Limit, pol.Capacity()) + 1
	}
	if b.Offset+b.Spread >= pol.Window {
		f.errorf("offset", "offset %s + spread %s must be shorter than the window %s, so the first burst comes after the priming request", b.Offset, b.Spread, pol.Window)
		// The schedule's span follows from them: checked, it would be a
		// second error for this one.
		return
	}
	if n := b.Requests(s.Identities); b.Burst > maxBoundaryRequests || n > maxBoundaryRequests {
		f.errorf("burst", "%d identities x (1 + 2 x %d) requests is more than %d", s.Identities, b.Burst, maxBoundaryRequests)
		return
	}
	span, ok := checkedBoundarySpan(*b, *pol, s.Identities)
	switch {
	case !ok && f.has("stagger"):
		f.errorf("stagger", "%d x %s between %d identities makes the scenario last %s, more than %s",
			s.Identities-1, b.Stagger, s.Identities, describeSpan(*b, *pol, s.Identities), MaxDuration)
		return
	case !ok:
		// The stagger was not given: its default follows from the
		// offset and the spread, and so does the error.
		f.errorf("offset", "the default stagger, 4 x offset + 2 x spread = %s between %d identities, makes the scenario last %s, more than %s: give a shorter offset, a stagger or fewer identities",
			b.Stagger, s.Identities, describeSpan(*b, *pol, s.Identities), MaxDuration)
		return
	}
	s.Duration = span
	s.Requests = b.Requests(s.Identities)
	s.Rate = Rate{PerSecond: float64(s.Requests) / s.Duration.Seconds()}
}

// checkedSpan is Span, false when it would pass MaxDuration.
func checkedBoundarySpan(b plan.Boundary, p algorithms.Policy, identities int) (time.Duration, bool) {
	return checkedSpan(b.Stagger, int64(identities-1), p.Window, time.Millisecond, b.Offset, b.Spread)
}

// describeSpan says how long a span too long for a time.Duration is, in
// hours when it overflows one.
func describeSpan(b plan.Boundary, p algorithms.Policy, identities int) string {
	hours := float64(identities-1)*b.Stagger.Hours() + (p.Window + time.Millisecond + b.Offset + b.Spread).Hours()
	if hours < MaxDuration.Hours()*100 {
		return b.Span(p, identities).String()
	}
	return fmt.Sprintf("%.3gh", hours)
}
