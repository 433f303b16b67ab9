package report

import (
	"fmt"
	"path/filepath"

	"github.com/rlbench/rlbench/result"
)

// kindTraceSkipped is a replay whose trace had lines it could not read,
// skipped as skip_bad_lines allowed.
var kindTraceSkipped = &noteKind{title: "trace lines skipped (skip_bad_lines)",
	explain: "lines of the trace that could not be read were skipped, as the scenario's skip_bad_lines allows: their requests were never sent, to any limiter; the run's start named the first"}

// replayNotes say, scenario by scenario, how many lines of its trace a
// replay skipped: requests the trace had that no limiter was sent. Every
// limiter of a scenario replays the same reading, so each scenario is said
// once.
func replayNotes(r *result.Result) []note {
	var out []note
	seen := map[string]bool{}
	for i := range r.Runs {
		run := &r.Runs[i]
		rp := run.Params.Replay
		if rp == nil || rp.SkippedLines == 0 || seen[run.Scenario] {
			continue
		}
		seen[run.Scenario] = true
		lines, them := FormatCount(rp.SkippedLines)+" lines", "requests on them"
		if rp.SkippedLines == 1 {
			lines, them = "1 line", "request on it"
		}
		out = append(out, note{kind: kindTraceSkipped, where: run.Scenario,
			text: fmt.Sprintf("scenario %s: %s of the trace %s could not be read and skipped (skip_bad_lines): no limiter was sent the %s; the run's start named the first",
				run.Scenario, lines, filepath.Base(rp.Trace), them),
			detail: fmt.Sprintf("%s: %s of %s", run.Scenario, lines, filepath.Base(rp.Trace))})
	}
	return out
}
