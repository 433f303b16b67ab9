package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlbench/rlbench/result"
)

// runCLIWithin runs the command line with ctx and fails the test when it
// has not returned within limit.
func runCLIWithin(t *testing.T, ctx context.Context, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type outcome struct {
		code     int
		out, err string
	}
	done := make(chan outcome, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		done <- outcome{code, out.String(), errb.String()}
	}()
	select {
	case o := <-done:
		return o.code, o.out, o.err
	case <-time.After(limit):
		t.Fatalf("rlbench %s did not return within %s", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

// fifo makes a named pipe; with a writer, it also holds it open for
// writing (and writes nothing), as a generator that never finishes would.
func fifo(t *testing.T, withWriter bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if withWriter {
		// O_RDWR opens a FIFO without waiting for the other end.
		w, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
	}
	return path
}

// sparseFile makes a file of size bytes that takes no disk space.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInputsAreReadWithACap: a profile or a result that is a device or a
// file past the size cap is refused at once as bad input (exit 2),
// without reading it whole.
func TestInputsAreReadWithACap(t *testing.T) {
	bigProfile := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(bigProfile, append([]byte("name: big\n#"), bytes.Repeat([]byte("x"), 2<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"an endless device as a profile", []string{"validate", "/dev/zero"}, "/dev/zero: is a character device, not a file"},
		{"an endless device as a result", []string{"report", "--format", "text", "/dev/urandom"}, "/dev/urandom: is a character device, not a file"},
		{"an endless device as a baseline", []string{"compare", "/dev/zero", "/dev/zero"}, "/dev/zero: is a character device, not a file"},
		{"a directory as a profile", []string{"validate", t.TempDir()}, "is a directory, not a file"},
		{"a profile past the cap", []string{"validate", bigProfile}, "larger than 1 MiB, more than a profile may hold"},
		{"a result past the cap", []string{"report", sparseFile(t, result.MaxResultBytes+1)}, "larger than 256 MiB, more than a result may hold"},
	} {
		code, _, stderr := runCLIWithin(t, context.Background(), 10*time.Second, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.why, code, stderr, exitUsage, tc.want)
		}
	}
}

// TestFirstSignalStopsCommandsWithoutCallsInFlight: report, validate and
// compare have nothing to finish, so the first Ctrl-C (the context ending)
// stops them, even while they wait on a pipe whose writer never writes.
func TestFirstSignalStopsCommandsWithoutCallsInFlight(t *testing.T) {
	for _, args := range [][]string{
		{"validate", fifo(t, true)},
		{"report", "--format", "text", fifo(t, true)},
		// A pipe has no folder to write the report beside: -o names one.
		{"report", "-o", t.TempDir(), fifo(t, true)},
		{"compare", fifo(t, true), fifo(t, true)},
		{"algorithms", "--baseline", fifo(t, true)},
		// A pipe nobody has opened for writing yet is waited for, not
		// taken for empty.
		{"validate", fifo(t, false)},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		code, _, stderr := runCLIWithin(t, ctx, 10*time.Second, args...)
		cancel()
		if code != exitRuntime || !strings.Contains(stderr, "interrupted") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, interrupted", args[0], code, stderr, exitRuntime)
		}
	}
}

// TestAPipeWhoseWriterComesLater: a profile in a named pipe whose writer
// opens it only once rlbench has (a generator that starts late) is read
// whole; the writer does not wait forever for a reader.
func TestAPipeWhoseWriterComesLater(t *testing.T) {
	path := fifo(t, false)
	wrote := make(chan error, 1)
	go func() {
		// Opening for writing waits until rlbench opens for reading.
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			wrote <- err
			return
		}
		_, err = w.WriteString(tinyProfile)
		wrote <- errors.Join(err, w.Close())
	}()
	code, stdout, stderr := runCLIWithin(t, context.Background(), 10*time.Second, "validate", path)
	if code != exitOK || !strings.Contains(stdout, ": ok: 1 scenario x") {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
	select {
	case err := <-wrote:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the writer still waits")
	}
}
