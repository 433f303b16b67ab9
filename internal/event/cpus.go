package event

import (
	"os"
	"runtime"
)

// shareCPUs leaves one CPU to a Redis on this machine by lowering
// GOMAXPROCS to NumCPU-1, unless the user set GOMAXPROCS themselves or the
// machine has a single CPU: a load generator that competes with the server
// for cores measures its own contention. The returned function restores
// what was in effect before.
func shareCPUs() (undo func()) {
	if os.Getenv("GOMAXPROCS") != "" || runtime.NumCPU() < 2 {
		return func() {}
	}
	before := runtime.GOMAXPROCS(runtime.NumCPU() - 1)
	return func() { runtime.GOMAXPROCS(before) }
}
