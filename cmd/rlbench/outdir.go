package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkOutDir makes sure results can be written under dir before a run
// starts, so that an --out that is a file, a device or a place nobody may
// write fails at once instead of after the run, losing its result. It
// creates dir if need be and writes (then removes) a file in it.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErrorf("--out %s: cannot hold results: %v", dir, plainError(err))
	}
	if err := checkWritable(dir); err != nil {
		return usageErrorf("--out %s: cannot hold results: %v", dir, err)
	}
	return nil
}

// checkWritable checks that files can be created in the folder dir by
// creating one (then removing it): the permissions alone do not say so (a
// read-only mount, a filesystem such as /proc or /sys, root).
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".rlbench-write-check-*")
	if err != nil {
		return plainError(err)
	}
	name := f.Name()
	err = f.Close()
	if rmErr := os.Remove(name); err == nil {
		err = rmErr
	}
	return plainError(err)
}

// fileKind says what a path of this mode is when it is not a regular
// file, for a message ("a pipe"); "" for a regular file.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return ""
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a pipe"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// plainError drops the path an *fs.PathError repeats.
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// maxResultDirSuffix bounds the suffixes tried for a result's folder.
const maxResultDirSuffix = 1000

// newResultDir creates the folder a result is written into, under parent,
// named name, or name-2, name-3, ... when that is taken: two runs of one
// profile started in the same second (their names are the profile and the
// start to the second) each get a folder of their own, created
// exclusively, and neither overwrites the other's result.
func newResultDir(parent, name string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= maxResultDirSuffix; i++ {
		dir := filepath.Join(parent, name)
		if i > 1 {
			dir = filepath.Join(parent, fmt.Sprintf("%s-%d", name, i))
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: %s and %d more folders of that name are taken", parent, name, maxResultDirSuffix-1)
}

// inputFolder is the folder of the input file at path, where a command
// writes its output unless told where: a report beside its result, a
// profile beside its Lua. It is "" when path is not a file in a folder of
// files — a pipe or a device, or a path under /dev or /proc such as
// /dev/stdin or /dev/fd/63, whose folder holds devices and descriptors,
// not the user's files — and kind then says what path is, for a message.
// A path that cannot be read is left to the read to report.
func inputFolder(path string) (dir, kind string) {
	fi, err := os.Stat(path)
	if err != nil {
		return filepath.Dir(path), ""
	}
	if kind := fileKind(fi.Mode()); kind != "" {
		return "", kind
	}
	dir = filepath.Dir(path)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, ""
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	if under(abs, "/dev/shm") {
		// A folder of files in memory, like /tmp.
		return dir, ""
	}
	for _, special := range []string{"/dev", "/proc"} {
		if under(abs, special) {
			return "", "a file under " + special + " (a device or a descriptor)"
		}
	}
	return dir, ""
}

// under reports whether the absolute path abs is dir or lies in it.
func under(abs, dir string) bool {
	return abs == dir || strings.HasPrefix(abs, dir+"/")
}
