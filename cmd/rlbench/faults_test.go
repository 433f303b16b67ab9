package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
)

const restartProfile = `name: restart
policy: {limit: 10, window: 1s}
scenarios:
  - name: r
    shape: steady
    rate: 2x
    duration: 2s
    faults:
      - {at: 1s, kind: restart}
`

// TestFaultsThatNeedAPrivateServer: --redis names a server rlbench does not
// start, where it cannot restart anything: the profile is refused (exit 2)
// at the fault's line, before anything is dialled; and a segmented run,
// where every process would inject the faults, is refused too.
func TestFaultsThatNeedAPrivateServer(t *testing.T) {
	path := writeProfile(t, restartProfile)
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), path, "--redis", redistest.ClosedAddr(t))
	if code != exitUsage || !strings.Contains(stderr, path+":9: scenarios[0].faults[0].kind: restart runs only on a private redis-server, and --redis names a server rlbench did not start") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "unreachable") {
		t.Errorf("the server was dialled before the profile was refused: %s", stderr)
	}
	code, _, stderr = runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--segment", "0/2", "--start-at", time.Now().UTC().Format(time.RFC3339), path)
	if code != exitUsage || !strings.Contains(stderr, "--segment: scenario r schedules faults") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "validate", path); code != exitOK {
		t.Errorf("validate: exit %d: %s", code, stderr)
	}
}
