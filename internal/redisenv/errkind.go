package redisenv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Kinds of failed calls that are not an error Redis answered; those are
// named by their error code (NOPERM, OOM, NOSCRIPT, ERR, ...).
const (
	// KindTimeout is a call that got no answer in time.
	KindTimeout = "timeout"
	// KindRefused is a connection nobody accepted.
	KindRefused = "connection refused"
	// KindEOF is a connection the server closed.
	KindEOF = "EOF"
	// KindReset is a connection reset under the call.
	KindReset = "connection reset"
	// KindNotOwned is a connection to a server rlbench has not proved its
	// own (a private server restarted and not yet proved, or whatever took
	// its port): the call was never sent.
	KindNotOwned = "not rlbench's server"
	// KindOther is everything else.
	KindOther = "other"
)

// ErrorKind names what kind of failure err is, so that failures group by
// what went wrong rather than by message: a message names the socket it
// happened on, and a hundred timeouts on a hundred sockets are one kind.
func ErrorKind(err error) string {
	err = unfinalize(err)
	var reply redis.Error
	if errors.As(err, &reply) {
		return replyCode(reply.Error())
	}
	var ne net.Error
	var notOwned *NotOwnedError
	switch {
	case errors.As(err, &notOwned):
		return KindNotOwned
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, redis.ErrPoolTimeout),
		errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return KindEOF
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return KindReset
	}
	return KindOther
}

// replyCode is the error code that starts a Redis error reply ("NOPERM",
// "OOM"), or KindOther when it starts with none.
func replyCode(msg string) string {
	code, _, _ := strings.Cut(msg, " ")
	if code == "" || len(code) > 32 {
		return KindOther
	}
	for _, c := range code {
		if (c < 'A' || c > 'Z') && c != '_' {
			return KindOther
		}
	}
	return code
}

// MayHaveRun reports whether a call that failed with err may have run on
// the server all the same: it timed out, or its connection broke, after
// the command may have left. A connection that was never made sent
// nothing, and an error reply is the server saying it did not run it.
func MayHaveRun(err error) bool {
	if err == nil {
		return false
	}
	var reply redis.Error
	if errors.As(err, &reply) {
		return false
	}
	kind := ErrorKind(err)
	return kind != KindRefused && kind != KindNotOwned
}
