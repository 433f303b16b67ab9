package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/internal/resulttest"
)

// fixtureResult copies the report package's complete result fixture into a
// directory of its own and returns its path.
func fixtureResult(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(resulttest.FixtureFile())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportOnBadInputExits2 feeds `rlbench report` broken results: each is
// bad input (exit 2) with a message that says what is wrong.
func TestReportOnBadInputExits2(t *testing.T) {
	good, err := os.ReadFile(fixtureResult(t))
	if err != nil {
		t.Fatal(err)
	}
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "result.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	damagedHDR := strings.Replace(string(good), `"latency_hdr": "HISTFAA`, `"latency_hdr": "HISTFAA!!`, 1)
	if damagedHDR == string(good) {
		t.Fatal("the fixture's histograms no longer start with HISTFAA; update this test")
	}
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"truncated: a write cut short", []string{"report", write(string(good[:len(good)/3]))}, "truncated JSON"},
		{"malformed: not JSON at all", []string{"report", write("schema: rlbench\n")}, "invalid JSON at line 1"},
		{"empty file", []string{"report", write("")}, "empty file"},
		{"another file format", []string{"report", write(`{"runs": []}`)}, `no "schema" field`},
		{"a histogram that does not decode", []string{"report", write(damagedHDR)}, "fixed_window/steady: latency_hdr is not an HdrHistogram"},
		{"missing file", []string{"report", "/nonexistent/result.json"}, "/nonexistent/result.json: no such file"},
		{"no result named", []string{"report"}, "exactly one result.json"},
		{"two results named", []string{"report", "a.json", "b.json"}, "exactly one result.json"},
	} {
		out := t.TempDir()
		code, _, stderr := runCLI(t, append([]string{tc.args[0], "-o", out}, tc.args[1:]...)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d (stderr %s)", tc.why, code, exitUsage, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q lacks %q", tc.why, stderr, tc.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%s: wrote %d files for bad input", tc.why, len(entries))
		}
	}
}

// TestRunNoReportWritesOnlyTheResult runs one short run with --no-report.
func TestRunNoReportWritesOnlyTheResult(t *testing.T) {
	redistest.ServerPath(t)
	out := t.TempDir()
	profile := writeProfile(t, `name: quick
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 2
warmup: 0s
scenarios:
  - shape: steady
    rate: 2x
    identities: 2
    duration: 200ms
    accept_inconclusive: true  # too short for an identity to reach its limit
`)
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, profile)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "quick-*", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "result.json" {
		t.Errorf("--no-report wrote %v, want only result.json", files)
	}
	if strings.Contains(stdout, "report:") {
		t.Errorf("--no-report still announced a report: %s", stdout)
	}
}
