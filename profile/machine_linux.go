package profile

import "syscall"

// physicalMemory is the machine's RAM in bytes.
func physicalMemory() int64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil || info.Totalram == 0 {
		return fallbackMemory
	}
	return int64(info.Totalram) * int64(info.Unit)
}
