package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
)

// TestPathsArePrintedSafely: a file or directory name may hold control
// characters (an escape sequence, a carriage return, a line break); the
// lines that name it (validate's "ok", run's "result:" and "report:")
// show them escaped, so that a name can neither drive the terminal nor
// forge a line.
func TestPathsArePrintedSafely(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	hostile := "a\x1b[31mred\rover\nline"
	dir := filepath.Join(t.TempDir(), hostile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	profile := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(profile, []byte(tinyProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what, out string) {
		t.Helper()
		if strings.ContainsAny(out, "\x1b\r") || strings.Contains(out, "\nline") {
			t.Errorf("%s printed a control character as it is:\n%q", what, out)
		}
		if !strings.Contains(out, `a\x1b[31mred\rover\nline`) {
			t.Errorf("%s does not show the name escaped:\n%q", what, out)
		}
	}
	code, stdout, stderr := runCLI(t, "validate", profile)
	if code != exitOK {
		t.Fatalf("validate: exit %d, %s", code, stderr)
	}
	check("validate", stdout)
	code, stdout, stderr = runCLI(t, "run", "--quiet", "--out", dir, profile)
	if code != exitOK {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	check("run", stdout[strings.Index(stdout, "result: "):])
}
