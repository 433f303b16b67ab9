//go:build integration

package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// runShipped runs a shipped profile (a path from this package's folder)
// as a user would, with a binary built without the race detector so the
// load is what a user's run offers, and returns its one result and what
// the run printed. A run that fails, or writes other than one result,
// fails the test.
func runShipped(t *testing.T, profile string) (*result.Result, []byte) {
	t.Helper()
	redistest.ServerPath(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "rlbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	printed, err := exec.Command(bin, "run", profile, "--quiet", "--no-report", "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	if len(paths) != 1 {
		t.Fatalf("results %v", paths)
	}
	res, err := result.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return res, printed
}
