package redisenv_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// deadPID returns the pid of a process that has ended and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// orphanServer starts a redis-server working in dir, in a process group of
// its own, as a server is left when the rlbench that started it through a
// wrapper script was killed; it returns the server's pid.
func orphanServer(t *testing.T, dir string) int {
	t.Helper()
	port, err := redisenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(redistest.ServerPath(t), "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// redis-server changes into its --dir as it starts.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if slices.Contains(redistest.WorkingIn(dir), cmd.Process.Pid) {
			return cmd.Process.Pid
		}
	}
	t.Fatal("redis-server never changed into its directory")
	return 0
}

// TestRemoveStaleDirs removes what an rlbench killed without cleaning up
// left behind, and only what it can prove is such a leftover.
func TestRemoveStaleDirs(t *testing.T) {
	redistest.RequireProc(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdir := func(name, owner string) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	self := os.Getpid()
	dead := deadPID(t)

	// An owner that died (SIGKILL) while its server, started through a
	// wrapper, kept running in the directory: both go.
	orphanDir := mkdir("rlbench-redis-orphan", "")
	orphan := orphanServer(t, orphanDir)
	if err := os.WriteFile(filepath.Join(orphanDir, "owner.pid"), fmt.Appendf(nil, "%d 12345 %d\n", dead, orphan), 0o644); err != nil {
		t.Fatal(err)
	}
	// An owner that died while its server, which had left the group
	// (setsid), kept running: the server is found by the process id it
	// reported and the start it had, and both go.
	escapedDir := mkdir("rlbench-redis-escaped", "")
	escaped := orphanServer(t, escapedDir)
	if err := os.WriteFile(filepath.Join(escapedDir, "owner.pid"),
		fmt.Appendf(nil, "%d 12345 0 %d %s\n", dead, escaped, redisenv.ProcessIdentity(escaped)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same, but the process with the server's pid started at another
	// time: it is not the server, and it runs on.
	strangerDir := mkdir("rlbench-redis-stranger", "")
	stranger := orphanServer(t, strangerDir)
	if err := os.WriteFile(filepath.Join(strangerDir, "owner.pid"), fmt.Appendf(nil, "%d 12345 0 %d 1\n", dead, stranger), 0o644); err != nil {
		t.Fatal(err)
	}
	// An owner that died after its server did: the directory goes.
	deadDir := mkdir("rlbench-redis-dead", fmt.Sprintf("%d 12345 0\n", dead))
	// The owner's pid now belongs to another process (this one), told
	// apart by its start time: the directory goes.
	reusedDir := mkdir("rlbench-redis-reused", fmt.Sprintf("%d 1 0\n", self))
	// No owner file: not provably rlbench's, kept.
	unknownDir := mkdir("rlbench-redis-unknown", "")
	// A torn owner file: kept.
	tornDir := mkdir("rlbench-redis-torn", fmt.Sprintf("%d", dead))
	// A name that is not a server directory: kept, whatever it holds.
	otherDir := mkdir("rlbench-other", fmt.Sprintf("%d 12345 0\n", dead))

	// A later private server cleans up as it starts.
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := redisenv.StartServer(ctx, redistest.ServerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	for _, dir := range []string{deadDir, orphanDir, reusedDir, escapedDir, strangerDir} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there", dir)
		}
	}
	// The live server's own directory (its owner is this process) stays.
	if removed := redisenv.RemoveStaleDirs(tmp); len(removed) != 0 {
		t.Errorf("removed %v, whose owners are alive or unknown", removed)
	}
	for _, dir := range []string{srv.Dir(), unknownDir, tornDir, otherDir} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
	if redistest.Running(orphan) {
		t.Errorf("the orphaned redis-server (pid %d) still runs", orphan)
	}
	if redistest.Running(escaped) {
		t.Errorf("the redis-server that left its group (pid %d) still runs", escaped)
	}
	if !redistest.Running(stranger) {
		t.Errorf("a process (pid %d) that only shares a recorded pid was killed", stranger)
	}
}
