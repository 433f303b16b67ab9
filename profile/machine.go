package profile

import "runtime"

// machineLimits is what the machine running rlbench can hold, which bounds
// every number in a profile that makes rlbench allocate.
type machineLimits struct {
	// memoryBytes is the machine's physical memory; rlbench plans to use
	// at most half of it (see spare).
	memoryBytes int64
	// openFiles is how many files (connections) the process may open: the
	// hard RLIMIT_NOFILE, to which Go raises the soft limit at start.
	openFiles int64
	// cpus sizes the per-CPU parts of the engine's bookkeeping.
	cpus int
}

// machine is this machine, read once.
var machine = machineLimits{memoryBytes: physicalMemory(), openFiles: openFilesLimit(), cpus: runtime.NumCPU()}

// spare is the memory a run may plan to use: half the machine, leaving the
// rest to the system, a Redis on the same machine, and the garbage
// collector's headroom.
func (m machineLimits) spare() int64 { return m.memoryBytes / 2 }

// What rlbench assumes where the system does not say.
const (
	fallbackMemory    = 4 << 30
	fallbackOpenFiles = 1024
)
