package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// daemon is a redis-server started the way a service runs: --daemonize
// yes, so it forks, leaves this process's session (setsid) and runs on in
// the background, not a child of benchcmp.
type daemon struct {
	addr string
	dir  string
	pid  int
}

// startDaemon starts a daemonized redis-server on a free loopback port,
// without persistence, and waits until it answers.
func startDaemon(ctx context.Context, path string) (*daemon, error) {
	port, err := redisenv.FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchcmp-daemon-")
	if err != nil {
		return nil, err
	}
	pidfile := filepath.Join(dir, "redis.pid")
	out, err := exec.CommandContext(ctx, path,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "yes", "--pidfile", pidfile, "--logfile", filepath.Join(dir, "redis.log"),
	).CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting a daemonized redis-server: %v: %s", err, bytes.TrimSpace(out))
	}
	d := &daemon{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidfile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				d.pid = pid
				if c, err := net.DialTimeout("tcp", d.addr, 200*time.Millisecond); err == nil {
					_ = c.Close()
					return d, nil
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.stop()
	return nil, fmt.Errorf("the daemonized redis-server on %s did not come up within 5s", d.addr)
}

// stop terminates the daemon (SIGTERM, then SIGKILL after 3s), waits for
// it to be gone and removes its directory.
func (d *daemon) stop() {
	defer os.RemoveAll(d.dir)
	if d.pid <= 0 {
		return
	}
	_ = syscall.Kill(d.pid, syscall.SIGTERM)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(d.pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(d.pid, syscall.SIGKILL)
}
