package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestWindowNoteSaysWhatWasRefused: a reply whose window end could not be
// the end (not after the prime, or more than a window after it) is named
// in the summary's note, with what was done instead.
func TestWindowNoteSaysWhatWasRefused(t *testing.T) {
	run := &result.Run{Algorithm: "resets", Scenario: "edge", WindowLocation: &result.WindowLocation{
		Method: "reply", Identities: 3, ByBehaviour: 3, ReplyRefused: 3, UncertaintyMaxUs: 1500,
		ReplyRefusedExample: "a window end 300µs before the prime's decision, not after it (the window's start?)"}}
	got := windowNote(run)
	for _, want := range []string{"3 of 3 identities' replies gave a window end 300µs before the prime's decision", "refused, the end found from its decisions instead"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q: want %q", got, want)
		}
	}
	run.WindowLocation.ByBehaviour, run.WindowLocation.AfterPrime = 0, 3
	if got := windowNote(run); !strings.Contains(got, "not found: their bursts went a window after the prime") {
		t.Errorf("note %q: want the bursts said to have gone a window after the prime", got)
	}
}
