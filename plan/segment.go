package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// MaxSegments bounds how many processes may split one profile.
const MaxSegments = result.MaxSegments

// Segment is one of Count disjoint parts of a profile's identities, run by
// one of Count processes that together make one load: identity i belongs
// to segment i mod Count. Each segment sends exactly the requests of the
// whole schedule whose identity it owns, at the same due times, so the
// segments' requests add up to the single process's, and each segment sees
// every decision of its own identities, which keeps the audit exact. The
// zero Segment is the whole profile.
type Segment struct {
	Index, Count int
}

// ParseSegment reads "I/N", I from 0 to N-1 (as a Kubernetes completion
// index).
func ParseSegment(s string) (Segment, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Segment{}, fmt.Errorf("%q is not a segment like 0/3 (index/count)", s)
	case count < 1 || count > MaxSegments:
		return Segment{}, fmt.Errorf("segment count %d: want 1 to %d", count, MaxSegments)
	case index < 0 || index >= count:
		return Segment{}, fmt.Errorf("segment index %d: want 0 to %d for %d segments", index, count-1, count)
	}
	return Segment{Index: index, Count: count}, nil
}

// Whole reports whether the segment is the whole profile.
func (s Segment) Whole() bool { return s.Count <= 1 }

// Owns reports whether identity belongs to the segment.
func (s Segment) Owns(identity uint64) bool {
	return s.Whole() || identity%uint64(s.Count) == uint64(s.Index)
}

// Share is how many of identities 0..n-1 the segment owns.
func (s Segment) Share(n int) int {
	if s.Whole() {
		return n
	}
	if s.Index >= n {
		return 0
	}
	return (n-1-s.Index)/s.Count + 1
}

// String is "I/N", or "whole".
func (s Segment) String() string {
	if s.Whole() {
		return "whole"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
