package faults

import "testing"

// TestAnswerWatchKeepsTheFirst: of the decisions the run's workers report
// in any order, the watch keeps the earliest made after the switch, and
// none made before it.
func TestAnswerWatchKeepsTheFirst(t *testing.T) {
	w := &answerWatch{after: 1000}
	for _, done := range []int64{999, 1500, 1200, 1800, 1000 - 1} {
		w.saw(done)
	}
	if got := w.first.Load(); got != 1200 {
		t.Errorf("first answer %d, want 1200 (999 came before the switch)", got)
	}
	none := &answerWatch{after: 1000}
	none.saw(10)
	if got := none.first.Load(); got != 0 {
		t.Errorf("first answer %d from a decision before the switch", got)
	}
}
