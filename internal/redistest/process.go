package redistest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// RequireProc skips the test where there is no Linux /proc to tell which
// processes run.
func RequireProc(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: cannot inspect processes here")
	}
}

// Running reports whether pid is a running process. A zombie has ended: it
// holds no port, file or memory, only an exit status nobody collected.
func Running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// pids lists every process in /proc.
func pids() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// GroupRunning reports whether a process of group pgid still runs.
func GroupRunning(pgid int) bool {
	for _, pid := range pids() {
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && Running(pid) {
			return true
		}
	}
	return false
}

// WorkingIn lists the running processes whose working directory is dir
// (redis-server changes into the directory its --dir names).
func WorkingIn(dir string) []int {
	var out []int
	for _, pid := range pids() {
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == dir && Running(pid) {
			out = append(out, pid)
		}
	}
	return out
}
