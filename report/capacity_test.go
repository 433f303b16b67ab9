package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestSummaryOfCapacity: the summary gives each capacity run's row (the
// capacity, the ceiling and the shares, the Redis CPU, bytes per identity,
// how the search ended) under the SLO it held, and notes a search rlbench
// could not carry to the end, with why, and the rate at which the audit
// found a limiter wrong.
func TestSummaryOfCapacity(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, resulttest.Capacity()); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"capacity: the highest offered rate (open loop) that held p99 <= 2.00ms, calls without a decision <= 0.1%, rlbench's send lag p99 <= 1.00ms, over each step of 2s",
		"fixed_window  capacity      40,000                5.00                 3.10    200,000         20%      160,000           25%                    71%          62      5  converged (broke at 42,000/s)",
		"sliding_log  capacity      16,000                9.00                12.50    111,111         14%            -             -",
		"generator-bound at 32,000/s",
		"sliding_log/capacity: the search was generator-bound at 32,000/s: rlbench ran 97% of a CPU and waited 5.00% of the step for one, spending 30.30µs of CPU per decision against the server's 9.00µs",
		"the limiter held the SLO up to 16,000/s and may sustain more",
		"fixed_window/capacity: the audit found the limiter wrong at 60,000/s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	// A search that rlbench could not carry past its first step measured
	// nothing of the limiter: it held the SLO up to no rate.
	first := resulttest.Capacity()
	c := first.Runs[1].Capacity
	c.PerS, c.ShareOfCeiling, c.Steps = 0, 0, c.Steps[2:]
	buf.Reset()
	if err := WriteSummary(&buf, first); err != nil {
		t.Fatal(err)
	}
	if text := buf.String(); !strings.Contains(text, "of the step for one, spending 30.30µs of CPU per decision against the server's 9.00µs, with every worker and all the pipelining allow permits; no step measured the limiter, whose capacity is unknown (allow more") ||
		strings.Contains(text, "up to 0/s") {
		t.Errorf("a search generator-bound at its first step is not said to have measured nothing:\n%s", text)
	}
	var none bytes.Buffer
	if err := WriteSummary(&none, resulttest.Sample()); err != nil || strings.Contains(none.String(), "capacity") {
		t.Errorf("a result without capacity runs speaks of capacity (%v):\n%s", err, none.String())
	}
}
