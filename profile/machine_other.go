//go:build !linux

package profile

// physicalMemory is what rlbench assumes where it cannot ask the system.
func physicalMemory() int64 { return fallbackMemory }
