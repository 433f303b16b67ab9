package recorder

import (
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

// TestErrorsGroupByKind: the 141 timeouts, each naming the socket
// it happened on, are one kind with one example, not 141 messages.
func TestErrorsGroupByKind(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	rec := New(start)
	record := func(n int, err func(i int) error) {
		for i := 0; i < n; i++ {
			rec.Record(i, &event.Outcome{Due: start, Sent: start, Done: start.Add(time.Millisecond), Err: err(i)})
		}
	}
	record(141, func(i int) error {
		return &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000 + i},
			Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6379}, Err: os.ErrDeadlineExceeded}
	})
	record(3, func(int) error {
		return replyError("NOPERM User bench has no permissions to run the 'evalsha' command")
	})
	record(2, func(int) error { return io.EOF })
	var run result.Run
	rec.Fill(&run)

	if len(run.Errors) != 3 {
		t.Fatalf("%d error entries, want 3 kinds: %+v", len(run.Errors), run.Errors)
	}
	for i, want := range []struct {
		kind  string
		count int64
	}{{"timeout", 141}, {"NOPERM", 3}, {"EOF", 2}} {
		e := run.Errors[i]
		if e.Kind != want.kind || e.Count != want.count || e.Message == "" {
			t.Errorf("entry %d: %+v, want kind %s x%d with an example", i, e, want.kind, want.count)
		}
	}
	if got := fmt.Sprint(run.Errors[0].Message); got == "" || run.Requests.Errors != 146 {
		t.Errorf("example %q, %d errors", got, run.Requests.Errors)
	}
}
