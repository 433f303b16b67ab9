//go:build !linux

package event

// kernelAlarm is nil where the kernel has no timerfd: the runtime's own
// timers pace alone.
func kernelAlarm() func(at int64) { return nil }
