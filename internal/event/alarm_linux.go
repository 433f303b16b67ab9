//go:build linux

package event

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// kernelAlarm is a timerfd the runtime's poller watches (os.NewFile
// registers a non-blocking descriptor with it), and the function that
// sets it for an instant of the alarm's; nil when the kernel gives none.
// The file is never read and lives as long as the process.
func kernelAlarm() func(at int64) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "rlbench-pacing-alarm")
	if f == nil {
		_ = unix.Close(fd)
		return nil
	}
	// Kept reachable, so no finalizer closes the descriptor.
	alarmFile = f
	return func(at int64) {
		var spec unix.ItimerSpec
		if at != 0 {
			// A relative time, from the monotonic clock the instants
			// are read from: never zero, which would disarm it.
			spec.Value = unix.NsecToTimespec(max(at-int64(time.Since(monoBase)), 1))
		}
		_ = unix.TimerfdSettime(fd, 0, &spec, nil)
	}
}

// alarmFile holds the alarm's descriptor open.
var alarmFile *os.File
