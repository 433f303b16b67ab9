package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/verdict"
)

// TestSummaryOfASkewSweep: the summary states, per limiter, the most
// admitted in one window at each skew, marked where a step went past the
// bound, and the largest skew it tolerates; then how the instances took
// part in each run past the bound, and that the excess comes from the
// callers' clocks where the model agreed with every decision.
func TestSummaryOfASkewSweep(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, resulttest.Swept()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"clock skew (sweep): the most one identity had admitted within any 1s, with the 2 instances' clocks spread over ± each skew",
		"fixed_window      redis  120    120     120    200  ±500ms or more (every step held)",
		"fixed_window_client_time     caller  190   303!  2,299!    200          0 (over-admits at ±50ms)",
		"fixed_window_client_time/sweep-skew50ms: 103 admissions past the bound; admitted within the windows past it: instance 0 (clock -50ms) 151, instance 1 (clock +50ms) 152; " +
			"its model, fed the times it saw, agrees with every decision: the excess comes from trusting its callers' clocks",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	// Out of order on one clock: the excess is the callers' times', not
	// a skew.
	r := resulttest.Swept()
	for i := range r.Runs {
		if run := &r.Runs[i]; run.Key() == "fixed_window_client_time/sweep-skew0" {
			run.Audit.MaxWindowAdmitted, run.Audit.Overshoot, run.Audit.Violations = 201, 1, 1
			run.Fleet.PerInstance[0].InExcess, run.Fleet.PerInstance[1].InExcess = 101, 100
		}
	}
	lines := strings.Join(FleetExcessLines(r, verdict.Assess(r)), "\n")
	if want := "fixed_window_client_time/sweep-skew0: 1 admissions past the bound; admitted within the windows past it: instance 0 (clock 0) 101, instance 1 (clock 0) 100; " +
		"its model, fed the times it saw, agrees with every decision: with every clock on the true time, the excess comes from trusting its callers' times, " +
		"which reached the server in another order than they were taken"; !strings.Contains(lines, want) {
		t.Errorf("the excess on one clock reads\n%s\nwant\n%s", lines, want)
	}
	var plain bytes.Buffer
	if err := WriteSummary(&plain, resulttest.Sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "clock skew") {
		t.Errorf("a result without a fleet has a clock skew section:\n%s", plain.String())
	}
}

// TestMarkdownOfASkewSweep: the Markdown summary has the sweep's table,
// per limiter, with the largest skew it tolerates; a result without a
// fleet has none.
func TestMarkdownOfASkewSweep(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, resulttest.Swept()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Clock skew (sweep): the most one identity had admitted within any 1s, with the 2 instances' clocks spread over ± each skew",
		"| algorithm | time from | 0 | ±50ms | ±500ms | bound | tolerates |\n|---|---|---:|---:|---:|---:|---|\n",
		"| fixed\\_window | redis | 120 | 120 | 120 | 200 | ±500ms or more (every step held) |",
		"| fixed\\_window\\_client\\_time | caller | 190 | 303\\! | 2,299\\! | 200 | 0 (over-admits at ±50ms) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, out)
		}
	}
	var plain bytes.Buffer
	if err := WriteMarkdown(&plain, resulttest.Sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Clock skew") {
		t.Errorf("a result without a fleet has a clock skew table:\n%s", plain.String())
	}
}

// TestTolerates: how the largest tolerated skew reads, and how a step
// that did not hold is marked.
func TestTolerates(t *testing.T) {
	held := verdict.SkewStep{SkewMs: 0, Audited: true}
	over := verdict.SkewStep{SkewMs: 50, Audited: true, OverAdmits: true}
	both := verdict.SkewStep{SkewMs: 0, Audited: true, OverAdmits: true, UnderAdmits: true}
	unjudged := verdict.SkewStep{SkewMs: 1500, NotJudged: true}
	weak := verdict.SkewStep{SkewMs: 500, Audited: true, Untested: true}
	for _, tc := range []struct {
		t          verdict.SkewTolerance
		want, mark string
	}{
		{verdict.SkewTolerance{Steps: []verdict.SkewStep{held}, Tolerated: true, AllHeld: true}, "0 or more (every step held)", ""},
		{verdict.SkewTolerance{Steps: []verdict.SkewStep{held, over}, Tolerated: true, FirstFailure: &over}, "0 (over-admits at ±50ms)", "!"},
		{verdict.SkewTolerance{Steps: []verdict.SkewStep{both}, FirstFailure: &both}, "none measured (over-admits and under-admits at 0)", "!"},
		{verdict.SkewTolerance{Steps: []verdict.SkewStep{held, unjudged}, Tolerated: true, FirstFailure: &unjudged}, "0 (not judged at ±1.5s)", "?"},
		{verdict.SkewTolerance{Steps: []verdict.SkewStep{held, weak}, Tolerated: true, FirstFailure: &weak}, "0 (could not show an excess at ±500ms)", "?"},
		{verdict.SkewTolerance{}, "none measured", ""},
	} {
		if got := Tolerates(tc.t); got != tc.want {
			t.Errorf("Tolerates = %q, want %q", got, tc.want)
		}
		if tc.t.FirstFailure != nil {
			if got := StepMark(*tc.t.FirstFailure); got != tc.mark {
				t.Errorf("%q: the step is marked %q, want %q", tc.want, got, tc.mark)
			}
		}
	}
}
