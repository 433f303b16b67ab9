package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// functionProfile runs a Redis Functions library (loaded on the server
// for the run, and taken away after it) for long enough to be signalled.
func functionProfile(t *testing.T) string {
	t.Helper()
	lib, err := filepath.Abs("../../profiles/examples/token_bucket_function.lua")
	if err != nil {
		t.Fatal(err)
	}
	return writeProfile(t, `name: fn
policy: {limit: 50, window: 1s, burst: 80}
algorithms:
  - name: fn_bucket
    function: token_bucket_allow
    library: `+lib+`
    keys: ["bucket:{${identity}}"]
    args: ["${limit}", "${window_us}", "${burst}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: token_bucket
concurrency: 2
scenarios:
  - name: steady
    shape: steady
    rate: 2x
    identities: 3
    duration: 60s
`)
}

// functionsLoaded counts the Functions libraries on the server at addr.
func functionsLoaded(t *testing.T, addr string) int {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	libs, err := rdb.FunctionList(context.Background(), redis.FunctionListQuery{}).Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(libs)
}

// TestTimeoutsSignalsCleanUpAForeignServer: GNU timeout signals rlbench
// and then its whole process group, so two SIGTERMs arrive within
// microseconds (and a terminal closing adds a SIGHUP). They are one
// request to stop: rlbench writes the result, marked incomplete, exits 3,
// and leaves neither its keys nor its Functions library on a Redis it
// does not own. The signals come once the run's traffic has written keys.
func TestTimeoutsSignalsCleanUpAForeignServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
		// acked sends the signals after the first once rlbench has said
		// it is stopping: certain to be handled apart (a signal sent
		// while the same one is pending is lost), and most likely
		// within the echo; either way they must not cost the clean-up.
		acked bool
	}{
		{"timeout: child then group", []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, false},
		{"timeout, the group's after the child's was handled", []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, true},
		{"kill and a terminal closing", []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP}, false},
		{"Ctrl-C echoed", []syscall.Signal{syscall.SIGINT, syscall.SIGINT, syscall.SIGTERM}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := redistest.Start(t)
			out := t.TempDir()
			cmd, stderr := rlbenchProcess(t, t.TempDir(), t.TempDir(), "run", "--quiet", "--no-report", "--redis", addr, "--out", out, functionProfile(t))
			if !waitFor(30*time.Second, func() bool { return runKeys(t, addr) > 0 }) {
				t.Fatalf("the run wrote no key:\n%s", stderr)
			}
			for i, s := range tc.signals {
				_ = syscall.Kill(cmd.Process.Pid, s)
				if i == 0 && tc.acked && !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), "stopping") }) {
					t.Fatalf("the first signal was not acknowledged:\n%s", stderr)
				}
			}
			if code := waitExit(t, cmd, 30*time.Second); code != exitRuntime {
				t.Errorf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			if !tc.acked && (strings.Contains(stderr.String(), "quitting") || strings.Contains(stderr.String(), "hurrying")) {
				t.Errorf("the echoes were taken for a second request:\n%s", stderr)
			}
			found := results(out)
			if len(found) != 1 {
				t.Fatalf("results written: %v\n%s", found, stderr)
			}
			if res, err := result.ReadFile(found[0]); err != nil || res.Complete || !strings.Contains(res.IncompleteReason, "interrupted") {
				t.Errorf("result: %v; want it incomplete, interrupted", err)
			}
			if n := runKeys(t, addr); n != 0 {
				t.Errorf("%d keys left on the foreign server", n)
			}
			if n := functionsLoaded(t, addr); n != 0 {
				t.Errorf("%d Functions libraries left on the foreign server", n)
			}
		})
	}
}

// holdingProxy forwards TCP connections to a Redis, and holds the first
// command that holds every piece of match (the bytes rlbench sends) until
// release is closed. held is closed when it holds one.
type holdingProxy struct {
	addr    string
	match   [][]byte
	held    chan struct{}
	release chan struct{}
	once    sync.Once
}

// startHoldingProxy listens on a loopback port in front of upstream.
func startHoldingProxy(t *testing.T, upstream string, match ...string) *holdingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{addr: l.Addr().String(), held: make(chan struct{}), release: make(chan struct{})}
	for _, m := range match {
		p.match = append(p.match, []byte(strings.ToLower(m)))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		p.open()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(c, up); c.Close() }()
			go func() { defer wg.Done(); p.forward(up, c); up.Close() }()
		}
	}()
	return p
}

