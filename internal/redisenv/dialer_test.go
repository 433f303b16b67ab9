package redisenv

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestPlainDialerHidesTheDescriptor: a connection from plainDialer must not
// expose syscall.Conn, or go-redis goes back to a health-check system call
// on every request taken from the pool.
func TestPlainDialerHidesTheDescriptor(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			_ = c.Close()
		}
	}()
	c, err := plainDialer(time.Second)(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(syscall.Conn); ok {
		t.Fatalf("the dialed connection (%T) exposes syscall.Conn", c)
	}
}
