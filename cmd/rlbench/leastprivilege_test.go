package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
)

// managedServer starts a server as a managed service runs it (CONFIG and
// DEBUG renamed away) with the application's user app: everything but
// @admin and @dangerous, so no INFO, CLIENT PAUSE or ACL DRYRUN. It
// returns its address and an administrator's client.
func managedServer(t *testing.T) (string, *redis.Client) {
	t.Helper()
	srv := redistest.StartConfigured(t, "--rename-command", "CONFIG", "", "--rename-command", "DEBUG", "")
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "app", "on", ">app-pw", "~*", "&*", "+@all", "-@admin", "-@dangerous").Err(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RLBENCH_APP_PW", "app-pw")
	return srv.Addr, admin
}

// runAs runs body against addr as user (password in RLBENCH_APP_PW), with
// flags besides, and returns the exit code, the summary and the result's
// directory.
func runAs(t *testing.T, addr, user, name, body string, flags ...string) (int, string, *result.Result, string) {
	t.Helper()
	return runProfileText(t, name, body, append([]string{"--redis", addr, "--redis-username", user, "--redis-password-env", "RLBENCH_APP_PW"}, flags...)...)
}

// TestLeastPrivilegeDegrades: as a user without @admin and @dangerous, on
// a server with CONFIG and DEBUG renamed away, the run goes on, judged on
// its audit and latency, and every figure it could not read is named with
// the command and what Redis said, in the result, the summary and the
// page. The user `rlbench acl` prints for the profile then runs it with
// every figure.
func TestLeastPrivilegeDegrades(t *testing.T) {
	addr, admin := managedServer(t)
	code, stdout, res, dir := runAs(t, addr, "app", "edge", boundaryLike)
	if code != exitOK || res.Verdict != result.Pass {
		t.Fatalf("exit %d, verdict %s\n%s", code, res.Verdict, stdout)
	}
	a := res.Redis.Access
	if a == nil || a.User != "app" || len(a.Refused) != 2 || a.Refused[0].Command != "INFO" || a.Refused[1].Command != "CONFIG GET" ||
		!strings.HasPrefix(a.Refused[0].Reason, "NOPERM") || !strings.HasPrefix(a.Refused[1].Reason, "ERR unknown command 'CONFIG'") {
		t.Errorf("access %+v, want INFO (NOPERM) and CONFIG GET (renamed) refused", a)
	}
	if len(res.Redis.Unavailable) != 1 || res.Redis.Unavailable[0].Figure != "maxmemory_policy" {
		t.Errorf("redis.unavailable %+v, want the eviction policy", res.Redis.Unavailable)
	}
	for i := range res.Runs {
		run := &res.Runs[i]
		if run.Measured("memory.bytes_per_identity") || run.Measured("server") || run.Measured("eviction") || run.Measured("memory.keys_other_databases") || run.Server != nil || run.Eviction != nil {
			t.Errorf("%s: figures INFO reads are not named unavailable: %+v", run.Key(), run.Unavailable)
		}
		if run.Audit == nil || run.Audit.Identities == 0 || run.LatencyUs.Count == 0 {
			t.Errorf("%s: the audit and the latency must still be measured: audit %+v", run.Key(), run.Audit)
		}
	}
	if !strings.Contains(stdout, "figures not measured (UNAVAILABLE)") || !strings.Contains(stdout, "INFO refused (NOPERM") {
		t.Errorf("the summary does not name the missing figures:\n%s", stdout)
	}
	if strings.Contains(stdout, "SKIPPED") {
		t.Errorf("a figure the server refused is said as a check skipped, besides unavailable:\n%s", stdout)
	}
	page, err := os.ReadFile(filepath.Join(dir, html.HTMLFile))
	if err != nil || !strings.Contains(string(page), "figures not measured (UNAVAILABLE)") {
		t.Errorf("report.html does not name the missing figures (%v)", err)
	}
	// The key census needs no INFO: a window of 30s keeps every key of a
	// short run alive until it is taken. The page was read above: the runs
	// from here on write none (under the race detector a page takes
	// seconds to draw).
	census := func(who string) {
		t.Helper()
		code, stdout, res, _ := runAs(t, addr, who, "steady", strings.Replace(steadyOn(addr, ""), "window: 1s", "window: 30s", 1), "--no-report")
		if code != exitOK || len(res.Runs) != 1 {
			t.Fatalf("as %s, the steady profile: exit %d\n%s", who, code, stdout)
		}
		if m := res.Runs[0].Memory; m == nil || m.Keys == 0 || m.Identities == 0 || m.SampledKeys == 0 || len(m.Encodings) == 0 {
			t.Errorf("as %s: the key census and its sample must be measured: %+v", who, m)
		}
	}
	census("app")

	// The user rlbench acl prints, given a password, measures everything.
	path := writeProfile(t, boundaryLike)
	code, out, stderr := runCLI(t, "acl", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rule := lines[len(lines)-1]
	if code != exitOK || !strings.HasPrefix(rule, "ACL SETUSER rlbench reset on ~rlbench:* +") {
		t.Fatalf("rlbench acl: exit %d\n%s%s", code, out, stderr)
	}
	var args []any
	for _, f := range strings.Fields(rule) {
		args = append(args, f)
	}
	ctx := context.Background()
	if err := admin.Do(ctx, args...).Err(); err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "rlbench", ">app-pw").Err(); err != nil {
		t.Fatal(err)
	}
	code, stdout, res, _ = runAs(t, addr, "rlbench", "edge", boundaryLike, "--no-report")
	if code != exitOK || res.Verdict != result.Pass {
		t.Fatalf("as the user rlbench acl prints: exit %d, verdict %s\n%s", code, res.Verdict, stdout)
	}
	if a := res.Redis.Access; a == nil || len(a.Refused) != 0 || len(res.Redis.Unavailable) != 0 || res.Redis.MaxmemoryPolicy != "noeviction" {
		t.Errorf("as the user rlbench acl prints: access %+v, unavailable %+v, policy %q", a, res.Redis.Unavailable, res.Redis.MaxmemoryPolicy)
	}
	for i := range res.Runs {
		run := &res.Runs[i]
		if len(run.Unavailable) != 0 || run.Server == nil || run.Eviction == nil || run.Reference == nil || run.Memory.UsedMemoryUnread {
			t.Errorf("%s: not every figure: unavailable %+v, server %v, eviction %v, reference %v, memory %+v", run.Key(), run.Unavailable, run.Server, run.Eviction, run.Reference, run.Memory)
		}
	}
	census("rlbench")
}

// TestFaultRefusedAtItsLine: a fault whose command the server refuses the
// user is refused at its line of the profile before any traffic (exit 2).
func TestFaultRefusedAtItsLine(t *testing.T) {
	addr, _ := managedServer(t)
	body := steadyOn(addr, ", username: app, password_env: RLBENCH_APP_PW") + `    faults:
      - {at: 100ms, for: 100ms, kind: pause}
      - {at: 300ms, for: 100ms, kind: stall}
`
	path := writeProfile(t, body)
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), path)
	if code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		path + ":12: scenarios[0].faults[0].kind: a pause fault sends CLIENT PAUSE, which redis at " + addr + " refused user app: NOPERM",
		path + ":13: scenarios[0].faults[1].kind: a stall fault sends DEBUG, which redis at " + addr + " refused user app: ERR unknown command 'DEBUG'",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
}
