package report

import (
	"testing"
	"time"

	"github.com/rlbench/rlbench/result"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fixed_window", "fixed_window"},               // nothing to do
		{"a\x1b[2Jb", `a\x1b[2Jb`},                     // an escape sequence shows, inert
		{"line\nverdict: pass", `line\nverdict: pass`}, // no forged line
		{"tab\there", `tab\there`},                     // a tab would shift a table's columns
		{"bell\a", `bell\a`},                           // C0
		{"csi\u009b2J", `csi\u009b2J`},                 // C1, as UTF-8
		{"csi\x9b2J", "csi\uFFFD2J"},                   // C1, as a lone byte
		{"rtl\u202eevil", `rtl\u202eevil`},             // bidirectional override
		{"héllo ✓", "héllo ✓"},                         // text is text
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := PrintableLines("one\x1b[A\ntwo"); got != "one\\x1b[A\ntwo" {
		t.Errorf("PrintableLines kept %q", got)
	}
}

// TestPrintableCopyLeavesTheOriginal: the summary prints a cleaned copy;
// the result itself (still to be written as JSON) keeps its strings, and
// what is not a string survives the copy.
func TestPrintableCopyLeavesTheOriginal(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	r := &result.Result{StartedAt: at, Runs: []result.Run{{Scenario: "s\x1b", Memory: &result.Memory{Encodings: map[string]int64{"e\x1b": 2}}}}}
	c := printableCopy(r)
	if r.Runs[0].Scenario != "s\x1b" || r.Runs[0].Memory.Encodings["e\x1b"] != 2 {
		t.Errorf("the original changed: %+v", r.Runs[0])
	}
	if c.Runs[0].Scenario != `s\x1b` || c.Runs[0].Memory.Encodings[`e\x1b`] != 2 || !c.StartedAt.Equal(at) {
		t.Errorf("the copy: %+v %v", c.Runs[0], c.StartedAt)
	}
}
