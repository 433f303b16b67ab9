//go:build unix

package profile

import (
	"math"
	"syscall"
)

// openFilesLimit is the hard limit on open files.
func openFilesLimit() int64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fallbackOpenFiles
	}
	if lim.Max > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lim.Max)
}
