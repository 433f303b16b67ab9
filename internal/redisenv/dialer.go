package redisenv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
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

// tlsDialer dials TCP and completes the TLS handshake within timeout,
// verifying the server's certificate for cfg.ServerName, or when that is
// empty (a cluster) for the host it dialled. A
// handshake that fails, or gets no TLS answer in time (a plain Redis reads
// the ClientHello as a command and waits for the rest of it), is a
// *HandshakeError that says so, rather than a bare deadline.
func tlsDialer(timeout time.Duration, cfg *tls.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		hctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		conf := cfg
		if cfg.ServerName == "" {
			// A cluster's nodes each have their own name: the host dialled.
			host, _, _ := net.SplitHostPort(addr)
			conf = cfg.Clone()
			conf.ServerName = host
		}
		tc := tls.Client(c, conf)
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = c.Close()
			return nil, &HandshakeError{Addr: addr, Err: err}
		}
		return tc, nil
	}
}

// HandshakeError is a TLS connection whose handshake failed.
type HandshakeError struct {
	Addr string
	Err  error
}

func (e *HandshakeError) Error() string {
	msg := fmt.Sprintf("TLS handshake with %s failed", e.Addr)
	var re tls.RecordHeaderError
	if errors.Is(e.Err, context.DeadlineExceeded) || errors.As(e.Err, &re) || errors.Is(e.Err, io.EOF) {
		msg += " (does the server speak TLS on this port? rediss:// and tls: true need its TLS port)"
	}
	return msg + ": " + e.Err.Error()
}

func (e *HandshakeError) Unwrap() error { return e.Err }
