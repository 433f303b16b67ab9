package algorithms

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Semantics is what a declared limiter promises: the algorithm family it
// implements, whose reference model and bound then judge it, or a bound
// stated outright.
type Semantics string

// The semantics a declaration may give.
const (
	SemanticsFixedWindow Semantics = FixedWindowName
	SemanticsSlidingLog  Semantics = SlidingLogName
	SemanticsTokenBucket Semantics = TokenBucketName
	SemanticsLeakyBucket Semantics = LeakyBucketName
	// SemanticsGCRA is the generic cell rate algorithm: one theoretical
	// arrival time per identity, Burst requests at once after idle, then
	// one per Window/Limit; the built-in GCRA's model and bound judge it.
	SemanticsGCRA Semantics = GCRAName
	// SemanticsBound checks only a declared Promise.
	SemanticsBound Semantics = "bound"
)

// semanticsNames lists the semantics in the order messages show them.
var semanticsNames = []Semantics{
	SemanticsFixedWindow, SemanticsSlidingLog, SemanticsTokenBucket, SemanticsLeakyBucket, SemanticsGCRA, SemanticsBound,
}

// ModelSemantics lists the semantics a reference model judges: every
// family, not a bound stated outright.
func ModelSemantics() []Semantics {
	return slices.DeleteFunc(slices.Clone(semanticsNames), func(s Semantics) bool { return s == SemanticsBound })
}

// semanticsAliases are other names people use for a family.
var semanticsAliases = map[string]Semantics{"sliding_window": SemanticsSlidingLog}

// ParseSemantics reads a semantics name (or an alias, such as
// sliding_window for sliding_log).
func ParseSemantics(s string) (Semantics, error) {
	if a, ok := semanticsAliases[s]; ok {
		return a, nil
	}
	for _, n := range semanticsNames {
		if string(n) == s {
			return n, nil
		}
	}
	return "", fmt.Errorf("unknown semantics %q (known: %s)", s, strings.Join(SemanticsNames(), ", "))
}

// SemanticsNames lists the semantics a declaration may give.
func SemanticsNames() []string {
	out := make([]string, len(semanticsNames))
	for i, n := range semanticsNames {
		out[i] = string(n)
	}
	return out
}

// Promise is a bound stated outright: at most Admitted requests of one
// identity within any interval of length Per.
type Promise struct {
	Admitted int64
	Per      time.Duration
}

// String says it as people do: "100 per 1s".
func (p Promise) String() string { return fmt.Sprintf("%d per %s", p.Admitted, p.Per) }

// Validate reports what makes the promise unusable.
func (p Promise) Validate() error {
	switch {
	case p.Admitted < 1:
		return fmt.Errorf("admitted must be at least 1, got %d", p.Admitted)
	case p.Per < time.Microsecond:
		return fmt.Errorf("per must be at least 1us, got %s", p.Per)
	case p.Per%time.Microsecond != 0:
		return fmt.Errorf("per %s is not a whole number of microseconds", p.Per)
	}
	return nil
}

// family is the built-in limiter, unbound, whose model and bound judge the
// semantics, or nil when it has none (bound).
func (s Semantics) family(p Policy) Auditable {
	switch s {
	case SemanticsFixedWindow:
		return NewFixedWindow(nil, p)
	case SemanticsSlidingLog:
		return NewSlidingLog(nil, p)
	case SemanticsTokenBucket:
		return NewTokenBucket(nil, p)
	case SemanticsLeakyBucket:
		return NewLeakyBucket(nil, p)
	case SemanticsGCRA:
		return NewGCRA(nil, p)
	}
	return nil
}

// HasModel reports whether the semantics has an exact reference model, so
// that decisions carrying server time can be replayed.
func (s Semantics) HasModel() bool { return s.family(Policy{}) != nil }

// Bound is the most units a family admits to one identity within any
// interval of length d under policy p; zero for SemanticsBound, whose
// bound is its promise.
func (s Semantics) Bound(p Policy, d time.Duration) int64 {
	if f := s.family(p); f != nil {
		return f.Bound(d)
	}
	return 0
}

// bound is the most the semantics admits to one identity within any
// interval of length d, for policy p (or the promise, for SemanticsBound).
func (s Semantics) bound(p Policy, promise Promise, d time.Duration) int64 {
	switch s {
	case SemanticsBound:
		if d <= 0 {
			return 0
		}
		return satMul(promise.Admitted, windowsMet(d, promise.Per))
	}
	return s.family(p).Bound(d)
}
