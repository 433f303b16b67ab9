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
	"sync/atomic"
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
	if err := env.connect(ctx, &redis.Options{Addr: srv.Addr, OnConnect: guardOwned}, o); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return env, nil
}

// Server is a redis-server process rlbench started: loopback only, no
// persistence, its files in a temporary directory removed on Stop. It is
// rlbench's only once proved so (see prove): the server answering on Addr
// is the one working in that directory.
type Server struct {
	// Addr is 127.0.0.1:port.
	Addr string
	port int
	dir  string
	// realDir is dir with symbolic links resolved, as a process's working
	// directory reads; socket is the server's unix socket inside dir.
	realDir string
	socket  string
	// path and args start the server, again after a kill or a restart.
	path string
	args []string

	// mu guards the process, which a scheduled kill or restart replaces,
	// and stopped, which keeps a stopped server from being started again.
	mu      sync.Mutex
	proc    *process
	stopped bool

	stopOnce sync.Once
	stopErr  error
}

// process is one start of a server. pgid is its process group: the binary
// on PATH may be a script that starts the real server as its child, so the
// whole group is what Stop ends. done is closed once the direct child has
// been reaped, exitErr (set before) says how it ended. owner is what the
// proof learned of the server, which may have left the group (a wrapper
// that runs it under setsid, or daemonizes it).
type process struct {
	pgid    int
	done    chan struct{}
	exitErr error
	owner   atomic.Pointer[owner]
}

// Timing of a private server's start and stop. Each wait is bounded: a
// stop never hangs on a process that will not die or a pipe a grandchild
// holds.
const (
	// StopGrace is how long the group has after SIGTERM before SIGKILL.
	StopGrace = 3 * time.Second
	// killWait is how long the group has to vanish after SIGKILL.
	killWait = 2 * time.Second
	// quitGrace is StopGrace when rlbench is quitting at once (a second
	// Ctrl-C): a server without persistence ends in milliseconds.
	quitGrace = 300 * time.Millisecond
	// readyTimeout bounds the wait until a started server is proved.
	readyTimeout = 5 * time.Second
	// startAttempts is how many fresh ports a start tries.
	startAttempts = 3
)

// logFile is where the server's own output goes, inside its directory: a
// file rather than a pipe, so that nothing waits for a pipe a grandchild
// still holds open.
const logFile = "redis-server.log"

// launchInfo describes one launch of a server's process, for launchHook.
type launchInfo struct {
	// Port is the loopback port the server is about to be told.
	Port int
	// Attempt counts the fresh ports a start has tried before this one.
	Attempt int
	// Restart is a start again on the same port (after a kill or a
	// restart fault).
	Restart bool
}

// launchHook, when set, runs right before each launch: a test starts
// another program's server on the port there, to make the race with it
// certain.
var launchHook func(launchInfo)

// StartServer starts redis-server at path on a free 127.0.0.1 port and waits
// until it is proved the server answering there (see prove), trying other
// ports when it is not. The process runs in its own process group, so a
// Ctrl-C aimed at rlbench does not kill it before rlbench has read its
// figures, and it is killed if rlbench dies. Before starting, it removes
// what private servers of earlier rlbench processes that died without
// cleaning up left behind (see RemoveStaleDirs).
func StartServer(ctx context.Context, path string) (*Server, error) {
	if err := checkTempDir(); err != nil {
		return nil, err
	}
	RemoveStaleDirs(os.TempDir())
	return startServer(ctx, path, nil)
}

