package input_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/input"
)

// mkfifo makes a named pipe in a directory of the test's.
func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

// readWithin runs input.Read in a goroutine and fails the test when it
// has not returned within limit.
func readWithin(t *testing.T, ctx context.Context, limit time.Duration, path string, max int64) ([]byte, error) {
	t.Helper()
	type got struct {
		data []byte
		err  error
	}
	done := make(chan got, 1)
	go func() {
		data, err := input.Read(ctx, path, "a test input", max)
		done <- got{data, err}
	}()
	select {
	case g := <-done:
		return g.data, g.err
	case <-time.After(limit):
		t.Fatalf("Read of %s did not return within %s", path, limit)
		return nil, nil
	}
}

// TestAPipeWaitsForItsWriter: a named pipe whose writer arrives after the
// reader found none (a generator that starts late) is read in full, not
// taken for empty; a writer that comes and leaves without writing is an
// empty input; a pipe nobody opens waits until the context ends. The
// writer comes right before the read waits for it, after the read saw no
// writer: certain, whatever the machine's speed.
func TestAPipeWaitsForItsWriter(t *testing.T) {
	for _, tc := range []struct {
		why   string
		write string
		want  string
	}{
		{"a writer that comes late and writes", "name: late\n", "name: late\n"},
		{"a writer that comes late and writes nothing", "", ""},
	} {
		path := mkfifo(t)
		came := false
		restore := input.SetBeforeWait(func() {
			came = true
			w, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			if _, err := w.WriteString(tc.write); err != nil {
				t.Error(err)
			}
		})
		data, err := readWithin(t, context.Background(), 10*time.Second, path, 1<<20)
		restore()
		if err != nil || string(data) != tc.want || !came {
			t.Errorf("%s: read %q, %v (the writer came late: %v); want %q", tc.why, data, err, came, tc.want)
		}
	}

	path := mkfifo(t)
	ctx, cancel := context.WithCancel(context.Background())
	restore := input.SetBeforeWait(cancel)
	defer restore()
	_, err := readWithin(t, ctx, 10*time.Second, path, 1<<20)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a pipe nobody opens: %v, want the context's end", err)
	}
}

// TestAPipeIsCutAtTheLimit: a pipe that holds more than the limit is
// refused once the limit is passed, without reading on.
func TestAPipeIsCutAtTheLimit(t *testing.T) {
	path := mkfifo(t)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.Write(make([]byte, 64<<10))
	}()
	_, err := readWithin(t, context.Background(), 10*time.Second, path, 1000)
	var tl *input.TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 1000 {
		t.Errorf("error %v, want a TooLargeError at 1000 bytes", err)
	}
}
