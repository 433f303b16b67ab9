//go:build integration

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/report/html"
)

// TestIntegrationReportSaysWhatItLeftOut: past --max-scenarios the report leaves the
// plots of each scenario and the .hgrm files out and says so on its way
// out; --max-scenarios 0 draws everything.
func TestIntegrationReportSaysWhatItLeftOut(t *testing.T) {
	fixture := resulttest.Fixture(t)
	scenarios := map[string]bool{}
	for _, run := range fixture.Runs {
		scenarios[run.Scenario] = true
	}
	// Drawn in full: every plot the report draws, and a corrected and an
	// uncorrected .hgrm file per run.
	figs, err := html.Plots(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why   string
		flags []string
		want  string
	}{
		{"the fixture's scenarios are more than 2", []string{"--max-scenarios", "2"},
			fmt.Sprintf("(with 1 plot and 0 .hgrm files)\nnote: This result has %d scenarios (%d runs), more than 2: the plots of each scenario and the .hgrm files are left out",
				len(scenarios), len(fixture.Runs))},
		{"0 lifts the limit", []string{"--max-scenarios", "0"}, fmt.Sprintf("(with %d plots and %d .hgrm files)\n", len(figs), 2*len(fixture.Runs))},
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
