//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/report/html"
)

// TestIntegrationReportRendersFromTheResultAlone re-renders the fixture with no Redis
// around, beside the result by default and into -o DIR when given.
func TestIntegrationReportRendersFromTheResultAlone(t *testing.T) {
	path := fixtureResult(t)
	out := filepath.Join(t.TempDir(), "elsewhere")
	for _, tc := range []struct {
		why  string
		args []string
		dir  string
	}{
		{"default: beside result.json", []string{"report", path}, filepath.Dir(path)},
		{"-o: into a directory that does not exist yet", []string{"report", "-o", out, path}, out},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.why, code, stderr)
		}
		if !strings.Contains(stdout, filepath.Join(tc.dir, html.HTMLFile)) {
			t.Errorf("%s: output does not name the page: %s", tc.why, stdout)
		}
		pngs, _ := filepath.Glob(filepath.Join(tc.dir, "*.png"))
		hgrms, _ := filepath.Glob(filepath.Join(tc.dir, "hgrm", "*.hgrm"))
		if len(pngs) != 18 || len(hgrms) != 40 {
			t.Errorf("%s: %d plots and %d .hgrm files, want 18 and 40", tc.why, len(pngs), len(hgrms))
		}
		page, err := os.ReadFile(filepath.Join(tc.dir, html.HTMLFile))
		if err != nil || !strings.Contains(string(page), "Counts requests in a window that opens") {
			t.Errorf("%s: page missing or without the registry's semantics (%v)", tc.why, err)
		}
	}
}
