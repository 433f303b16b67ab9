package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestTwoRunsInOneSecondKeepBothResults: a result's folder is named by
// the profile and the start to the second, so two runs of one profile
// with one --out in the same second shared a folder and one result was
// lost. Every folder the run could be named (the seconds around it) is
// taken, holding another run's result: the run writes into a folder of
// its own, with a suffix, and leaves the other result alone.
func TestTwoRunsInOneSecondKeepBothResults(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	now := time.Now().UTC()
	const marker = "another run's result\n"
	for s := -5; s <= 300; s++ {
		dir := filepath.Join(out, "tiny-"+now.Add(time.Duration(s)*time.Second).Format("20060102T150405Z"))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(marker), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, writeProfile(t, tinyProfile))
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	found, _ := filepath.Glob(filepath.Join(out, "tiny-*-2", "result.json"))
	if len(found) != 1 {
		t.Fatalf("results in folders with a suffix: %v\n%s", found, stdout)
	}
	if _, err := result.ReadFile(found[0]); err != nil {
		t.Errorf("the run's result: %v", err)
	}
	if !strings.Contains(stdout, found[0]) {
		t.Errorf("the summary names another path:\n%s", stdout)
	}
	all, _ := filepath.Glob(filepath.Join(out, "tiny-*", "result.json"))
	for _, p := range all {
		if p == found[0] {
			continue
		}
		if data, _ := os.ReadFile(p); string(data) != marker {
			t.Errorf("%s was overwritten", p)
		}
	}
}

// TestResultFoldersAreCreatedExclusively: processes asking for one
// folder name at once each get a folder of their own.
func TestResultFoldersAreCreatedExclusively(t *testing.T) {
	parent := t.TempDir()
	const n = 16
	dirs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := newResultDir(parent, "p-20260101T000000Z")
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			t.Errorf("%s handed out twice", d)
		}
		seen[d] = true
	}
}

// openFD opens path and returns the /proc path of its descriptor: the
// path /dev/stdin stands for when a file is redirected into rlbench.
func openFD(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return fmt.Sprintf("/proc/self/fd/%d", f.Fd())
}

// TestOutputsAreNeverWrittenBesideADeviceOrPipe: report and init write
// beside their input unless told where; an input that is a pipe, or a
// file reached through /proc or /dev (/dev/stdin, /dev/fd/N), has no
// folder of the user's beside it. The command says so and asks for -o,
// before it reads the input (a pipe without a writer does not hold it),
// and writes nothing; with -o it reads such an input and writes there.
func TestOutputsAreNeverWrittenBesideADeviceOrPipe(t *testing.T) {
	t.Parallel()
	// A result of one run: what matters here is where it is read from and
	// written to (the fixture's twenty runs take seconds to draw under the
	// race detector; report/html's tests draw the fixture).
	result := writeResult(t, resulttest.Sample())
	lua := filepath.Join(t.TempDir(), "limiter.lua")
	if err := os.WriteFile(lua, []byte(initLua), 0o644); err != nil {
		t.Fatal(err)
	}
	resultPipe, luaPipe := fifo(t, false), fifo(t, false)
	for _, tc := range []struct {
		why, want string
		args      []string
	}{
		{"report of a pipe", "is a pipe, not a file in a folder to write the report beside: name the folder with -o DIR", []string{"report", resultPipe}},
		{"report of a descriptor", "is a file under /proc (a device or a descriptor)", []string{"report", openFD(t, result)}},
		{"init of a pipe", "is a pipe, not a file in a folder to write the profile beside: name the profile with -o FILE", []string{"init", "--no-calibrate", luaPipe}},
		{"init of a descriptor", "is a file under /proc (a device or a descriptor)", []string{"init", "--no-calibrate", openFD(t, lua)}},
	} {
		code, stdout, stderr := runCLIWithin(t, context.Background(), 30*time.Second, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q %q; want exit 2 saying %q", tc.why, code, stdout, stderr, tc.want)
		}
	}
	for _, pipe := range []string{resultPipe, luaPipe} {
		if entries, _ := os.ReadDir(filepath.Dir(pipe)); len(entries) != 1 {
			t.Errorf("beside %s: %d files, want the pipe alone", pipe, len(entries))
		}
	}

	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "report", "-o", out, openFD(t, result))
	if _, err := os.Stat(filepath.Join(out, "report.html")); code != exitOK || err != nil {
		t.Errorf("report -o: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if code, stdout, stderr := runCLI(t, "report", "--format", "text", openFD(t, result)); code != exitOK || !strings.Contains(stdout, "verdict") {
		t.Errorf("report --format text prints, writes nothing: exit %d\n%s%s", code, stdout, stderr)
	}
	profile := filepath.Join(t.TempDir(), "p.yaml")
	if code, stdout, stderr := runCLI(t, "init", "--no-calibrate", "-o", profile, openFD(t, lua)); code != exitOK ||
		!strings.Contains(stderr, "the profile names it as the limiter's Lua, and every run reads it again") {
		t.Errorf("init -o: exit %d, want 0 and a warning\n%s%s", code, stdout, stderr)
	}
}
