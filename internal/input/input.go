// Package input reads the files rlbench is given — profiles, results, CA
// files — bounded: only regular files and named pipes, never more than a
// limit, and a wait on a pipe (for its writer to come, or to write) ends
// with its context.
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

	"golang.org/x/sys/unix"
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

// Read reads the file at path, an input of the kind what names, whole (see
// Open).
func Read(ctx context.Context, path, what string, limit int64) ([]byte, error) {
	r, err := Open(ctx, path, what, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Reader reads an input file within its limit: past limit bytes a read
// fails with a *TooLargeError, and once its context ends with the
// context's error, even while it waits on a pipe.
type Reader struct {
	ctx   context.Context
	f     *os.File
	stop  func() bool
	what  string
	limit int64
	read  int64
	// pipe is a named pipe; waited says a read already waited for a
	// writer to come (or come and go).
	pipe, waited bool
}

// Open opens the file at path, an input of the kind what names, and
// refuses anything that is not a regular file or a named pipe, or a
// regular file of more than limit bytes. A named pipe is opened without
// waiting for a writer; its first read then waits for one to write or to
// close (a generator that starts later, as `validate <(generate)` may),
// until ctx ends. Errors carry no path: callers name the file.
func Open(ctx context.Context, path, what string, limit int64) (*Reader, error) {
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
	// O_NONBLOCK keeps the open of a named pipe from waiting for a writer
	// (an open that cannot be interrupted); a regular file ignores it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrapPath(err)
	}
	r := &Reader{ctx: ctx, f: f, what: what, limit: limit, pipe: mode&fs.ModeNamedPipe != 0}
	r.stop = context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
	return r, nil
}

// Read reads up to len(p) bytes, never past the limit.
func (r *Reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if room := r.limit + 1 - r.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.f.Read(p)
	if n == 0 && errors.Is(err, io.EOF) && r.pipe && !r.waited && r.read == 0 {
		// Nobody has opened the pipe for writing yet: wait until a
		// writer writes or leaves, then read again.
		r.waited = true
		if beforeWait != nil {
			beforeWait()
		}
		if err := r.waitWriter(); err != nil {
			return 0, err
		}
		n, err = r.f.Read(p)
	}
	r.read += int64(n)
	if r.read > r.limit {
		return 0, &TooLargeError{What: r.what, Limit: r.limit}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		if r.ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return n, r.ctx.Err()
		}
		return n, unwrapPath(err)
	}
	return n, err
}

// beforeWait, when set, runs right before a read waits for a pipe's
// writer: a test opens the writer there, certain the read saw none.
var beforeWait func()

// waitWriter waits until the pipe is readable: a writer wrote, or one
// came and closed it. Until a writer has opened the pipe since it was
// opened here, poll reports neither; the poller's wait then ends at the
// first event after the check.
func (r *Reader) waitWriter() error {
	raw, err := r.f.SyscallConn()
	if err != nil {
		return err
	}
	err = raw.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err != nil || (n > 0 && fds[0].Revents != 0)
	})
	if err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		return unwrapPath(err)
	}
	return nil
}

// Close closes the file.
func (r *Reader) Close() error {
	r.stop()
	return r.f.Close()
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
