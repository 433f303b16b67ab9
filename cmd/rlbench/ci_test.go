package main

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestJUnitRefusedBeforeTheRun: a --junit that rlbench could not write,
// or must not, is bad usage found before Redis is dialled (the address
// here is closed: a check left for after the run would show as exit 3):
// a pipe nobody reads (which held rlbench, and its private server, after
// the run), a device, a folder nobody may write in (even root: /sys), and
// the profile itself, which it overwrote. compare refuses its inputs
// likewise.
func TestJUnitRefusedBeforeTheRun(t *testing.T) {
	const body = tinyProfile + "thresholds:\n  - \"*/* requests.sent < 1\"\n"
	profile := writeProfile(t, body)
	readOnly := "/sys"
	if os.Geteuid() != 0 {
		readOnly = t.TempDir()
		if err := os.Chmod(readOnly, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ why, junit, want string }{
		{"a pipe nobody reads", fifo(t, false), "is a pipe; name a file"},
		{"a device", "/dev/null", "is a character device; name a file"},
		{"a folder nobody may write in", filepath.Join(readOnly, "junit.xml"), "cannot write in " + readOnly},
		{"the profile", profile, "is " + profile + ", which it would overwrite"},
	} {
		code, stdout, stderr := runCLIWithin(t, context.Background(), time.Minute,
			"run", "--quiet", "--redis", redistest.ClosedAddr(t), "--out", t.TempDir(), "--junit", tc.junit, profile)
		if code != exitUsage || !strings.Contains(stderr, "--junit "+tc.junit) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q %q; want exit 2 saying %q", tc.why, code, stdout, stderr, tc.want)
		}
	}
	if data, err := os.ReadFile(profile); err != nil || string(data) != body {
		t.Errorf("the profile was changed: %v\n%s", err, data)
	}

	base, cur := fixtureResult(t), fixtureResult(t)
	before, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "compare", "--junit", base, base, cur)
	if code != exitUsage || !strings.Contains(stderr, "which it would overwrite") {
		t.Errorf("compare --junit BASELINE: exit %d, %q %q; want exit 2", code, stdout, stderr)
	}
	if after, err := os.ReadFile(base); err != nil || string(after) != string(before) {
		t.Errorf("the baseline was changed: %v", err)
	}
}

// TestStepSummaryNeverChangesTheExitCode: under GitHub Actions a step
// summary rlbench cannot write — a pipe nobody reads, a file in a folder
// nobody may write in — is a warning on stderr; the run neither waits on
// it nor exits 3: a failed threshold still exits 1.
func TestStepSummaryNeverChangesTheExitCode(t *testing.T) {
	redistest.ServerPath(t)
	profile := writeProfile(t, tinyProfile+"thresholds:\n  - \"*/* requests.sent < 1\"\n")
	t.Setenv(githubActionsEnv, "true")
	for _, tc := range []struct{ why, summary, want string }{
		{"a pipe nobody reads", fifo(t, false), "is a pipe, not a file"},
		{"a folder nobody may write in", "/sys/step-summary.md", "/sys/step-summary.md"},
	} {
		t.Setenv(stepSummaryEnv, tc.summary)
		code, stdout, stderr := runCLIWithin(t, context.Background(), 2*time.Minute,
			"run", "--quiet", "--no-report", "--out", t.TempDir(), profile)
		if code != exitFail || !strings.Contains(stderr, "warning: the step summary ($GITHUB_STEP_SUMMARY) was not written") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 1 and a warning saying %q\n%s%s", tc.why, code, tc.want, stdout, stderr)
		}
	}
}

// TestAFailedJUnitWriteLeavesNoFile: a JUnit file is written whole or not
// at all: a write that fails part way leaves no file (neither empty nor
// partial), and an earlier file as it was.
func TestAFailedJUnitWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	failing := func(w io.Writer) error {
		if _, err := io.WriteString(w, "<testsuites>"); err != nil {
			return err
		}
		return errors.New("the disk filled up")
	}
	fresh := filepath.Join(dir, "fresh.xml")
	if err := writeFile(fresh, failing); err == nil || !strings.Contains(err.Error(), "the disk filled up") {
		t.Errorf("writeFile: %v, want the write's error", err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed write left %s: %v", fresh, err)
	}
	earlier := filepath.Join(dir, "earlier.xml")
	if err := os.WriteFile(earlier, []byte("an earlier run's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(earlier, failing); err == nil {
		t.Error("writeFile succeeded")
	}
	if data, _ := os.ReadFile(earlier); string(data) != "an earlier run's\n" {
		t.Errorf("the earlier file now holds %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left in the folder, want the earlier one alone", len(entries))
	}
}
