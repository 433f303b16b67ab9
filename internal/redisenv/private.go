package redisenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
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
	env := &Env{Mode: Private, Addr: srv.Addr, Server: srv, stop: srv.Stop}
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
	dir  string
	// path and args start the server, again after a kill or a restart.
	path string
	args []string

	// mu guards the process, which a scheduled kill or restart replaces,
	// and stopped, which keeps a stopped server from being started again.
	mu      sync.Mutex
	proc    process
	stopped bool

	stopOnce sync.Once
	stopErr  error
}

// process is one start of a server. pgid is its process group: the binary
// on PATH may be a script that starts the real server as its child, so the
// whole group is what Stop ends. done is closed once it has been reaped.
type process struct {
	pgid int
	done chan struct{}
}

// Timing of a private server's stop. Each wait is bounded: a stop never
// hangs on a process that will not die or a pipe a grandchild holds.
const (
	// StopGrace is how long the group has after SIGTERM before SIGKILL.
	StopGrace = 3 * time.Second
	// killWait is how long the group has to vanish after SIGKILL.
	killWait = 2 * time.Second
	// quitGrace is StopGrace when rlbench is quitting at once (a second
	// Ctrl-C): a server without persistence ends in milliseconds.
	quitGrace = 300 * time.Millisecond
)

// logFile is where the server's own output goes, inside its directory: a
// file rather than a pipe, so that nothing waits for a pipe a grandchild
// still holds open.
const logFile = "redis-server.log"

// StartServer starts redis-server at path on a free 127.0.0.1 port and waits
// until it answers PING. The process runs in its own process group, so a
// Ctrl-C aimed at rlbench does not kill it before rlbench has read its
// figures, and it is killed if rlbench dies. Before starting, it removes
// what private servers of earlier rlbench processes that died without
// cleaning up left behind (see RemoveStaleDirs).
func StartServer(ctx context.Context, path string) (*Server, error) {
	RemoveStaleDirs(os.TempDir())
	return startServer(ctx, path, nil)
}

// startServer starts a server with the arguments extra gives each attempt
// (nil for none), trying again on a fresh port when one fails.
func startServer(ctx context.Context, path string, extra func() ([]string, error)) (*Server, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		srv, err := startOnce(ctx, path, extra)
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

func startOnce(ctx context.Context, path string, extra func() ([]string, error)) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	var more []string
	if extra != nil {
		if more, err = extra(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", serverDirPattern)
	if err != nil {
		return nil, err
	}
	if err := writeOwner(dir, 0); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, logFile))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	defer log.Close()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := append([]string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", "",
	}, more...)
	srv := &Server{Addr: addr, dir: dir, path: path, args: args}
	proc, err := srv.launch(log)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	srv.proc = proc
	register(srv)
	if err := writeOwner(dir, proc.pgid); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	if err := srv.waitReady(ctx, proc); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return srv, nil
}

// launch starts the server's process in a process group of its own, its
// output going to log. The process is killed if rlbench dies.
func (s *Server) launch(log *os.File) (process, error) {
	cmd := exec.Command(s.path, s.args...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return process{}, fmt.Errorf("starting %s: %w", s.path, err)
	}
	p := process{pgid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitReady waits, at most 5s, until the server's process p accepts
// connections.
func (s *Server) waitReady(ctx context.Context, p process) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", s.Addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		select {
		case <-p.done:
			out, _ := os.ReadFile(filepath.Join(s.dir, logFile))
			return fmt.Errorf("redis-server exited at start on %s: %s", s.Addr, bytes.TrimSpace(out))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not accept connections within 5s", s.Addr)
		}
	}
}

// Dir is the server's temporary directory (removed by Stop).
func (s *Server) Dir() string { return s.dir }

// Stop ends the server's whole process group (SIGTERM, then SIGKILL after
// StopGrace) and removes its directory. Every wait is bounded: if the group
// outlives SIGKILL, Stop says so instead of hanging. Calling it again, or
// from several goroutines, stops the server once.
func (s *Server) Stop() error { return s.stop(StopGrace) }

func (s *Server) stop(grace time.Duration) error {
	s.stopOnce.Do(func() {
		defer unregister(s)
		defer os.RemoveAll(s.dir)
		s.mu.Lock()
		s.stopped = true
		p := s.proc
		s.mu.Unlock()
		s.stopErr = p.end(grace)
	})
	return s.stopErr
}

// end signals the process group and waits, within bounds, until no
// process of it is left running and the direct child has been reaped. A
// group that a stall froze (SIGSTOP) is woken to take the signal. With no
// grace it is SIGKILL at once, as a crash would end it.
func (p process) end(grace time.Duration) error {
	if grace > 0 {
		_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
		_ = syscall.Kill(-p.pgid, syscall.SIGCONT)
	}
	if grace <= 0 || !waitGroupGone(p.pgid, grace) {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		if !waitGroupGone(p.pgid, killWait) {
			return fmt.Errorf("redis-server (process group %d) still runs after SIGKILL", p.pgid)
		}
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("redis-server (pid %d) was not reaped within %s", p.pgid, killWait)
	}
}

// waitGroupGone polls until no process of group pgid runs, or timeout.
func waitGroupGone(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !GroupRunning(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// live holds the private servers started and not yet stopped, so that a
// process that must quit at once can still stop them.
var live = struct {
	sync.Mutex
	servers map[*Server]struct{}
}{servers: map[*Server]struct{}{}}

func register(s *Server) {
	live.Lock()
	live.servers[s] = struct{}{}
	live.Unlock()
}

func unregister(s *Server) {
	live.Lock()
	delete(live.servers, s)
	live.Unlock()
}

// StopAll stops every private server this process started and has not
// stopped yet, and removes their directories, with a short grace period: it
// is what rlbench calls when asked to quit at once (a second Ctrl-C), so
// that quitting leaves no server running and no directory behind.
func StopAll() {
	live.Lock()
	servers := make([]*Server, 0, len(live.servers))
	for s := range live.servers {
		servers = append(servers, s)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Stop already under way may be giving the server its full
			// grace period; quitting does not wait for it.
			s.mu.Lock()
			p := s.proc
			s.mu.Unlock()
			select {
			case <-p.done:
			default:
				_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
			}
			_ = s.stop(quitGrace)
		}()
	}
	wg.Wait()
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
