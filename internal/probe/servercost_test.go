package probe

import (
	"slices"
	"testing"
)

// TestCostRoundChargesTheCollectorAlike: Redis charges a step of Lua's
// garbage collector to every 50th script call. Wherever a round starts in
// that count, its steps must fall on the decisions and on the trivial
// script in proportion to their calls, so that no round, and no run, gets
// the steps on one side only (as one script call after every decision,
// a pattern of even length, did).
func TestCostRoundChargesTheCollectorAlike(t *testing.T) {
	scripts := 0
	for _, c := range costRound {
		if c == scriptCall {
			scripts++
		}
	}
	if decisions := len(costRound) - scripts; decisions != costDecisions || len(costRound)%luaGCPeriod != 0 {
		t.Fatalf("a round of %d decisions and %d scripts: want %d decisions and a whole number of collector periods", decisions, scripts, costDecisions)
	}
	for start := range luaGCPeriod {
		onScript, onDecision := 0, 0
		for i, c := range costRound {
			if (start+i+1)%luaGCPeriod != 0 {
				continue
			}
			if c == scriptCall {
				onScript++
			} else {
				onDecision++
			}
		}
		// Steps in proportion to the calls: scripts/len of them on the
		// trivial script.
		steps := len(costRound) / luaGCPeriod
		if onScript+onDecision != steps || onScript*len(costRound) != steps*scripts {
			t.Errorf("a round starting %d calls into the collector's period: %d steps on the trivial script, %d on decisions; want %d of %d on the script",
				start, onScript, onDecision, steps*scripts/len(costRound), steps)
		}
	}
}

func TestQuartile(t *testing.T) {
	for _, tc := range []struct {
		why       string
		vs        []float64
		low, high float64
	}{
		{"one value is its own spread", []float64{2}, 2, 2},
		{"ten rounds: between the 3rd and 4th, and the 7th and 8th", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 3.25, 7.75},
		{"five: the 2nd and the 4th", []float64{1, 2, 3, 4, 50}, 2, 4},
	} {
		if !slices.IsSorted(tc.vs) {
			t.Fatalf("%s: not sorted", tc.why)
		}
		if lo, hi := quartile(tc.vs, 1), quartile(tc.vs, 3); lo != tc.low || hi != tc.high {
			t.Errorf("%s: quartiles %v %v, want %v %v", tc.why, lo, hi, tc.low, tc.high)
		}
	}
}
