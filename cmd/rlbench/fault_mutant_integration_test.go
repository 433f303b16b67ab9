//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// forgetsAfterAGap is the built-in fixed window with one bug: an identity
// quiet for more than 200ms gets a fresh window. Under steady traffic it
// is never quiet that long and decides as the built-in does; a pause of
// the server makes every identity quiet, and the bug shows only after it.
// It is inserted right after the script reads the server's time.
const forgetsAfterAGap = `
local last = tonumber(redis.call('GET', key .. ':last'))
redis.call('SET', key .. ':last', now_ms, 'PX', window_ms * 2)
if last and now_ms - last > 200 then
  redis.call('DEL', key)
end
`

// mutantOfFixedWindow is the built-in fixed window's script with bug
// inserted after the line that reads the server's time.
func mutantOfFixedWindow(t *testing.T, bug string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../algorithms", "fixed_window.lua"))
	if err != nil {
		t.Fatal(err)
	}
	const after = "local now_ms = math.floor(now_us / 1000)\n"
	if !strings.Contains(string(src), after) {
		t.Fatalf("fixed_window.lua no longer reads the time as %q", after)
	}
	return strings.Replace(string(src), after, after+bug, 1)
}

// TestIntegrationMutantBrokenOnlyAfterAFault: a limiter that is right
// except right after a fault (it forgets an identity's window after a
// pause) is caught, in the decisions the pause left in doubt, while the
// correct built-in beside it, through the same pause, is not blamed.
func TestIntegrationMutantBrokenOnlyAfterAFault(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "forgets.lua"), []byte(mutantOfFixedWindow(t, forgetsAfterAGap)), 0o644); err != nil {
		t.Fatal(err)
	}
	profilePath := filepath.Join(dir, "gap.yaml")
	yaml := `name: gap
policy: {limit: 20, window: 1s}
concurrency: 32
warmup: 0s
algorithms:
  - fixed_window
  - name: forgets
    script: forgets.lua
    keys: ["${identity}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: fixed_window
client: {timeout: 100ms, on_error: fail_closed}
scenarios:
  - name: paused
    shape: steady
    rate: 2x
    arrival: uniform
    identities: 10
    duration: 3s
    faults:
      - {at: 1550ms, for: 300ms, kind: pause}
`
	if err := os.WriteFile(profilePath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, profilePath)
	matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("exit %d, results %v\n%s\n%s", code, matches, stdout, stderr)
	}
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		a := r.Audit
		if a == nil {
			t.Fatalf("%s: no audit", r.Key())
		}
		switch r.Algorithm {
		case "fixed_window":
			if a.ModelMismatches != 0 || a.Overshoot != 0 {
				t.Errorf("%s: the correct limiter is blamed for the pause: %d mismatches, overshoot %d", r.Key(), a.ModelMismatches, a.Overshoot)
			}
		case "forgets":
			if a.ModelMismatches == 0 && a.Overshoot == 0 {
				t.Errorf("%s: the window forgotten after the pause went unseen: audit %+v, faults %+v", r.Key(), *a, r.Faults)
			}
		}
	}
	if code != exitFail || !strings.Contains(stdout, "forgets/paused") {
		t.Errorf("exit %d, want %d with forgets/paused named\n%s\n%s", code, exitFail, stdout, stderr)
	}
}
