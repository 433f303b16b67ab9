package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
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
		if code, stdout, stderr := runCLI(t, "init", "--no-calibrate", "-o", out, lua); code != exitOK || !strings.Contains(stdout, "then: rlbench run") {
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

// TestInitCalibrationFixesWhatItMisread: limiters init reads wrong (an
// answer that is 1 when the request is limited, set into a local whose
// name says nothing; a cost named and used like a limit) are probed on a
// real Redis before the profile is written; init says what it changed and
// why, and the profile holds the fix and validates.
func TestInitCalibrationFixesWhatItMisread(t *testing.T) {
	redistest.ServerPath(t)
	for _, tc := range []struct {
		why, lua string
		// says is what init prints; holds what the profile holds.
		says, holds []string
	}{
		{"an answer that is 1 when limited",
			"local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\nlocal r = 0\nif n > tonumber(ARGV[1]) then r = 1 end\nreturn r\n",
			[]string{"every probe held", "changed by the calibration:", "reply.allowed: changed: read reversed", "the reply said 0 (10 times), then 1"},
			[]string{"allowed: {position: 1, when: zero}    # 0 or false when admitted", "# calibration: read reversed"}},
		{"a cost taken for the limit",
			"local cap, step = tonumber(ARGV[1]), tonumber(ARGV[2])\nlocal v = tonumber(redis.call('GET', KEYS[1])) or 0\nif v + step > cap then return 0 end\n" +
				"if v == 0 then redis.call('SET', KEYS[1], step, 'PX', ARGV[3]) else redis.call('SET', KEYS[1], v + step, 'KEEPTTL') end\nreturn 1\n",
			[]string{"every probe held", "ARGV[2]: changed: ${cost}, not ${limit}", "admitted only the first of 11"},
			[]string{`- "${cost}"    # ARGV[2] step: the units this request takes`, "# calibration: ${cost}, not ${limit}"}},
	} {
		dir := t.TempDir()
		lua, out := filepath.Join(dir, "mine.lua"), filepath.Join(dir, "mine.yaml")
		if err := os.WriteFile(lua, []byte(tc.lua), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "init", lua)
		if code != exitOK || !strings.Contains(stderr, "checking what it read of "+lua+" against a private redis-server") {
			t.Fatalf("%s: exit %d\n%s\n%s", tc.why, code, stdout, stderr)
		}
		for _, want := range tc.says {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: init does not say %q:\n%s", tc.why, want, stdout)
			}
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.holds {
			if !strings.Contains(string(text), want) {
				t.Errorf("%s: the profile lacks %q:\n%s", tc.why, want, text)
			}
		}
		// Nothing in the second script's commands names its family: that
		// one line is the user's to write.
		edited := strings.Replace(string(text), "semantics: EDIT_ME", "semantics: fixed_window", 1)
		if err := os.WriteFile(out, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := runCLI(t, "validate", out); code != exitOK {
			t.Errorf("%s: validate exit %d\n%s\n%s", tc.why, code, stdout, stderr)
		}
	}
}

// TestInitStopsDuringCalibration: Ctrl-C while init probes its reading
// stops it, says so, and writes nothing; a profile that exists already is
// refused before any probe.
func TestInitStopsDuringCalibration(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	lua, out := filepath.Join(dir, "mine.lua"), filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(lua, []byte(initLua), 0o644); err != nil {
		t.Fatal(err)
	}
	// The probes wait 1.5s and more after the server is up: a Ctrl-C
	// 500ms in falls while the server starts or while they run.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	code, stdout, stderr := runCLIWithin(t, ctx, 30*time.Second, "init", "-o", out, lua)
	if code != exitRuntime || !strings.Contains(stderr, "interrupted while calibrating on a private redis-server") {
		t.Errorf("exit %d, want %d interrupted while calibrating\n%s\n%s", code, exitRuntime, stdout, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a profile was written: %v", err)
	}
	if err := os.WriteFile(out, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if code, _, stderr := runCLI(t, "init", "-o", out, lua); code != exitUsage || !strings.Contains(stderr, "does not overwrite") || time.Since(start) > time.Second {
		t.Errorf("an existing profile: exit %d after %s: %s", code, time.Since(start), stderr)
	}
	if text, _ := os.ReadFile(out); string(text) != "mine" {
		t.Errorf("the existing file was changed: %q", text)
	}
}

// TestInitCalibratesOnAGivenRedis: with --redis, init probes on that
// server, leaves every key it did not write as it was, and removes its
// own (under rlbench:init:) after.
func TestInitCalibratesOnAGivenRedis(t *testing.T) {
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	for i := range 50 {
		if err := rdb.Set(ctx, fmt.Sprintf("theirs:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	lua, out := filepath.Join(dir, "mine.lua"), filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(lua, []byte(initLua), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "init", "--redis", addr, "-o", out, lua)
	if code != exitOK || !strings.Contains(stdout, "calibrated on the Redis at "+addr) || !strings.Contains(stdout, "every probe held") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 50 {
		t.Errorf("%d keys after init, want the 50 it found: %v", len(keys), keys)
	}
	for i := range 50 {
		if v, err := rdb.Get(ctx, fmt.Sprintf("theirs:%d", i)).Int(); err != nil || v != i {
			t.Errorf("theirs:%d = %d, %v", i, v, err)
		}
	}
	if code, _, stderr := runCLI(t, "init", "--redis", addr, "--no-calibrate", "-o", out+"2", lua); code != exitUsage || !strings.Contains(stderr, "give one") {
		t.Errorf("--redis with --no-calibrate: exit %d, %s", code, stderr)
	}
}

// TestInitWithoutRedisServer: with no redis-server to start and no
// --redis, init says it could not calibrate and writes the reading, every
// guess marked CHECK.
func TestInitWithoutRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	lua, out := filepath.Join(dir, "mine.lua"), filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(lua, []byte(initLua), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "init", "-o", out, lua)
	if code != exitOK || !strings.Contains(stdout, "not calibrated: no redis-server on PATH") || !strings.Contains(stdout, "check (marked CHECK in the file):") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `- "${limit}"    # ARGV[1]: requests per window; CHECK`) || strings.Contains(string(text), "calibration:") {
		t.Errorf("the uncalibrated profile:\n%s", text)
	}
}
