package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
)

// runKeys counts the keys under rlbench's prefix on the server at addr.
func runKeys(t *testing.T, addr string) int {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "rlbench:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// results lists the result files written under out.
func results(out string) []string {
	found, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	return found
}

// TestHangupCleansUp: the terminal closing (SIGHUP) stops a run as Ctrl-C
// does: calls in flight finish, the result is written (incomplete, exit
// 3), the run's keys leave someone else's Redis, and a private server
// stops and its directory goes.
func TestHangupCleansUp(t *testing.T) {
	redistest.RequireProc(t)
	t.Run("private server", func(t *testing.T) {
		tmp, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		bin := serverScript(t, `exec "$REAL" "$@"`)
		cmd, stderr := rlbenchProcess(t, tmp, bin, "run", "--quiet", "--no-report", "--out", out, writeProfile(t, longProfile))
		dir, pgid := privateServer(t, tmp)
		_ = cmd.Process.Signal(syscall.SIGHUP)
		if code := waitExit(t, cmd, 20*time.Second); code != exitRuntime {
			t.Errorf("exit %d after SIGHUP, want %d\n%s", code, exitRuntime, stderr)
		}
		if redistest.GroupRunning(pgid) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Errorf("the private server's group %d still runs", pgid)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the private server's directory %s is still there", dir)
		}
		if len(results(out)) != 1 {
			t.Errorf("results written: %v\n%s", results(out), stderr)
		}
	})
	t.Run("someone else's server", func(t *testing.T) {
		addr := redistest.Start(t)
		out := t.TempDir()
		cmd, stderr := rlbenchProcess(t, t.TempDir(), t.TempDir(), "run", "--quiet", "--no-report", "--out", out, "--redis", addr, writeProfile(t, longProfile))
		if !waitFor(20*time.Second, func() bool { return runKeys(t, addr) > 0 }) {
			t.Fatalf("the run wrote no key\n%s", stderr)
		}
		_ = cmd.Process.Signal(syscall.SIGHUP)
		if code := waitExit(t, cmd, 20*time.Second); code != exitRuntime {
			t.Errorf("exit %d after SIGHUP, want %d\n%s", code, exitRuntime, stderr)
		}
		if n := runKeys(t, addr); n != 0 {
			t.Errorf("%d run keys left in the server after SIGHUP\n%s", n, stderr)
		}
		if len(results(out)) != 1 {
			t.Errorf("results written: %v\n%s", results(out), stderr)
		}
	})
}

// TestOutputGoneCleansUp: a reader of rlbench's output that went away (a
// pipe into a command that ended) makes the summary fail to be written,
// not rlbench die of SIGPIPE: the result is written, the keys removed,
// and the exit code says something failed.
func TestOutputGoneCleansUp(t *testing.T) {
	addr := redistest.Start(t)
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--quiet", "--no-report", "--out", out, "--redis", addr, writeProfile(t, tinyProfile))
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	_ = stdout.Close()
	code := waitExit(t, cmd, 60*time.Second)
	if code != exitRuntime || !strings.Contains(stderr.String(), "writing the summary") {
		t.Errorf("exit %d, want %d with a word on the summary\n%s", code, exitRuntime, stderr.String())
	}
	if n := runKeys(t, addr); n != 0 {
		t.Errorf("%d run keys left", n)
	}
	if len(results(out)) != 1 {
		t.Errorf("results written: %v", results(out))
	}
}

// TestHangupEndsTheContext: SIGHUP is one of the signals that stop a
// command in order.
func TestHangupEndsTheContext(t *testing.T) {
	var stderr syncBuffer
	ctx, stop := interruptContext(&stderr, "validate", func() {})
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGHUP did not end the context")
	}
}

// TestCtrlCWhileStarting: the first Ctrl-C while the private server is
// still starting says what it interrupted, not a bare "context canceled",
// exits 3 and leaves no server or directory behind. The server (a script
// that never answers) says it has started through a file, and only then
// comes the Ctrl-C: certain, whatever the machine's speed.
func TestCtrlCWhileStarting(t *testing.T) {
	redistest.RequireProc(t)
	state := t.TempDir()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	bin := serverScript(t, "touch "+state+"/started\nexec sleep 60")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if waitFor(20*time.Second, func() bool { _, err := os.Stat(filepath.Join(state, "started")); return err == nil }) {
			cancel()
		}
	}()
	code, _, stderr := runCLIWithin(t, ctx, 30*time.Second, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code != exitRuntime || !strings.Contains(stderr, "interrupted while starting the private redis-server") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "rlbench-redis-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
