package redisenv

import (
	"context"
	"net"
	"time"
)

// plainDialer dials TCP and hides the connection's file descriptor from
// go-redis. go-redis health-checks every connection it takes from the pool
// with a non-blocking peek (a system call per request) when it can reach the
// descriptor; on a small machine that costs a measurable share of the
// throughput rlbench is trying to measure. A connection that died while idle
// then fails its next call, which is counted as an error like any other.
func plainDialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return opaqueConn{c}, nil
	}
}

// opaqueConn is a net.Conn that does not expose syscall.Conn.
type opaqueConn struct{ net.Conn }
