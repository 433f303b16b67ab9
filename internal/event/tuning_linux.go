//go:build linux

package event

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleep blocks the calling thread in nanosleep. Go's own timers wake
// through the network poller, whose timeout is in whole milliseconds: on a
// small machine that adds about 0.6 ms to every short sleep, which an open
// loop would record as latency that Redis never caused.
func preciseSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

// pinForPacing, for RealClock, locks the pacing goroutine to its thread and sets the
// thread's timer slack to 1ns (the default 50us is slack the schedule would
// inherit). A thread asleep in nanosleep keeps its P; with a single P (as
// when rlbench leaves a local Redis the other CPU) the workers' replies then
// wait for the runtime to take the P back, about 80us a request here. So
// pacing gets a second P while it runs. The returned function undoes both.
func pinForPacing() (unpin func()) {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 {
		runtime.GOMAXPROCS(2)
	}
	return func() {
		if procs < 2 {
			runtime.GOMAXPROCS(procs)
		}
		runtime.UnlockOSThread()
	}
}
