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
const forgetsAfterAGap = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local last = tonumber(redis.call('GET', key .. ':last'))
redis.call('SET', key .. ':last', now_ms, 'PX', window_ms * 2)
if last and now_ms - last > 200 then
  redis.call('DEL', key)
end
local count = redis.call('INCR', key)
local expire_ms = -1
if count > 1 then
  expire_ms = redis.call('PEXPIRETIME', key)
  if expire_ms < now_ms then
    redis.call('SET', key, 1)
    count = 1
  end
end
if count == 1 then
  expire_ms = now_ms + window_ms
  redis.call('PEXPIREAT', key, string.format('%d', expire_ms))
end
if count <= limit then
  return {1, tostring(limit - count), 0, now_us}
end
local wait_us = (expire_ms + 1) * 1000 - now_us
return {0, '0', math.ceil(wait_us / 1000), now_us}
`

// TestIntegrationMutantBrokenOnlyAfterAFault: a limiter that is right
// except right after a fault (it forgets an identity's window after a
// pause) is caught, in the decisions the pause left in doubt, while the
// correct built-in beside it, through the same pause, is not blamed.
func TestIntegrationMutantBrokenOnlyAfterAFault(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "forgets.lua"), []byte(forgetsAfterAGap), 0o644); err != nil {
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
