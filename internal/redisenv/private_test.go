package redisenv_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// wrapper writes a shell script called redis-server that starts the real
// one the way body says, and returns its path.
func wrapper(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "redis-server")
	script := "#!/bin/sh\nREAL=" + redistest.ServerPath(t) + "\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverPID asks the server at addr for its own process id.
func serverPID(t *testing.T, addr string) int {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	info, err := rdb.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(redisenv.ParseInfo(info)["process_id"])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// stopWithin calls srv.Stop and fails the test when it has not returned
// within limit.
func stopWithin(t *testing.T, srv *redisenv.Server, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- srv.Stop() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(limit):
		t.Fatalf("Stop did not return within %s", limit)
	}
}

// TestStopEndsAWrappedServer: a redis-server on PATH may be a script that
// runs the real binary. Stop must end the whole process group within its
// bound, and leave neither the server nor its directory behind.
func TestStopEndsAWrappedServer(t *testing.T) {
	redistest.RequireProc(t)
	for _, tc := range []struct {
		why  string
		body string
	}{
		// The shell stays the parent and holds the log pipe's other end
		// through its child: signalling the shell alone orphans the server.
		{"the script runs the server as its child", `"$REAL" "$@"`},
		// The script is replaced by the server: the plain case.
		{"the script execs the server", `exec "$REAL" "$@"`},
		// The script starts the server in the background and then loops,
		// ignoring SIGTERM (as its sleeps do): only SIGKILL, after the
		// grace period, ends the rest of the group.
		{"the script outlives its server and ignores SIGTERM", `trap '' TERM; "$REAL" "$@" & while :; do sleep 1; done`},
		// The server runs in a session of its own: the group's signals do
		// not reach it; the process id it reported does.
		{"the script runs the server under setsid", `setsid "$REAL" "$@"`},
		// The script detaches the server and ends at once, with success:
		// the server is proved through its socket all the same, and
		// stopped by the process id it reported.
		{"the script detaches the server (setsid -f) and exits", `setsid -f "$REAL" "$@"`},
		// The server daemonizes itself (fork, setsid): the same.
		{"the server daemonizes itself", `exec "$REAL" "$@" --daemonize yes`},
	} {
		t.Run(tc.why, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv, err := redisenv.StartServer(ctx, wrapper(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			pid := serverPID(t, srv.Addr)
			pgid, err := syscall.Getpgid(pid)
			if err != nil {
				t.Fatal(err)
			}
			stopWithin(t, srv, 10*time.Second)
			if redistest.Running(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("redis-server (pid %d) still runs after Stop", pid)
			}
			if redistest.GroupRunning(pgid) {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				t.Errorf("a process of the server's group %d still runs after Stop", pgid)
			}
			if _, err := os.Stat(srv.Dir()); !os.IsNotExist(err) {
				t.Errorf("the server's directory %s is still there: %v", srv.Dir(), err)
			}
		})
	}
}

// TestStopAllStopsEveryServer: what a second Ctrl-C calls before rlbench
// exits stops every private server still running and removes its
// directory, and a later Stop of the same server is harmless.
func TestStopAllStopsEveryServer(t *testing.T) {
	redistest.RequireProc(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var pids []int
	var servers []*redisenv.Server
	for i := 0; i < 2; i++ {
		srv, err := redisenv.StartServer(ctx, wrapper(t, `"$REAL" "$@"`))
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
		pids = append(pids, serverPID(t, srv.Addr))
	}
	done := make(chan error, 1)
	go func() { done <- redisenv.StopAll() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("StopAll: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StopAll did not return within 10s")
	}
	for i, srv := range servers {
		if redistest.Running(pids[i]) {
			_ = syscall.Kill(pids[i], syscall.SIGKILL)
			t.Errorf("server %d (pid %d) still runs", i, pids[i])
		}
		if _, err := os.Stat(srv.Dir()); !os.IsNotExist(err) {
			t.Errorf("server %d: directory %s is still there", i, srv.Dir())
		}
		stopWithin(t, srv, 2*time.Second)
	}
}
