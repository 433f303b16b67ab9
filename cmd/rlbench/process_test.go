package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// asMainEnv makes the test binary run rlbench's main instead of the tests,
// so a test can signal and kill a real rlbench process.
const asMainEnv = "RLBENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// rlbenchProcess starts rlbench with args as a process of its own, with
// tmp as its TMPDIR and the redis-server script in bin first on its PATH.
func rlbenchProcess(t *testing.T, tmp, bin string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd, _, stderr := rlbenchProcessOut(t, tmp, bin, args...)
	return cmd, stderr
}

// rlbenchProcessOut is rlbenchProcess that also keeps what rlbench
// printed on its standard output.
func rlbenchProcessOut(t *testing.T, tmp, bin string, args ...string) (cmd *exec.Cmd, stdout, stderr *syncBuffer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "TMPDIR="+tmp, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, stdout, stderr
}

// serverScript writes bin/redis-server, a shell script that starts the real
// redis-server the way body says.
func serverScript(t *testing.T, body string) string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\nREAL=" + redistest.ServerPath(t) + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// privateServer waits until a redis-server works in a private server
// directory under tmp and the run has written keys to it (its traffic has
// begun), and returns the directory and the server's process group.
func privateServer(t *testing.T, tmp string) (dir string, pgid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		dirs, _ := filepath.Glob(filepath.Join(tmp, "rlbench-redis-*"))
		for _, d := range dirs {
			for _, pid := range redistest.WorkingIn(d) {
				if g, err := syscall.Getpgid(pid); err == nil && hasKeys(pid) {
					return d, g
				}
			}
		}
	}
	t.Fatal("no private redis-server started, or the run wrote no key to it")
	return "", 0
}

// hasKeys reports whether the redis-server process pid (whose title names
// the address it listens on) holds any key.
func hasKeys(pid int) bool {
	title, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(strings.ReplaceAll(string(title), "\x00", " "))
	if len(f) < 2 {
		return false
	}
	rdb := redis.NewClient(&redis.Options{Addr: f[1], Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer rdb.Close()
	n, err := rdb.DBSize(context.Background()).Result()
	return err == nil && n > 0
}

// waitExit waits for cmd to end within limit and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("rlbench did not end within %s", limit)
		return 0
	}
}

// waitFor polls cond for up to limit.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

const longProfile = `name: long
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
concurrency: 2
scenarios:
  - shape: steady
    rate: 1x
    identities: 2
    duration: 60s
`

// TestSecondCtrlCHurriesAndStillCleansUp: the first Ctrl-C starts an
// orderly stop, and the server (started through a script that outlives it
// and ignores SIGTERM) keeps that stop waiting out its grace period; a
// second Ctrl-C, a second later (a distinct one, not an echo of the
// first), hurries: rlbench still writes the result, marked incomplete,
// exits 3, and leaves no server process and no directory behind.
func TestSecondCtrlCHurriesAndStillCleansUp(t *testing.T) {
	t.Parallel()
	redistest.RequireProc(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	bin := serverScript(t, `trap '' TERM; "$REAL" "$@" & while :; do sleep 1; done`)
	cmd, stderr := rlbenchProcess(t, tmp, bin, "run", "--quiet", "--out", out, writeProfile(t, longProfile))
	dir, pgid := privateServer(t, tmp)

	_ = cmd.Process.Signal(os.Interrupt)
	if !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), "finishing calls in flight") }) {
		t.Fatalf("the first Ctrl-C was not acknowledged:\n%s", stderr)
	}
	time.Sleep(signalEcho + 100*time.Millisecond) // past the echo: a second request to stop
	_ = cmd.Process.Signal(os.Interrupt)
	if code := waitExit(t, cmd, 15*time.Second); code != exitRuntime {
		t.Errorf("exit %d after a second Ctrl-C, want %d\n%s", code, exitRuntime, stderr)
	}
	if !strings.Contains(stderr.String(), "hurrying") {
		t.Errorf("the second Ctrl-C was not taken for one:\n%s", stderr)
	}
	if found := results(out); len(found) != 1 {
		t.Errorf("results written: %v", found)
	} else if res, err := result.ReadFile(found[0]); err != nil || res.Complete {
		t.Errorf("result: %v, complete %v", err, res != nil && res.Complete)
	}
	if redistest.GroupRunning(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		t.Errorf("the server's process group %d still runs", pgid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the server's directory %s is still there", dir)
	}
}

