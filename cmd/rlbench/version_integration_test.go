//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntegrationMakeBuildStampsTheRevision builds rlbench the way `make build` does
// (with GOFLAGS turning VCS stamping off, as on some machines) and checks
// the binary reports the checkout's revision, not "dev". It compiles
// the whole binary without the race detector (close to a minute on a
// fresh 2-core machine), so it runs with the integration suites.
func TestIntegrationMakeBuildStampsTheRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	if fi, err := os.Stat("../../.git"); err != nil || !fi.IsDir() {
		t.Skip("the go command stamps a revision only where .git is a directory, not in a linked worktree")
	}
	bin := filepath.Join(t.TempDir(), "rlbench")
	build := exec.Command("make", "-s", "-C", "../..", "build", "BIN="+bin)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The go command stamps a pseudo-version (v0.0.0-<time>-<revision>)
	// or, without one, rlbench names the revision itself (dev-<revision>):
	// either way the first 12 characters of the revision are there.
	v := strings.Fields(string(out))
	if rev := strings.TrimSpace(string(head))[:12]; len(v) < 2 || !strings.Contains(v[1], rev) {
		t.Errorf("version %q, want one naming the revision %s", out, rev)
	}
}
