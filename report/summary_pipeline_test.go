package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestSummarySaysHowRequestsWentOut: the summary names the pipeline in
// effect when a run was pipelined, and flags a pipeline asked for and not
// in effect, and requests sent again after NOSCRIPT inside a batch.
func TestSummarySaysHowRequestsWentOut(t *testing.T) {
	for _, tc := range []struct {
		why     string
		runs    []result.Pipeline
		asked   string
		want    []string
		notWant []string
	}{
		{"one request at a time: nothing to say",
			[]result.Pipeline{{Depth: 1, Batches: 10, MeanBatch: 1, LargestBatch: 1}}, "",
			nil, []string{"pipelined", "pipeline"}},
		{"pipelined runs: the depth and the batches they made",
			[]result.Pipeline{{Depth: 16, Batches: 10, MeanBatch: 16, LargestBatch: 16}, {Depth: 16, Batches: 50, MeanBatch: 2.5, LargestBatch: 16}}, "16",
			[]string{"pipelined: 2 of 2 runs sent batches of at most 16 requests per connection (mean batch 2.5 to 16.0)", "its own reply"}, nil},
		{"auto: its cap",
			[]result.Pipeline{{Depth: 256, Auto: true, Batches: 10, MeanBatch: 3, LargestBatch: 40}}, "auto",
			[]string{"at most auto (up to 256) requests", "(mean batch 3.0)"}, nil},
		{"asked for, not in effect: a limiter that cannot be pipelined",
			[]result.Pipeline{{Depth: 1, Batches: 10, MeanBatch: 1, LargestBatch: 1, Note: "naive_counter cannot be pipelined"}}, "16",
			[]string{"! fixed_window/steady: pipeline 16 asked for, not in effect: naive_counter cannot be pipelined"}, []string{"pipelined:"}},
		{"NOSCRIPT inside a batch",
			[]result.Pipeline{{Depth: 16, Batches: 10, MeanBatch: 16, LargestBatch: 16, Resent: 32}}, "16",
			[]string{"! fixed_window/steady: 32 requests met NOSCRIPT inside a pipeline"}, nil},
	} {
		r := resulttest.Sample()
		base := r.Runs[0]
		r.Runs = nil
		for i := range tc.runs {
			run := base
			run.Pipeline = &tc.runs[i]
			run.Params.Pipeline = tc.asked
			r.Runs = append(r.Runs, run)
		}
		var buf bytes.Buffer
		if err := WriteSummary(&buf, r); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: summary lacks %q:\n%s", tc.why, w, out)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(out, w) {
				t.Errorf("%s: summary says %q:\n%s", tc.why, w, out)
			}
		}
	}
}
