package main

import (
	"strings"
	"testing"
)

const boundaryProfile = `name: edge
policy: {limit: 10, window: 300ms}
algorithms: [fixed_window, sliding_log]
concurrency: 8
scenarios:
  - shape: boundary
    identities: 3
    offset: 30ms
    stagger: 50ms
`

// TestRunRecordsTheAudit runs a boundary profile end to end and reads the
// audit, the clock alignment and the shape's parameters back through the
// result contract.
func TestRunRecordsTheAudit(t *testing.T) {
	res, stdout, _ := runAndRead(t, "edge", boundaryProfile)
	for _, r := range res.Runs {
		a := r.Audit
		if a == nil || r.ClockOffset == nil || r.Params.Boundary == nil {
			t.Fatalf("%s: audit %+v, clock %+v, boundary %+v", r.Key(), a, r.ClockOffset, r.Params.Boundary)
		}
		if a.Identities != 3 || a.Decisions != r.Requests.Sent || a.ModelMismatches != 0 || a.Overshoot != 0 || a.BoundWindow == 0 {
			t.Errorf("%s: audit %+v", r.Key(), *a)
		}
		// The burst defaults to one more than the limit of 10.
		if b := r.Params.Boundary; b.Burst != 11 || b.OffsetMs != 30 || b.StaggerMs != 50 || r.Params.Arrival != "" {
			t.Errorf("%s: params %+v, boundary %+v", r.Key(), r.Params, *b)
		}
		if r.Requests.Sent != 3*23 || r.ClockOffset.Samples == 0 {
			t.Errorf("%s: sent %d, clock %+v", r.Key(), r.Requests.Sent, *r.ClockOffset)
		}
	}
	if !strings.Contains(stdout, "audit: admissions of one identity within any 300ms") {
		t.Errorf("summary lacks the audit table:\n%s", stdout)
	}
}

// TestNaiveCounterIsOptIn: listed, but not run unless a profile names it;
// and the list says what fails a run and how a profile changes it.
func TestNaiveCounterIsOptIn(t *testing.T) {
	code, stdout, _ := runCLI(t, "algorithms")
	if code != exitOK || !strings.Contains(stdout, "naive_counter (negative control)") {
		t.Errorf("algorithms: exit %d:\n%s", code, stdout)
	}
	for _, want := range []string{"overshoot > 0", "model mismatches > 0", "without a TTL", "error budget", "evicted", "expect_broken:", "error_budget:", "caught, as expected"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("algorithms does not say %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "validate", writeProfile(t, tinyProfile))
	if code != exitOK || !strings.Contains(stdout, "x 4 algorithms") {
		t.Errorf("a profile without an algorithms list runs more than the four: %s", stdout)
	}
}
