package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReportSaysWhatItLeftOut: past --max-scenarios the report leaves the
// plots of each scenario and the .hgrm files out and says so on its way
// out; --max-scenarios 0 draws everything.
func TestReportSaysWhatItLeftOut(t *testing.T) {
	for _, tc := range []struct {
		why   string
		flags []string
		want  string
	}{
		{"the fixture's 3 scenarios are more than 2", []string{"--max-scenarios", "2"},
			"(with 1 plot and 0 .hgrm files)\nnote: This result has 3 scenarios (12 runs), more than 2: the plots of each scenario and the .hgrm files are left out"},
		{"0 lifts the limit", []string{"--max-scenarios", "0"}, "(with 11 plots and 24 .hgrm files)\n"},
	} {
		path := fixtureResult(t)
		code, stdout, stderr := runCLI(t, append(append([]string{"report"}, tc.flags...), path)...)
		if code != exitOK || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: exit %d, %q%s; want %q", tc.why, code, stdout, stderr, tc.want)
		}
		if tc.flags[1] == "2" {
			if hgrms, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "hgrm", "*")); len(hgrms) != 0 {
				t.Errorf("%s: wrote %d .hgrm files", tc.why, len(hgrms))
			}
		}
	}
	if code, _, stderr := runCLI(t, "report", "--max-scenarios", "-1", fixtureResult(t)); code != exitUsage || !strings.Contains(stderr, "--max-scenarios") {
		t.Errorf("a negative limit: exit %d, %s", code, stderr)
	}
}
