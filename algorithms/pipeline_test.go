package algorithms_test

import (
	"testing"

	"github.com/rlbench/rlbench/algorithms"
)

// TestCanPipeline: the limiters whose decision is one script call can be
// pipelined; the naive counter (two round trips, a decision in Go between
// them) cannot, and a name nobody registered is not a limiter at all.
func TestCanPipeline(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{algorithms.FixedWindowName, true},
		{algorithms.SlidingLogName, true},
		{algorithms.TokenBucketName, true},
		{algorithms.LeakyBucketName, true},
		{algorithms.NaiveCounterName, false}, // GET, decide, INCR
		{"no_such_limiter", false},           // unknown
	} {
		if got := algorithms.CanPipeline(tc.name); got != tc.want {
			t.Errorf("CanPipeline(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
