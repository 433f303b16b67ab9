package input

// SetBeforeWait makes hook run right before a read waits for a pipe's
// writer, until the returned function restores the default.
func SetBeforeWait(hook func()) (restore func()) {
	old := beforeWait
	beforeWait = hook
	return func() { beforeWait = old }
}
