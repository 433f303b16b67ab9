//go:build linux

package probe

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes is the process's resident set size, from /proc/self/statm
// (its second field, in pages); 0 when it cannot be read.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
