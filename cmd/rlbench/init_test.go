package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const initLua = "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end\nreturn n <= tonumber(ARGV[1])\n"

// TestInitRefusesWhatIsNotLua: an empty file, a binary one, a directory
// and a device are refused, naming the file, and no profile is written.
func TestInitRefusesWhatIsNotLua(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		why, name, data, want string
	}{
		{"an empty file", "empty.lua", "", "is empty"},
		{"blanks only", "blank.lua", "\n \n", "is empty"},
		{"a compiled binary", "limiter.lua", "\x7fELF\x02\x01\x01\x00\x00", "is not text"},
		{"a NUL byte in text", "nul.lua", "return 1\x00", "a NUL byte at line 1"},
		{"bytes that are not UTF-8", "latin1.lua", "return '\xe9'", "is not UTF-8"},
	} {
		lua := filepath.Join(dir, tc.name)
		if err := os.WriteFile(lua, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, tc.name+".yaml")
		code, stdout, stderr := runCLI(t, "init", "-o", out, lua)
		if code != exitUsage || !strings.Contains(stderr, lua) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q %q; want exit 2 naming %s: %q", tc.why, code, stdout, stderr, lua, tc.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a profile was written: %v", tc.why, err)
		}
	}
	for _, path := range []string{dir, "/dev/zero"} {
		if code, _, stderr := runCLI(t, "init", "-o", filepath.Join(dir, "x.yaml"), path); code != exitUsage || !strings.Contains(stderr, "not a file") {
			t.Errorf("init %s: exit %d, %s", path, code, stderr)
		}
	}
}

// TestInitQuotesThePath: files whose names YAML would read otherwise (a
// comment, a mapping, an escape character) get a profile that validates
// and names them.
func TestInitQuotesThePath(t *testing.T) {
	for _, name := range []string{"my limiter #1.lua", "a: b.lua", "esc\x1bape.lua", "- [x].lua"} {
		dir := t.TempDir()
		lua := filepath.Join(dir, name)
		if err := os.WriteFile(lua, []byte(initLua), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "mine.yaml")
		if code, stdout, stderr := runCLI(t, "init", "-o", out, lua); code != exitOK || !strings.Contains(stdout, "then: rlbench run") {
			t.Errorf("%q: init exit %d\n%s\n%s", name, code, stdout, stderr)
			continue
		}
		if code, stdout, stderr := runCLI(t, "validate", out); code != exitOK {
			text, _ := os.ReadFile(out)
			t.Errorf("%q: validate exit %d\n%s\n%s\n%s", name, code, stdout, stderr, text)
		}
	}
}

// TestInitStopsOnTheFirstCtrlC: init reading a named pipe whose writer
// never writes stops at the first Ctrl-C, says why, and writes nothing.
func TestInitStopsOnTheFirstCtrlC(t *testing.T) {
	dir := t.TempDir()
	lua := filepath.Join(dir, "limiter.lua")
	if err := syscall.Mkfifo(lua, 0o600); err != nil {
		t.Fatal(err)
	}
	// O_RDWR opens a FIFO without waiting for the other end, and holds a
	// writer that never writes.
	w, err := os.OpenFile(lua, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out := filepath.Join(dir, "limiter.yaml")
	cmd, _, stderr := rlbenchProcessOut(t, t.TempDir(), t.TempDir(), "init", "-o", out, lua)
	// Once it holds the pipe open, it has its Ctrl-C handler (main sets it
	// before any command runs) and is reading, however slow the machine.
	if !waitFor(10*time.Second, func() bool { return holdsOpen(cmd.Process.Pid, lua) }) {
		t.Fatalf("rlbench init did not open %s within 10s; stderr:\n%s", lua, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 5*time.Second); code != exitRuntime {
		t.Errorf("exit %d after one Ctrl-C, want %d; stderr:\n%s", code, exitRuntime, stderr.String())
	}
	if got := stderr.String(); !strings.Contains(got, "interrupted while reading "+lua) || strings.Contains(got, "quitting") {
		t.Errorf("stderr %q: want the first Ctrl-C to stop the read", got)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a profile was written: %v", err)
	}
}

// holdsOpen reports whether process pid has path open, from /proc.
func holdsOpen(pid int, path string) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(fds)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}
