package redisenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what rlbench reads of /proc/<pid>/stat.
type procStat struct {
	state     byte
	pgrp      int
	startTime uint64 // clock ticks after boot
}

// readProcStat parses /proc/<pid>/stat. The command name in parentheses
// may itself hold spaces and parentheses, so fields are counted from the
// last ')'.
func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	// After ")": state(3) ppid(4) pgrp(5) ... starttime(22).
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp, startTime: start}, true
}

// running reports whether the process has not ended: a zombie has (it
// holds no port, file or memory, only an exit status nobody collected).
func (p procStat) running() bool { return p.state != 'Z' && p.state != 'X' }

// processes lists the pids in /proc.
func processes() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ProcessRunning reports whether pid is a running process: one that
// exists and has not ended (see procStat.running).
func ProcessRunning(pid int) bool {
	st, ok := readProcStat(pid)
	return ok && st.running()
}

// GroupRunning reports whether any process of group pgid still runs.
func GroupRunning(pgid int) bool {
	for _, pid := range processes() {
		if st, ok := readProcStat(pid); ok && st.pgrp == pgid && st.running() {
			return true
		}
	}
	return false
}

// processIdentity is what tells one process from a later one that got the
// same pid: its start time. It is "" when the process does not exist.
func processIdentity(pid int) string {
	st, ok := readProcStat(pid)
	if !ok || !st.running() {
		return ""
	}
	return strconv.FormatUint(st.startTime, 10)
}

// ProcessesIn lists the running processes whose working directory is dir:
// redis-server changes into the directory its --dir names, so these are
// servers started there.
func ProcessesIn(dir string) []int {
	var out []int
	for _, pid := range processes() {
		cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
		if err == nil && cwd == dir && ProcessRunning(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// processGroup is pid's process group, or -1 when it is unknown.
func processGroup(pid int) int {
	if st, ok := readProcStat(pid); ok {
		return st.pgrp
	}
	return -1
}
