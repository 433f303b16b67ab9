package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
)

// TestInitWritesAProfileThatRuns: rlbench init on the textbook script
// writes a profile that validates as it is and runs (with shorter
// scenarios), never overwrites a file, and names what to check.
func TestInitWritesAProfileThatRuns(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	src, err := os.ReadFile("../../profiles/examples/textbook_fixed_window.lua")
	if err != nil {
		t.Fatal(err)
	}
	lua := filepath.Join(dir, "limiters", "checkout.lua")
	if err := os.MkdirAll(filepath.Dir(lua), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lua, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "checkout.yaml")
	code, stdout, stderr := runCLI(t, "init", lua, "-o", out)
	if code != exitOK || !strings.Contains(stdout, "then: rlbench run "+out) || !strings.Contains(stdout, "semantics: fixed_window, guessed from INCR") {
		t.Fatalf("init: exit %d\n%s\n%s", code, stdout, stderr)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "script: limiters/checkout.lua") {
		t.Errorf("the profile does not name the script relative to itself:\n%s", text)
	}
	if code, _, stderr := runCLI(t, "init", lua, "-o", out); code != exitUsage || !strings.Contains(stderr, "does not overwrite") {
		t.Errorf("init over an existing file: exit %d, %s", code, stderr)
	}
	short := strings.NewReplacer("duration: 5s", "duration: 500ms", "identities: 20", "identities: 3", "identities: 10000", "identities: 200").Replace(string(text))
	if err := os.WriteFile(out, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), out)
	if code != exitOK || !strings.Contains(stdout, "checkout") || !strings.Contains(stdout, "fixed_window") {
		t.Errorf("the skeleton's first run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
