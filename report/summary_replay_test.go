package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// A replay that skipped lines of its trace says so after the run, once
// for the scenario however many limiters replayed it; a replay that
// skipped none says nothing.
func TestSummarySaysTheTraceLinesSkipped(t *testing.T) {
	r := resulttest.Sample()
	run := func(algo, scenario string, skipped int64) result.Run {
		return result.Run{Algorithm: algo, Scenario: scenario, Shape: "replay", Identities: 3,
			Params: result.Params{KeyPrefix: "rlbench:r1:" + algo + ":" + scenario + ":",
				Replay: &result.ReplayParams{Trace: "/data/traces/access.log.gz", Format: "combined", Speed: 1, Requests: 120, SkippedLines: skipped}}}
	}
	r.Runs = []result.Run{run("fixed_window", "logs", 1234), run("sliding_log", "logs", 1234), run("fixed_window", "clean", 0)}
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "scenario logs: 1,234 lines of the trace access.log.gz could not be read and skipped (skip_bad_lines): no limiter was sent the requests on them"
	if n := strings.Count(out, want); n != 1 {
		t.Errorf("the summary says %d times %q:\n%s", n, want, out)
	}
	if strings.Contains(out, "scenario clean:") {
		t.Errorf("a replay that skipped nothing has a note:\n%s", out)
	}
	r.Runs = r.Runs[:1]
	r.Runs[0].Params.Replay.SkippedLines = 1
	if got := replayNotes(r); len(got) != 1 || !strings.Contains(got[0].text, "1 line of the trace access.log.gz could not be read and skipped (skip_bad_lines): no limiter was sent the request on it") {
		t.Errorf("one line: %+v", got)
	}
}
