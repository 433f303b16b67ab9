package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// stealScript is a redis-server wrapper that, when it is asked to start a
// server again on a port it started one on before (a restart fault),
// first hands the port to the test (the file steal) and waits until the
// test has a foreign server answering there (the file stolen): the race
// with another program for the port of a restarting server, made
// certain. $STATE is the directory of the handshake.
const stealScript = `port=""; prev=""
for a in "$@"; do [ "$prev" = "--port" ] && port=$a; prev=$a; done
if [ -e "$STATE/launched-$port" ]; then
  echo "$port" > "$STATE/steal.tmp" && mv "$STATE/steal.tmp" "$STATE/steal"
  i=0
  while [ ! -e "$STATE/stolen" ]; do i=$((i+1)); [ $i -gt 400 ] && exit 1; sleep 0.05; done
fi
touch "$STATE/launched-$port"
exec "$REAL" "$@"`

// TestARunLeavesAServerThatTookItsPortAlone: a scheduled restart frees
// the private server's port, and a foreign Redis holding keys takes it
// before the server starts again. The run must not treat it as its own:
// no traffic, no statistics reset, no configuration, no sweep of keys
// outside the run's prefix, no clean-up and no shutdown reach it (it is
// only asked who it is); the run ends as a runtime failure that says why,
// and the foreign server's keys, configuration and statistics are as
// they were.
func TestARunLeavesAServerThatTookItsPortAlone(t *testing.T) {
	redistest.RequireProc(t)
	state := t.TempDir()
	real := redistest.ServerPath(t)
	bin := serverScript(t, "STATE="+state+"\n"+stealScript)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	profile := writeProfile(t, restartProfile)
	type stolen struct {
		srv    *redistest.Foreign
		before redistest.ForeignState
	}
	took := make(chan stolen, 1)
	go func() {
		defer close(took)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			data, err := os.ReadFile(filepath.Join(state, "steal"))
			if err != nil {
				continue
			}
			port, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Errorf("the wrapper handed over %q", data)
				return
			}
			srv := redistest.StartForeign(t, real, port, 1000)
			took <- stolen{srv: srv, before: srv.State(t)}
			_ = os.WriteFile(filepath.Join(state, "stolen"), nil, 0o644)
			return
		}
	}()
	code, stdout, stderr := runCLIWithin(t, t.Context(), 90*time.Second, "run", "--quiet", "--out", t.TempDir(), profile)
	s, ok := <-took
	if !ok || s.srv == nil {
		t.Fatalf("the restart never asked for the port: exit %d\n%s\n%s", code, stdout, stderr)
	}
	s.srv.Unchanged(t, s.before, true)
	if code != exitRuntime {
		t.Errorf("exit %d, want %d (a runtime failure)\n%s\n%s", code, exitRuntime, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "not the redis-server rlbench started") {
		t.Errorf("the output does not say the server on the port is not rlbench's:\n%s\n%s", stdout, stderr)
	}
}

// TestClosingSaysWhatItCouldNotDo: what closing a run's Redis could not
// do (a server that outlived every signal, a client that would not
// close) is printed as a warning, not dropped.
func TestClosingSaysWhatItCouldNotDo(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.ClosedAddr(t)})
	_ = rdb.Close()
	var stderr strings.Builder
	closeEnv(&redisenv.Env{Client: rdb}, &stderr)
	if !strings.HasPrefix(stderr.String(), "rlbench: warning: ") || !strings.Contains(stderr.String(), "closed") {
		t.Errorf("said %q", stderr.String())
	}
}
