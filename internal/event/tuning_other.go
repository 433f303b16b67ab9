//go:build !linux

package event

import "time"

// preciseSleep falls back to time.Sleep where nanosleep tuning is not
// available.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// pinForPacing does nothing where timer slack cannot be tuned.
func pinForPacing() (unpin func()) { return func() {} }
