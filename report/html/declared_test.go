package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestDeclaredLimiterOnThePage: a run audited by its bound alone shows no
// expected or mismatches figures, says how it was judged, and shows a
// declared promise's bound with its interval.
func TestDeclaredLimiterOnThePage(t *testing.T) {
	r := resulttest.Sample()
	run := &r.Runs[0]
	run.Algorithm = "textbook"
	run.Audit = &result.Audit{Identities: 10, Decisions: 100, Allowed: 40, MaxWindowAdmitted: 3, BoundWindow: 3, WindowMs: 100,
		Basis: result.AuditByBoundClientTime, Timing: &result.AuditTiming{UncertaintyP50Us: 200, UncertaintyMaxUs: 900}}
	v := newView(r)
	row := newTableRow(v, run)
	if row.Expected != dash || row.Mismatches != dash || row.MaxWindow != "3 / 3/100ms" {
		t.Errorf("row: expected %q, mismatches %q, max/bound %q", row.Expected, row.Mismatches, row.MaxWindow)
	}
	text := strings.Join(remarks(v, run.Algorithm), " ")
	for _, want := range []string{"within one 100ms window", "Its replies carry no server time, so it was judged by its bound alone"} {
		if !strings.Contains(text, want) {
			t.Errorf("finding lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "reference model agreed") {
		t.Errorf("a bound-only audit claims the model agreed: %s", text)
	}
}
