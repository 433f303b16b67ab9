package profile

import (
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// boundaryFields are the fields a boundary scenario takes.
var boundaryFields = []string{"name", "shape", "identities", "burst", "offset", "spread", "stagger", "concurrency"}

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
		b.Burst = pol.Limit
	}
	if b.Offset+b.Spread >= pol.Window {
		f.errorf("offset", "offset %s + spread %s must be shorter than the window %s, so the first burst comes after the priming request", b.Offset, b.Spread, pol.Window)
	}
	if n := b.Requests(s.Identities); b.Burst > maxBoundaryRequests || n > maxBoundaryRequests {
		f.errorf("burst", "%d identities x (1 + 2 x %d) requests is more than %d", s.Identities, b.Burst, maxBoundaryRequests)
		return
	}
	s.Duration = b.Span(*pol, s.Identities)
	s.Requests = b.Requests(s.Identities)
	s.Rate = Rate{PerSecond: float64(s.Requests) / s.Duration.Seconds()}
}
