//go:build !unix

package profile

// openFilesLimit is what rlbench assumes where it cannot ask the system.
func openFilesLimit() int64 { return fallbackOpenFiles }