// open lets held commands through (once).
func (p *holdingProxy) open() {
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

// forward copies what the client sends to the server, holding the first
// matching command. A match split across reads is found by looking at the
// end of the previous read too; nothing of the command's last read is
// forwarded before the hold, so Redis cannot run it.
func (p *holdingProxy) forward(up, c net.Conn) {
	buf := make([]byte, 64<<10)
	var tail []byte
	for {
		n, err := c.Read(buf)
		if n > 0 {
			window := bytes.ToLower(append(tail, buf[:n]...))
			if p.matches(window) {
				p.once.Do(func() { close(p.held) })
				<-p.release
			}
			if _, err := up.Write(buf[:n]); err != nil {
				return
			}
			tail = append(tail[:0], buf[max(0, n-256):n]...)
		}
		if err != nil {
			return
		}
	}
}

func (p *holdingProxy) matches(b []byte) bool {
	for _, m := range p.match {
		if !bytes.Contains(b, m) {
			return false
		}
	}
	return true
}

// leakingScript is a fixed window whose counter never expires.
const leakingScript = `local n = redis.call('INCR', KEYS[1])
if n > tonumber(ARGV[1]) then return {0, '0', 100} end
return {1, tostring(tonumber(ARGV[1]) - n), 0}
`

// TestASignalDuringTheCensus: the signal comes while the run's key census
// is under way (a proxy holds its first SCAN until rlbench has said it is
// stopping: certain, whatever the machine's speed). One signal lets the
// census finish: the result still names the keys left without a TTL, and
// is incomplete (exit 3), never a pass. A second, distinct one cuts the
// census short; the result is still written, incomplete, and the keys
// removed either way.
func TestASignalDuringTheCensus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		signals    int
		wantCensus bool
	}{
		{"one SIGTERM: the census finishes", 1, true},
		{"a second SIGTERM: the census is cut short", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := redistest.Start(t)
			script := filepath.Join(t.TempDir(), "leak.lua")
			if err := os.WriteFile(script, []byte(leakingScript), 0o644); err != nil {
				t.Fatal(err)
			}
			proxy := startHoldingProxy(t, addr, "\r\nscan\r\n", ":leaky:")
			out := t.TempDir()
			cmd, stderr := rlbenchProcess(t, t.TempDir(), t.TempDir(), "run", "--quiet", "--no-report", "--redis", proxy.addr, "--out", out, writeProfile(t, `name: leak
policy: {limit: 5, window: 1s}
algorithms:
  - name: leaky
    script: `+script+`
    keys: ["c:{${identity}}"]
    args: ["${limit}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
concurrency: 2
scenarios:
  - name: s
    shape: steady
    rate: 100/s
    identities: 4
    duration: 300ms
`))
			select {
			case <-proxy.held:
			case <-time.After(60 * time.Second):
				t.Fatalf("no census began:\n%s", stderr)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			if !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), "stopping") }) {
				t.Fatalf("the signal was not acknowledged:\n%s", stderr)
			}
			if tc.signals == 2 {
				time.Sleep(signalEcho + 100*time.Millisecond) // past the echo: a second request
				_ = cmd.Process.Signal(syscall.SIGTERM)
				if !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), "hurrying") }) {
					t.Fatalf("the second signal was not acknowledged:\n%s", stderr)
				}
			}
			proxy.open()
			if code := waitExit(t, cmd, 60*time.Second); code != exitRuntime {
				t.Errorf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			found := results(out)
			if len(found) != 1 {
				t.Fatalf("results written: %v\n%s", found, stderr)
			}
			res, err := result.ReadFile(found[0])
			if err != nil {
				t.Fatal(err)
			}
			if res.Complete || res.Verdict == result.Pass || len(res.Runs) != 1 {
				t.Fatalf("complete %v, verdict %s, %d runs: an interrupted run is never complete, never a pass", res.Complete, res.Verdict, len(res.Runs))
			}
			m := res.Runs[0].Memory
			if census := m != nil && !m.CensusFailed && m.KeysWithoutTTL == 4; census != tc.wantCensus {
				t.Errorf("memory %+v: census finished %v, want %v", m, census, tc.wantCensus)
			}
			if n := runKeys(t, addr); n != 0 {
				t.Errorf("%d keys left", n)
			}
		})
	}
}
