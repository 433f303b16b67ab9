package algorithms

import (
	"math"
	"strings"
	"testing"
)

func TestCostValidate(t *testing.T) {
	for _, tc := range []struct {
		why  string
		cost Cost
		err  string
	}{
		{"none: one unit", Cost{}, ""},
		{"fixed", FixedCost(3), ""},
		{"weighted", Cost{Values: []int64{1, 5, 20}, Weights: []int64{90, 9, 1}}, ""},
		{"uniform", UniformCost(1, 5), ""},
		{"a zero cost", FixedCost(0), "at least 1 unit"},
		{"a range from zero", UniformCost(0, 4), "at least 1 unit"},
		{"a range backwards", UniformCost(5, 2), "ends before it starts"},
		{"too costly", FixedCost(MaxCost + 1), "more than"},
		{"a weight of zero", Cost{Values: []int64{1, 2}, Weights: []int64{1, 0}}, "weight is at least 1"},
		{"a value twice", Cost{Values: []int64{2, 2}, Weights: []int64{1, 1}}, "listed twice"},
		{"values without weights", Cost{Values: []int64{2}}, "1 values but 0 weights"},
		{"both forms", Cost{Values: []int64{2}, Weights: []int64{1}, Min: 1, Max: 3}, "not both"},
	} {
		err := tc.cost.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.why, err, tc.err)
		}
	}
}

// TestCostDraws: each distribution draws what it says, in the proportions
// it says, over a sequence of uniformly random numbers.
func TestCostDraws(t *testing.T) {
	const n = 200_000
	for _, tc := range []struct {
		why      string
		cost     Cost
		lo, hi   int64
		mean     float64
		share    map[int64]float64
		describe string
	}{
		{"one unit", Cost{}, 1, 1, 1, map[int64]float64{1: 1}, "1"},
		{"fixed", FixedCost(4), 4, 4, 4, map[int64]float64{4: 1}, "4"},
		{"uniform", UniformCost(2, 5), 2, 5, 3.5, map[int64]float64{2: .25, 3: .25, 4: .25, 5: .25}, "uniform 2-5"},
		{"weighted", Cost{Values: []int64{1, 10}, Weights: []int64{3, 1}}, 1, 10, 3.25, map[int64]float64{1: .75, 10: .25}, "1 (weight 3), 10 (weight 1)"},
	} {
		if lo, hi := tc.cost.Range(); lo != tc.lo || hi != tc.hi || tc.cost.Mean() != tc.mean || tc.cost.String() != tc.describe {
			t.Errorf("%s: range %d-%d, mean %g, %q", tc.why, lo, hi, tc.cost.Mean(), tc.cost.String())
		}
		counts := map[int64]int{}
		for i := uint64(1); i <= n; i++ {
			c := tc.cost.Draw(splitmix64(i))
			if c < tc.lo || c > tc.hi {
				t.Fatalf("%s: drew %d", tc.why, c)
			}
			counts[c]++
		}
		for v, share := range tc.share {
			if got := float64(counts[v]) / n; math.Abs(got-share) > 0.01 {
				t.Errorf("%s: %d drawn %.3f of the time, want %.3f", tc.why, v, got, share)
			}
		}
		if tc.cost.IsOne() != (tc.lo == 1 && tc.hi == 1) {
			t.Errorf("%s: IsOne %v", tc.why, tc.cost.IsOne())
		}
	}
}
