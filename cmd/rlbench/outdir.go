package main

import (
	"errors"
	"io/fs"
	"os"
)

// checkOutDir makes sure results can be written under dir before a run
// starts, so that an --out that is a file, a device or a place nobody may
// write fails at once instead of after the run, losing its result. It
// creates dir if need be and writes (then removes) a file in it.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErrorf("--out %s: cannot hold results: %v", dir, plainError(err))
	}
	f, err := os.CreateTemp(dir, ".rlbench-write-check-*")
	if err != nil {
		return usageErrorf("--out %s: cannot hold results: %v", dir, plainError(err))
	}
	name := f.Name()
	err = f.Close()
	if rmErr := os.Remove(name); err == nil {
		err = rmErr
	}
	if err != nil {
		return usageErrorf("--out %s: cannot hold results: %v", dir, plainError(err))
	}
	return nil
}

// plainError drops the path an *fs.PathError repeats.
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
