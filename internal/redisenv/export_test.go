package redisenv

// Launch describes a launch of a private server's process, for tests.
type Launch = launchInfo

// SetLaunchHook makes hook run right before each launch of a private
// server's process, until the returned function restores the default.
func SetLaunchHook(hook func(Launch)) (restore func()) {
	old := launchHook
	launchHook = hook
	return func() { launchHook = old }
}

// ProcessIdentity tells a process from a later one with the same pid.
var ProcessIdentity = processIdentity
