package redisenv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkTempDir checks, once before any private server is started, that
// the temporary directory (TMPDIR, else /tmp) can hold the servers'
// folders: it exists, is a directory, and takes a folder (one is made and
// removed). What is wrong with it is the same on every port and every
// node, so it is said once, naming the directory and what to do.
func checkTempDir() error {
	dir := os.TempDir()
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the temporary directory %s does not exist: rlbench keeps its private redis-server's files there; "+
			"set TMPDIR to a directory that exists", dir)
	case err != nil:
		return fmt.Errorf("the temporary directory %s: %w; set TMPDIR to a directory rlbench may write in", dir, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("the temporary directory %s is not a directory; set TMPDIR to a directory rlbench may write in", dir)
	}
	probe, err := os.MkdirTemp(dir, ".rlbench-tmpdir-check-")
	if err != nil {
		return fmt.Errorf("the temporary directory %s takes no folder for rlbench's private redis-server: %w; "+
			"set TMPDIR to a directory rlbench may write in", dir, unwrapPath(err))
	}
	if err := os.Remove(probe); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
