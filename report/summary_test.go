package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/golden"
	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestSummaryGolden pins the terminal summary of the fixture.
func TestSummaryGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, resulttest.Fixture(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/summary.txt.golden", buf.Bytes())
}

func TestSummaryFlagsWhatMatters(t *testing.T) {
	r := resulttest.Sample()
	r.Complete = false
	r.IncompleteReason = "interrupted (Ctrl-C)"
	r.Redis.MaxmemoryPolicy = "allkeys-lru"
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"fixed_window", "250us", "1.50ms", "2.50s", "INCOMPLETE: interrupted", "allkeys-lru", `1 of 10 requests failed: "i/o timeout" x1`} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestWave1Result: a result written by the first release
// (testdata/wave1-result.json) still decodes and renders. Its golden
// summary was that release's own output when the packages were
// restructured; it changes only with intended changes to the summary.
func TestWave1Result(t *testing.T) {
	r, err := result.ReadFile("testdata/wave1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/wave1-summary.txt", buf.Bytes())
}

// TestMarkdownGolden pins the Markdown summary of the fixture, and checks
// a failing run shows its failures.
func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, resulttest.Fixture(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/summary.md.golden", buf.Bytes())

	r := resulttest.Sample()
	r.Verdict = result.Fail
	r.Runs[0].Audit = &result.Audit{Overshoot: 3, MaxWindowAdmitted: 203, BoundWindow: 200}
	r.Thresholds = []result.ThresholdResult{{Expression: "*/* audit.overshoot == 0", Run: "fixed_window/steady", Value: 3, Against: 0}}
	buf.Reset()
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"❌ fail", "**OVERSHOOT**", "- **FAIL** `*/* audit.overshoot == 0` on fixed\\_window/steady: measured 3, against 0"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, buf.String())
		}
	}
}
