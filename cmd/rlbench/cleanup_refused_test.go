package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestRunWithoutTheCensusOrRemovalCommands: whole runs as a user the
// server refuses one of the commands the key census and the cleanup need
// (SCAN, PTTL, UNLINK, then UNLINK and DEL). Each run completes, judged on
// its audit and latency (exit 0 on a correct limiter, as docs/redis.md
// says); the figures the refused command reads are UNAVAILABLE with what
// the server said, never SKIPPED or blamed on the limiter; and the run's
// keys are removed (by name where SCAN is refused, with DEL where UNLINK
// is), or, where no key may be removed, left under the run's prefix, each
// with its TTL, and said so with the prefix.
func TestRunWithoutTheCensusOrRemovalCommands(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	t.Setenv("RLBENCH_APP_PW", "app-pw")
	// A window of 30s keeps every key of the run alive until the cleanup.
	body := strings.Replace(steadyOn(addr, ""), "window: 1s", "window: 30s", 1)

	for _, tc := range []struct {
		user, rules string
		// unavailable is the command the census figures name; "" when
		// they are measured.
		unavailable string
		// left says the run's keys stay, to expire.
		left bool
		// warning is what stderr says of the keys; "" for nothing.
		warning string
	}{
		{user: "noscan", rules: "-scan", unavailable: redisenv.CmdScan, warning: "could not look for keys left under %s* on redis at " + addr + ": SCAN may not be run (NOPERM"},
		{user: "nopttl", rules: "-pttl", unavailable: redisenv.CmdPTTL},
		{user: "nounlink", rules: "-unlink"},
		{user: "noremoval", rules: "-unlink -del", left: true, warning: "the keys under %s* on redis at " + addr + " were left to expire on their TTLs: neither UNLINK nor DEL may be run (NOPERM"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			args := []any{"ACL", "SETUSER", tc.user, "on", ">app-pw", "~*", "&*", "+@all"}
			for _, r := range strings.Fields(tc.rules) {
				args = append(args, r)
			}
			if err := admin.Do(ctx, args...).Err(); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, "--redis", addr,
				"--redis-username", tc.user, "--redis-password-env", "RLBENCH_APP_PW", writeProfile(t, body))
			matches, _ := filepath.Glob(filepath.Join(out, "steady-*", "result.json"))
			if len(matches) != 1 {
				t.Fatalf("exit %d, no result\n%s\n%s", code, stdout, stderr)
			}
			res, err := result.ReadFile(matches[0])
			if err != nil {
				t.Fatal(err)
			}
			if code != exitOK || res.Verdict != result.Pass || !res.Complete {
				t.Fatalf("exit %d, verdict %s %q, complete %v\n%s\n%s", code, res.Verdict, res.VerdictReasons, res.Complete, stdout, stderr)
			}
			run := &res.Runs[0]
			if run.Audit == nil || run.Audit.Identities == 0 || run.LatencyUs.Count == 0 {
				t.Errorf("the audit and the latency must be measured: %+v", run.Audit)
			}
			if strings.Contains(stdout, "SKIPPED") || strings.Contains(stdout, "FAIL") {
				t.Errorf("a refused command said as a check skipped or a failure:\n%s", stdout)
			}
			if tc.unavailable == "" {
				if !run.Measured("memory.keys_without_ttl") || run.Memory == nil || run.Memory.Keys == 0 {
					t.Errorf("the census must be measured: unavailable %+v, memory %+v", run.Unavailable, run.Memory)
				}
			} else {
				refused := false
				for _, u := range run.Unavailable {
					if u.Figure == "memory.keys_without_ttl" && u.Command == tc.unavailable && strings.HasPrefix(u.Reason, "NOPERM") {
						refused = true
					}
				}
				if !refused || run.Memory == nil || !run.Memory.CensusFailed || len(run.Memory.Skipped) != 0 {
					t.Errorf("want the census UNAVAILABLE for %s: unavailable %+v, memory %+v", tc.unavailable, run.Unavailable, run.Memory)
				}
				if !strings.Contains(stdout, tc.unavailable+" refused (NOPERM") || !strings.Contains(stdout, "UNAVAILABLE") {
					t.Errorf("the summary does not name the refused %s:\n%s", tc.unavailable, stdout)
				}
			}
			removal := len(res.Redis.Unavailable) == 1 && res.Redis.Unavailable[0].Figure == "key_removal"
			if removal != tc.left {
				t.Errorf("redis.unavailable %+v; key removal unavailable: want %v", res.Redis.Unavailable, tc.left)
			}

			prefix := redisenv.KeyPrefixRoot + res.RunID + ":"
			if want := tc.warning; want == "" && strings.Contains(stderr, "rlbench:") {
				t.Errorf("stderr: %s", stderr)
			} else if want != "" && !strings.Contains(stderr, strings.Replace(want, "%s", prefix, 1)) {
				t.Errorf("stderr does not say %q:\n%s", strings.Replace(want, "%s", prefix, 1), stderr)
			}
			left, err := admin.Keys(ctx, redisenv.KeyPrefixRoot+"*").Result()
			if err != nil {
				t.Fatal(err)
			}
			if !tc.left && len(left) != 0 {
				t.Errorf("%d keys left, e.g. %q", len(left), left[0])
			}
			if tc.left && len(left) == 0 {
				t.Errorf("no key left by a user who may remove none: was something removed?")
			}
			for _, k := range left {
				ttl, err := admin.PTTL(ctx, k).Result()
				if !strings.HasPrefix(k, prefix) || err != nil || ttl <= 0 {
					t.Errorf("key %q left outside %s* or without a TTL (%v, %v)", k, prefix, ttl, err)
				}
			}
			if err := admin.FlushAll(ctx).Err(); err != nil { // the test's own server
				t.Fatal(err)
			}
		})
	}
}
