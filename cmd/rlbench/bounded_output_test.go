package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
)

// TestAHugeScriptErrorIsCut: a limiter whose script fails with an error
// of a megabyte gives a result, a summary and a page of their usual size:
// its text is kept once, cut, with how much was left out.
func TestAHugeScriptErrorIsCut(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	dir := t.TempDir()
	lua := `-- KEYS[1] the counter; Reply: an error of a megabyte
return redis.error_reply("ERR " .. string.rep("x", 1048576))
`
	if err := os.WriteFile(filepath.Join(dir, "loud.lua"), []byte(lua), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "loud.yaml")
	if err := os.WriteFile(profile, []byte(`name: loud
policy: {limit: 10, window: 1s}
algorithms:
  - name: loud
    script: loud.lua
    keys: ["c:{${identity}}"]
    args: ["${limit}"]
    reply: {allowed: 1}
    semantics: fixed_window
scenarios:
  - name: s
    shape: steady
    rate: 2x
    identities: 2
    duration: 500ms
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, profile)
	if code == exitOK {
		t.Errorf("a limiter that only fails passed:\n%s", stdout)
	}
	if n := len(stdout) + len(stderr); n > 64<<10 {
		t.Errorf("printed %d bytes", n)
	}
	if !strings.Contains(stdout+stderr, "more bytes)") {
		t.Errorf("nothing says the error was cut:\n%.2000s\n%.2000s", stdout, stderr)
	}
	for _, name := range []string{"result.json", "report.html"} {
		found, _ := filepath.Glob(filepath.Join(out, "*", name))
		for _, f := range found {
			if info, err := os.Stat(f); err == nil && info.Size() > 1<<20 {
				t.Errorf("%s is %d bytes", f, info.Size())
			}
		}
		if name == "result.json" && len(found) != 1 {
			t.Errorf("results written: %v\n%s", found, stderr)
		}
	}
}

// TestAProfileOfManyMistakesPrintsTheFirst: a profile with thousands of
// mistakes prints the first few, each with its file, line and field, and
// how many more there are, not a line for each.
func TestAProfileOfManyMistakesPrintsTheFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: many\npolicy: {limit: 10, window: 1s}\nscenarios:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "  - {name: s%d, shape: steady, rate: fast, duration: 1s}\n", i)
	}
	path := writeProfile(t, b.String())
	code, _, stderr := runCLI(t, "validate", path)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != exitUsage || len(lines) > maxErrorLines+1 {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	if !strings.Contains(lines[0], path+":4: scenarios[0].rate:") {
		t.Errorf("the first line does not name the first mistake: %q", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "(and ") || !strings.HasSuffix(last, " more lines)") {
		t.Errorf("the last line does not say how many more: %q", last)
	}
}
