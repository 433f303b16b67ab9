package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// loadAverage is the one-minute load average (/proc/loadavg), or -1 when
// it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// quietness says whether the ratios were measured on a quiet machine: the
// target is for one where the tools and the server have the CPUs to
// themselves. Before the measurements nothing of theirs runs, so a load
// average above one means others were busy; during them a tool and the
// server keep up to two CPUs busy, so a load past the CPUs (and a half)
// after them means others were too.
func quietness(before, after float64, cpus int) string {
	if before < 0 || after < 0 {
		return "machine load: unknown (no /proc/loadavg): whether it was quiet cannot be told"
	}
	if before > 1 || after > float64(cpus)+0.5 {
		return fmt.Sprintf("machine load: BUSY (load average %.1f before, %.1f after, on %d CPUs): the ratios were measured side by side, "+
			"so both tools met the same load, but not on a quiet machine; the target (>= 0.9) is for a quiet one", before, after, cpus)
	}
	return fmt.Sprintf("machine load: quiet (load average %.1f before, %.1f after, on %d CPUs)", before, after, cpus)
}
