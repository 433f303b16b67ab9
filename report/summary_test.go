package report

import (
	"bytes"
	"os"
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
	for _, want := range []string{"fixed_window", "250us", "1.50ms", "2.50s", "INCOMPLETE: interrupted", "allkeys-lru", `1 of 10 requests failed (most common: "i/o timeout" x1)`} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestWave1ResultReadsTheSame: a result written by the first release
// (testdata/wave1-result.json) still decodes, and its summary is the text
// that release printed (testdata/wave1-summary.txt, never rewritten), with
// the verdict's reason added since on the first line and below the final
// verdict.
func TestWave1ResultReadsTheSame(t *testing.T) {
	r, err := result.ReadFile("testdata/wave1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/wave1-summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	const reason = `threshold "*/boundary audit.policy_excess <= 10" failed on fixed_window/boundary (measured 99, against 10)`
	added, got, _ := strings.Cut(buf.String(), "\n")
	if added != "verdict: fail: "+reason {
		t.Errorf("first line %q, want the verdict with its reason", added)
	}
	got, below, _ := strings.Cut(got, "verdict: fail\n")
	if below != "  "+reason+"\n" {
		t.Errorf("below the verdict %q, want its reason", below)
	}
	if got += "verdict: fail\n"; got != string(want) {
		t.Errorf("the summary of a wave-1 result changed:\n%s", golden.FirstDifference(string(want), got))
	}
}
