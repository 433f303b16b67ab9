package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/workload"
)

// replyWindow is a fixed window of limit+EXTRA per window whose reply
// carries a reset_at in milliseconds: the window's start plus SHIFT.
const replyWindow = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], now, 'PX', ARGV[2])
end
local start = tonumber(redis.call('GET', KEYS[2]) or now)
local reset = start + SHIFT
local limit = tonumber(ARGV[1]) + EXTRA
if n > limit then return {0, '0', reset} end
return {1, tostring(limit - n), reset}
`

const replyWindowProfile = `
policy: {limit: 5, window: 400ms}
algorithms:
  - name: resets
    script: w.lua
    keys: ["c:{${identity}}", "s:{${identity}}"]
    args: ["${limit}", "${window_ms}"]
    reply: {allowed: 1, remaining: 2, reset_at: {position: 3, unit: ms}}
    semantics: fixed_window
concurrency: 4
scenarios:
  - name: edge
    shape: boundary
    identities: 3
    burst: 6
    offset: 20ms
    stagger: 60ms
`

// TestAResetAtThatCannotBeTheEndIsRefused: a boundary run aims its bursts
// where the prime's reply says the window ends. A reset_at that reports
// the window's start (a common bug), or one more than a window after the
// prime, would make the bursts straddle nothing, and a fixed window that
// admits one too many would pass: such an end is refused, said in the
// result, and the window's end found by behaviour, where the bursts catch
// the off-by-one. A reset_at that is the window's end is read as before.
func TestAResetAtThatCannotBeTheEndIsRefused(t *testing.T) {
	rdb := redistest.Client(t)
	for _, tc := range []struct {
		name         string
		shift, extra string
		wantRefused  bool
		wantExample  string
	}{
		{"the window's start", "0", "1", true, "not after it"},
		{"three windows on", "3 * tonumber(ARGV[2])", "1", true, "more than a window"},
		{"the window's end, one too many admitted", "tonumber(ARGV[2])", "1", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReplacer("SHIFT", tc.shift, "EXTRA", tc.extra).Replace(replyWindow)
			p := declaredProfile(t, replyWindowProfile, map[string]string{"w.lua": src})
			res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.External}}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			run := res.Runs[0]
			w := run.WindowLocation
			if w == nil || w.Identities != 3 {
				t.Fatalf("window location %+v", w)
			}
			if tc.wantRefused {
				if w.ReplyRefused != 3 || w.ByReply != 0 || w.ByBehaviour+w.AfterPrime != 3 || !strings.Contains(w.ReplyRefusedExample, tc.wantExample) {
					t.Errorf("window location %+v: want every reply's end refused (%q), the ends found by behaviour", w, tc.wantExample)
				}
			} else if w.ReplyRefused != 0 || w.ByReply != 3 {
				t.Errorf("window location %+v: want every end read from the reply", w)
			}
			// Wherever the ends came from, the bursts straddled them, and
			// the window that admits one too many is caught.
			if a := run.Audit; a == nil || a.Overshoot == 0 {
				t.Errorf("audit %+v: the off-by-one window was not caught", a)
			}
		})
	}
}
