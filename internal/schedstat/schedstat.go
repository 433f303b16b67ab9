// Package schedstat reads what the Linux scheduler says of a process: how
// long its threads ran, and how long they were runnable but waited for a
// CPU (/proc/PID/task/*/schedstat), and whether scheduler autogroups are on.
// Elsewhere, and on kernels that keep no such figures, it reports that it
// does not know.
package schedstat

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Times is a process's scheduler figures summed over its threads.
type Times struct {
	// Run is the time its threads spent on a CPU.
	Run time.Duration
	// Wait is the time its threads were runnable but waited for a CPU.
	Wait time.Duration
	// Slices is how many times its threads were scheduled in.
	Slices int64
}

// Self is the pid Read takes for the calling process.
const Self = 0

// Read sums the scheduler's figures over the threads of pid (Self for this
// process). ok is false when the kernel keeps none (not Linux, or a kernel
// without schedstats) or the process is gone.
func Read(pid int) (t Times, ok bool) {
	dir := "self"
	if pid != Self {
		dir = strconv.Itoa(pid)
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%s/task/*/schedstat", dir))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that exited since the glob
		}
		fields := strings.Fields(string(b))
		if len(fields) < 3 {
			continue
		}
		run, err1 := strconv.ParseInt(fields[0], 10, 64)
		wait, err2 := strconv.ParseInt(fields[1], 10, 64)
		slices, err3 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		t.Run += time.Duration(run)
		t.Wait += time.Duration(wait)
		t.Slices += slices
		ok = true
	}
	return t, ok
}

// Sub is what happened between an earlier reading o and t. A thread that
// exited in between takes its figures with it, so a difference is at
// least zero, never negative.
func (t Times) Sub(o Times) Times {
	return Times{Run: max(0, t.Run-o.Run), Wait: max(0, t.Wait-o.Wait), Slices: max(0, t.Slices-o.Slices)}
}

// autogroupFile is where Linux says whether it groups processes by session
// for CPU fairness.
const autogroupFile = "/proc/sys/kernel/sched_autogroup_enabled"

// Autogroup reports whether the kernel schedules by autogroup (each session
// a group that gets an equal share of the CPUs when they are contended);
// known is false where it cannot tell. It only reads the setting.
func Autogroup() (enabled, known bool) {
	b, err := os.ReadFile(autogroupFile)
	if err != nil {
		return false, false
	}
	switch strings.TrimSpace(string(b)) {
	case "0":
		return false, true
	case "1":
		return true, true
	}
	return false, false
}
