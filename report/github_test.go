package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestGitHubAnnotations: each reason the verdict fails is an ::error, each
// reason a run could not judge a ::warning, titled with the run; a message
// of several lines, and a title with a colon or a comma, stay one command
// the runner reads back whole.
func TestGitHubAnnotations(t *testing.T) {
	r := resulttest.Fixture(t)
	r.Runs[0].Scenario = "a,b: c"
	r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.Violations = 7, 2
	r.Runs[1].Requests.Planned = r.Runs[1].Requests.Sent * 2
	r.Runs[1].Params.AcceptInconclusive = false
	r.Complete, r.IncompleteReason = false, "aborted: 50% of calls\nfailed"
	var b bytes.Buffer
	if err := WriteGitHubAnnotations(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"::error title=rlbench%3A INCOMPLETE::the run did not complete: aborted: 50%25 of calls\\nfailed",
		"::error title=rlbench%3A OVERSHOOT in fixed_window/a%2Cb%3A c::fixed_window/a,b: c: OVERSHOOT: 2 identities",
		"::warning title=rlbench%3A FEW SENT in " + Printable(r.Runs[1].Key()) + "::",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d annotations, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("annotation %d:\n%s\nwant it to start\n%s", i, lines[i], w)
		}
	}
}
