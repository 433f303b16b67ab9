// Package input reads the files rlbench is given — profiles, results, CA
// files — whole but bounded: only regular files and named pipes, never
// more than a limit, and a wait on a pipe ends with its context.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// TooLargeError is an input file larger than rlbench reads.
type TooLargeError struct {
	// What names the kind of input ("a result", "a profile").
	What string
	// Limit is the most bytes such an input may hold.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s, more than %s may hold", formatBytes(e.Limit), e.What)
}

// NotAFileError is an input path that is not a regular file or a pipe: a
// directory, a device (such as /dev/zero) or a socket.
type NotAFileError struct{ Kind string }

func (e *NotAFileError) Error() string { return "is " + e.Kind + ", not a file" }

// Read reads the file at path, an input of the kind what names, whole,
// and refuses anything that is not a regular file or a named pipe, or
// holds more than limit bytes, without reading past the limit. A named
// pipe is opened without waiting for a writer (one that has none reads as
// empty), and ctx ending stops a read that waits for a writer's data.
// Errors carry no path: callers name the file.
func Read(ctx context.Context, path, what string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		return nil, &NotAFileError{Kind: "a directory"}
	case mode&fs.ModeCharDevice != 0:
		return nil, &NotAFileError{Kind: "a character device"}
	case mode&fs.ModeDevice != 0:
		return nil, &NotAFileError{Kind: "a block device"}
	case mode&fs.ModeSocket != 0:
		return nil, &NotAFileError{Kind: "a socket"}
	case mode.IsRegular() && info.Size() > limit:
		return nil, &TooLargeError{What: what, Limit: limit}
	}
	// O_NONBLOCK keeps the open of a named pipe from waiting for a writer;
	// a regular file ignores it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
	defer stop()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, ctx.Err()
		}
		return nil, unwrapPath(err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{What: what, Limit: limit}
	}
	return data, nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// formatBytes renders a limit in whole binary units: 1 MiB, 256 MiB.
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
