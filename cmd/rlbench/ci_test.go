package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
)

// TestGitHubActionsAndJUnit: under GitHub Actions (GITHUB_ACTIONS=true) a
// run that fails writes an ::error annotation for its failed threshold on
// stdout and appends the verdict in Markdown to the step summary; --junit
// writes the JUnit file, the failed threshold a failed test case. Without
// GITHUB_ACTIONS nothing of GitHub's is written.
func TestGitHubActionsAndJUnit(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("an earlier step's summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(githubActionsEnv, "true")
	t.Setenv(stepSummaryEnv, summary)
	junit := filepath.Join(dir, "junit.xml")
	profile := writeProfile(t, tinyProfile+"thresholds:\n  - \"*/* requests.sent < 1\"\n")
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", filepath.Join(dir, "out"), "--junit", junit, profile)
	if code != exitFail {
		t.Fatalf("exit %d, want 1 (a threshold failed)\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "::error title=rlbench%3A THRESHOLD in fixed_window/") {
		t.Errorf("no ::error annotation for the failed threshold on stdout:\n%s", stdout)
	}
	got, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "an earlier step's summary\n### rlbench tiny: ❌ fail") {
		t.Errorf("step summary:\n%s\nwant the earlier step's, then this verdict", got)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	// Four runs, the threshold on each of them, and the result.
	if doc.Suite.Tests != 9 || doc.Suite.Failures != 4 {
		t.Errorf("JUnit: %d tests, %d failures; want 9 and 4\n%s", doc.Suite.Tests, doc.Suite.Failures, data)
	}

	t.Setenv(githubActionsEnv, "")
	code, stdout, _ = runCLI(t, "run", "--quiet", "--no-report", "--out", filepath.Join(dir, "out"), profile)
	if code != exitFail || strings.Contains(stdout, "::error") {
		t.Errorf("outside GitHub Actions: exit %d, annotations written:\n%s", code, stdout)
	}
}

// TestJUnitPathCheckedFirst: a --junit file in a directory that does not
// exist is refused before the run.
func TestJUnitPathCheckedFirst(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--junit", filepath.Join(t.TempDir(), "no", "junit.xml"), "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code != exitUsage || !strings.Contains(stderr, "does not exist") {
		t.Errorf("exit %d, %q; want exit 2 saying the directory does not exist", code, stderr)
	}
}