// TestALaterRunRemovesWhatAKilledRunLeft: rlbench killed with SIGKILL can
// clean nothing up, and a server started through a wrapper script outlives
// it. The next run proves the directory is a dead rlbench's, stops the
// orphaned server and removes the directory.
func TestALaterRunRemovesWhatAKilledRunLeft(t *testing.T) {
	t.Parallel()
	redistest.RequireProc(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := serverScript(t, `"$REAL" "$@"`)
	killed, _ := rlbenchProcess(t, tmp, bin, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, longProfile))
	dir, pgid := privateServer(t, tmp)
	_ = killed.Process.Kill()
	waitExit(t, killed, 5*time.Second)
	if !redistest.GroupRunning(pgid) {
		t.Fatal("the wrapped server died with its rlbench: nothing to clean up")
	}
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })

	later, stderr := rlbenchProcess(t, tmp, bin, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code := waitExit(t, later, 60*time.Second); code != exitOK {
		t.Fatalf("the later run: exit %d\n%s", code, stderr)
	}
	if !waitFor(2*time.Second, func() bool { return !redistest.GroupRunning(pgid) }) {
		t.Errorf("the orphaned server's group %d still runs: %s\n%s", pgid, describeGroup(pgid), stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory %s is still there", dir)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "rlbench-redis-*")); len(left) != 0 {
		t.Errorf("directories left: %v", left)
	}
}

// fakeSignals feeds handleInterrupts signals stamped on a clock the
// test moves.
type fakeSignals struct {
	sig chan stampedSignal
	now time.Time
}

func newFakeSignals() *fakeSignals {
	return &fakeSignals{sig: make(chan stampedSignal), now: time.Unix(1_800_000_000, 0)}
}

// send delivers s after moving the clock by after; the channel is
// unbuffered, so every signal sent before has been received.
func (f *fakeSignals) send(s os.Signal, after time.Duration) {
	f.now = f.now.Add(after)
	f.sig <- stampedSignal{s, f.now}
}

// TestInterruptMessages: only run has calls in flight to finish; the other
// commands stop at once and say so. A second distinct signal makes run
// hurry and any other command quit, through quit, which stops any private
// server first.
func TestInterruptMessages(t *testing.T) {
	for _, tc := range []struct {
		command  string
		want     string
		wantNot  string
		quitting bool
	}{
		{"run", "finishing calls in flight", "quitting", false},
		{"report", "stopping", "in flight", true},
		{"validate", "stopping", "in flight", true},
		{"compare", "stopping", "in flight", true},
	} {
		var stderr syncBuffer
		quit := make(chan struct{})
		f := newFakeSignals()
		ctx, stop := handleInterrupts(f.sig, &stderr, tc.command, func() { close(quit) })
		f.send(syscall.SIGTERM, 0)
		<-ctx.Done()
		f.send(syscall.SIGTERM, 2*signalEcho)
		if tc.quitting {
			<-quit
		} else {
			stop()
			if !hurried(ctx) {
				t.Errorf("%s: the second signal did not hurry it", tc.command)
			}
		}
		got := stderr.String()
		if !strings.Contains(got, tc.want) || (tc.wantNot != "" && strings.Contains(got, tc.wantNot)) {
			t.Errorf("%s: said %q; want %q and not %q", tc.command, got, tc.want, tc.wantNot)
		}
	}
}

// TestSignalEchoesCountOnce: signals that follow the last one counted
// within signalEcho are one request to stop, whatever their kind (GNU
// timeout signals rlbench and then its group; a closing terminal sends
// SIGHUP to the group): they neither hurry run nor quit another command.
// One a little later than that is a second request.
func TestSignalEchoesCountOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string
		signals []os.Signal
		gaps    []time.Duration
		// wantHurry and wantQuit: what the last signal did.
		wantHurry, wantQuit bool
	}{
		{"timeout: the child, then its group", "run", []os.Signal{syscall.SIGTERM, syscall.SIGTERM}, []time.Duration{0, time.Microsecond}, false, false},
		{"a terminal closing over a kill", "run", []os.Signal{syscall.SIGTERM, syscall.SIGHUP, os.Interrupt}, []time.Duration{0, time.Millisecond, signalEcho - 2*time.Millisecond}, false, false},
		{"echoes do not move the window", "run", []os.Signal{syscall.SIGTERM, syscall.SIGTERM, syscall.SIGTERM}, []time.Duration{0, signalEcho / 2, signalEcho / 2}, true, false},
		{"a second Ctrl-C a second later", "run", []os.Signal{os.Interrupt, os.Interrupt}, []time.Duration{0, signalEcho}, true, false},
		{"many more never quit run", "run", []os.Signal{os.Interrupt, os.Interrupt, os.Interrupt, os.Interrupt}, []time.Duration{0, signalEcho, signalEcho, signalEcho}, true, false},
		{"timeout on validate", "validate", []os.Signal{syscall.SIGTERM, syscall.SIGTERM}, []time.Duration{0, 0}, false, false},
		{"a second signal on validate", "validate", []os.Signal{syscall.SIGTERM, syscall.SIGHUP}, []time.Duration{0, 2 * signalEcho}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr syncBuffer
			quit := make(chan struct{})
			f := newFakeSignals()
			ctx, stop := handleInterrupts(f.sig, &stderr, tc.command, func() { close(quit) })
			for i, s := range tc.signals {
				f.send(s, tc.gaps[i])
			}
			quitting := false
			if tc.wantQuit {
				<-quit
				quitting = true
			} else {
				stop()
				select {
				case <-quit:
					quitting = true
				default:
				}
			}
			if ctx.Err() == nil {
				t.Errorf("the first signal did not end the context")
			}
			if quitting != tc.wantQuit || hurried(ctx) != tc.wantHurry {
				t.Errorf("quit %v, hurried %v; want %v, %v\n%s", quitting, hurried(ctx), tc.wantQuit, tc.wantHurry, stderr.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the signal goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// describeGroup lists the processes of group pgid, for failure messages.
func describeGroup(pgid int) string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
			out = append(out, fmt.Sprintf("%s cwd=%s", strings.TrimSpace(string(stat)), cwd))
		}
	}
	return strings.Join(out, "; ")
}

// TestQuittingDecidesTheExitCode: once a second signal has begun to quit,
// the command finishing meanwhile (its server stopped under it) must not
// exit with a code of its own: stop waits until quit is done.
func TestQuittingDecidesTheExitCode(t *testing.T) {
	release, quitting := make(chan struct{}), make(chan struct{})
	var stderr syncBuffer
	f := newFakeSignals()
	ctx, stop := handleInterrupts(f.sig, &stderr, "init", func() { close(quitting); <-release })
	f.send(syscall.SIGTERM, 0)
	<-ctx.Done()
	f.send(syscall.SIGTERM, 2*signalEcho)
	<-quitting
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while quit was still stopping the server: the command would exit first, with its own code")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-stopped
}
