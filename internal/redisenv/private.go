package redisenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// ErrNoServer is returned when no redis-server can be found and the embedded
// fallback was refused.
var ErrNoServer = errors.New("no redis-server on PATH (install the Debian package redis-server)")

// openPrivate starts a private redis-server, or an embedded server when none
// is installed.
func openPrivate(ctx context.Context, o Options) (*Env, error) {
	path := o.ServerPath
	if path == "" {
		p, err := exec.LookPath("redis-server")
		if err != nil {
			if o.NoEmbedded {
				return nil, ErrNoServer
			}
			return openEmbedded(ctx, o)
		}
		path = p
	}
	srv, err := StartServer(ctx, path)
	if err != nil {
		return nil, err
	}
	env := &Env{Mode: Private, Addr: srv.Addr, stop: srv.Stop}
	if err := env.connect(ctx, &redis.Options{Addr: srv.Addr}, o); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return env, nil
}

// Server is a redis-server process rlbench started: loopback only, no
// persistence, its files in a temporary directory removed on Stop.
type Server struct {
	// Addr is 127.0.0.1:port.
	Addr string
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
	log  *bytes.Buffer
}

// StartServer starts redis-server at path on a free 127.0.0.1 port and waits
// until it answers PING. The process runs in its own process group, so a
// Ctrl-C aimed at rlbench does not kill it before rlbench has read its
// figures, and it is killed if rlbench dies.
func StartServer(ctx context.Context, path string) (*Server, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		srv, err := startOnce(ctx, path)
		if err == nil {
			return srv, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, path string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rlbench-redis-")
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(path,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", "",
	)
	log := &bytes.Buffer{}
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	srv := &Server{Addr: addr, cmd: cmd, dir: dir, done: make(chan struct{}), log: log}
	go func() { _ = cmd.Wait(); close(srv.done) }()

	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return srv, nil
		}
		select {
		case <-srv.done:
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("redis-server exited at start on %s: %s", addr, bytes.TrimSpace(log.Bytes()))
		case <-ctx.Done():
			_ = srv.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = srv.Stop()
			return nil, fmt.Errorf("redis-server on %s did not accept connections within 5s", addr)
		}
	}
}

// Stop terminates the server (SIGTERM, then SIGKILL after 3s) and removes
// its directory.
func (s *Server) Stop() error {
	defer os.RemoveAll(s.dir)
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return nil
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// EmbeddedNote is what rlbench says about figures from the embedded server.
const EmbeddedNote = "no redis-server found: running an embedded in-process server (miniredis); latency and memory figures are not Redis figures"

func openEmbedded(ctx context.Context, o Options) (*Env, error) {
	m := miniredis.NewMiniRedis()
	// Without this, miniredis keys never expire on their own.
	m.ClockTTL(true)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("starting the embedded server: %w", err)
	}
	env := &Env{Mode: Embedded, Addr: m.Addr(), Note: EmbeddedNote, stop: func() error { m.Close(); return nil }}
	if err := env.connect(ctx, &redis.Options{Addr: m.Addr()}, o); err != nil {
		m.Close()
		return nil, err
	}
	if env.Version == "" {
		env.Version = "miniredis"
	}
	return env, nil
}
