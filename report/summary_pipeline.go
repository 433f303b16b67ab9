package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// PipelineLine says how the runs' requests went out when any was
// pipelined: the depths in effect and the batches they made, and that each
// request's latency is still its own. It is empty when every request went
// out alone.
func PipelineLine(r *result.Result) string {
	var depths []string
	lo, hi := 0.0, 0.0
	n := 0
	for i := range r.Runs {
		p := r.Runs[i].Pipeline
		if p == nil || p.Depth <= 1 {
			continue
		}
		d := fmt.Sprint(p.Depth)
		if p.Auto {
			d = fmt.Sprintf("auto (up to %d)", p.Depth)
		}
		if !slices.Contains(depths, d) {
			depths = append(depths, d)
		}
		if n == 0 || p.MeanBatch < lo {
			lo = p.MeanBatch
		}
		hi = max(hi, p.MeanBatch)
		n++
	}
	if n == 0 {
		return ""
	}
	mean := fmt.Sprintf("%.1f", lo)
	if hi-lo >= 0.05 {
		mean = fmt.Sprintf("%.1f to %.1f", lo, hi)
	}
	return fmt.Sprintf("pipelined: %d of %d runs sent batches of at most %s requests per connection (mean batch %s); "+
		"each request's latency runs from its own due time and send to its own reply",
		n, len(r.Runs), strings.Join(depths, ", "), mean)
}

// pipelineNotes flag runs that asked for a pipeline and sent one request
// at a time instead (a limiter that cannot be pipelined), and requests a
// pipeline sent again after the server lost the script.
func pipelineNotes(r *result.Result) []note {
	var notes []note
	for i := range r.Runs {
		run := &r.Runs[i]
		p := run.Pipeline
		if p == nil {
			continue
		}
		if run.Params.Pipeline != "" && p.Note != "" {
			notes = append(notes, note{kind: kindPipelineOff, where: run.Key(), text: fmt.Sprintf("%s: pipeline %s asked for, not in effect: %s", run.Key(), run.Params.Pipeline, p.Note)})
		}
		if p.Resent > 0 {
			notes = append(notes, note{kind: kindPipelineResent, where: run.Key(),
				text: fmt.Sprintf("%s: %d %s NOSCRIPT inside a pipeline, where it cannot be recovered: sent again once the script was reloaded, their latency including the reload",
					run.Key(), p.Resent, plural.Noun(p.Resent, "request met", "requests met")),
				detail: fmt.Sprintf("%s: %d %s", run.Key(), p.Resent, plural.Noun(p.Resent, "request", "requests"))})
		}
	}
	return notes
}