// startServer starts a server with the arguments extra gives each attempt
// (nil for none), trying again on a fresh port when one fails: the port
// may have been taken, or something else may answer there.
func startServer(ctx context.Context, path string, extra func() ([]string, error)) (*Server, error) {
	// A directory too deep for the socket fails the same on every port:
	// say so once. MkdirTemp adds at most 10 digits to the pattern.
	if _, err := socketPath(filepath.Join(os.TempDir(), serverDirPattern+"0123456789")); err != nil {
		return nil, err
	}
	var errs []error
	for attempt := range startAttempts {
		srv, err := startOnce(ctx, path, extra, attempt)
		if err == nil {
			return srv, nil
		}
		var setup *setupError
		if errors.As(err, &setup) {
			// Not the port's doing: every port would fail the same.
			return nil, setup.err
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("starting redis-server failed on %d fresh ports: %w", startAttempts, errors.Join(errs...))
}

func startOnce(ctx context.Context, path string, extra func() ([]string, error), attempt int) (*Server, error) {
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
		return nil, &setupError{fmt.Errorf("creating the private redis-server's directory in %s: %w", os.TempDir(), unwrapPath(err))}
	}
	srv, err := newServer(path, dir, port, more)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, &setupError{err}
	}
	if err := writeOwner(dir, 0, nil); err != nil {
		_ = os.RemoveAll(dir)
		return nil, &setupError{err}
	}
	log, err := os.Create(filepath.Join(dir, logFile))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, &setupError{err}
	}
	defer log.Close()
	if launchHook != nil {
		launchHook(launchInfo{Port: port, Attempt: attempt})
	}
	proc, err := srv.launch(log)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, &setupError{err}
	}
	srv.proc = proc
	register(srv)
	if err := writeOwner(dir, proc.pgid, nil); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	if err := srv.waitProved(ctx, proc); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return srv, nil
}

// setupError is a start that failed before the server ran (its
// directory, its files, the program): another port would not help.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// newServer describes a server to start from path in dir on port, with
// more arguments.
func newServer(path, dir string, port int, more []string) (*Server, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	sock, err := socketPath(dir)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--unixsocket", sock,
		"--unixsocketperm", "700",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", "",
	}, more...)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return &Server{Addr: addr, port: port, dir: dir, realDir: real, socket: sock, path: path, args: args}, nil
}

// launch starts the server's process in a process group of its own, its
// output going to log. The process is killed if rlbench dies.
func (s *Server) launch(log *os.File) (*process, error) {
	cmd := exec.Command(s.path, s.args...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", s.path, unwrapPath(err))
	}
	p := &process{pgid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { p.exitErr = cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitProved waits, at most readyTimeout, until the server of process p
// is proved the one answering on its address, and records what it said
// of itself in the owner file. Something else answering there, or the
// process failing, ends the wait at once. A process that ends well
// (a wrapper that daemonized the server) leaves the server to answer.
func (s *Server) waitProved(ctx context.Context, p *process) error {
	deadline := time.Now().Add(readyTimeout)
	done := p.done
	for {
		o, err := s.prove(ctx)
		if err == nil {
			p.owner.Store(&o)
			markProved(o.runID)
			return writeOwner(s.dir, p.pgid, &o)
		}
		if !errors.Is(err, errNotYet) {
			return err
		}
		select {
		case <-done:
			if p.exitErr != nil {
				out, _ := os.ReadFile(filepath.Join(s.dir, logFile))
				return fmt.Errorf("redis-server exited at start on %s (%v): %s", s.Addr, p.exitErr, bytes.TrimSpace(out))
			}
			done = nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not answer on its unix socket and its port within %s (a script that starts it must pass every argument rlbench gives on): %v",
				s.Addr, readyTimeout, err)
		}
	}
}

// Dir is the server's temporary directory (removed by Stop).
func (s *Server) Dir() string { return s.dir }

// Stop ends the server's whole process group, and the server itself where
// it left the group (SIGTERM, then SIGKILL after StopGrace), and removes
// its directory. Every wait is bounded: if the server outlives SIGKILL,
// Stop says so, naming its process, instead of hanging. Calling it again,
// or from several goroutines, stops the server once.
func (s *Server) Stop() error { return s.stop(StopGrace) }

func (s *Server) stop(grace time.Duration) error {
	s.stopOnce.Do(func() {
		defer unregister(s)
		defer os.RemoveAll(s.dir)
		s.mu.Lock()
		s.stopped = true
		p := s.proc
		s.mu.Unlock()
		s.stopErr = s.end(p, grace)
	})
	return s.stopErr
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
