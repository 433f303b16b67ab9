//go:build !linux

package redisenv

import (
	"strconv"
	"syscall"
)

// ProcessRunning reports whether pid exists (without /proc, a process
// that ended but was not reaped cannot be told from one that runs).
func ProcessRunning(pid int) bool { return syscall.Kill(pid, 0) != syscall.ESRCH }

// GroupRunning reports whether any process of group pgid still exists.
func GroupRunning(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// processIdentity is the pid itself when the process exists (without
// /proc, a later process with the same pid cannot be told apart), and ""
// when it does not.
func processIdentity(pid int) string {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return ""
	}
	return strconv.Itoa(pid)
}

// processGroup is pid's process group, or -1 when it is unknown.
func processGroup(pid int) int {
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		return -1
	}
	return pgid
}

// ProcessesIn cannot tell which processes work in a directory without
// /proc: it finds none.
func ProcessesIn(string) []int { return nil }
