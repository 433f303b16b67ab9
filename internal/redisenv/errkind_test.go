package redisenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// replyError is an error Redis answered, as go-redis returns it.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

var _ redis.Error = replyError("")

func TestErrorKind(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{Port: 50123}, Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		why  string
		err  error
		want string
	}{
		{"a read that timed out, naming its socket", timeout, KindTimeout},
		{"a call whose context deadline passed", fmt.Errorf("evalsha: %w", context.DeadlineExceeded), KindTimeout},
		{"the pool had no connection in time", redis.ErrPoolTimeout, KindTimeout},
		{"nobody listens", &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}, KindRefused},
		{"the server closed the connection", io.EOF, KindEOF},
		{"it closed it mid-reply", io.ErrUnexpectedEOF, KindEOF},
		{"it reset it", &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}, KindReset},
		{"an ACL refusal", replyError("NOPERM User bench has no permissions to run the 'evalsha' command"), "NOPERM"},
		{"out of memory", replyError("OOM command not allowed when used memory > 'maxmemory'."), "OOM"},
		{"the script is gone", replyError("NOSCRIPT No matching script. Please use EVAL."), "NOSCRIPT"},
		{"a generic error reply", replyError("ERR wrong number of arguments"), "ERR"},
		{"a reply with no error code", replyError("something odd"), KindOther},
		{"a server not proved rlbench's own", fmt.Errorf("dial: %w", &NotOwnedError{Reason: "run_id 1234 is none of the servers rlbench started"}), KindNotOwned},
		{"anything else", errors.New("reply has 3 elements, want 4"), KindOther},
	} {
		if got := ErrorKind(tc.err); got != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.why, got, tc.want)
		}
	}
}

func TestMayHaveRun(t *testing.T) {
	for _, tc := range []struct {
		why  string
		err  error
		want bool
	}{
		{"a connection nobody accepted sent nothing", &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}, false},
		{"a connection to a server not proved rlbench's own sent nothing", &NotOwnedError{Reason: "run_id 1234"}, false},
		{"an error reply is the server saying it did not run it", replyError("NOSCRIPT No matching script."), false},
		{"a connection closed under the call may have carried it", io.EOF, true},
		{"a call that timed out may have run", context.DeadlineExceeded, true},
	} {
		if got := MayHaveRun(tc.err); got != tc.want {
			t.Errorf("%s: MayHaveRun %v, want %v", tc.why, got, tc.want)
		}
	}
}
