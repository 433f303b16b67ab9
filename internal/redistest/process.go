package redistest

import (
	"os"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
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
func Running(pid int) bool { return redisenv.ProcessRunning(pid) }

// GroupRunning reports whether a process of group pgid still runs.
func GroupRunning(pgid int) bool { return redisenv.GroupRunning(pgid) }

// WorkingIn lists the running processes whose working directory is dir
// (redis-server changes into the directory its --dir names).
func WorkingIn(dir string) []int { return redisenv.ProcessesIn(dir) }
