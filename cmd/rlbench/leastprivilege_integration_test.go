//go:build integration

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestIntegrationLeastPrivilegeBoundary: profiles/boundary.yaml, as the
// application's user of a managed service (+@all -@admin -@dangerous,
// CONFIG and DEBUG renamed away), passes with the figures it could not
// read named; as the user `rlbench acl profiles/boundary.yaml` prints, it
// passes with every figure.
func TestIntegrationLeastPrivilegeBoundary(t *testing.T) {
	addr, admin := managedServer(t)
	profilePath, err := filepath.Abs("../../profiles/boundary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(user string) (int, string, *result.Result) {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, "--redis", addr,
			"--redis-username", user, "--redis-password-env", "RLBENCH_APP_PW", profilePath)
		matches, _ := filepath.Glob(filepath.Join(out, "boundary-*", "result.json"))
		if len(matches) != 1 {
			t.Fatalf("as %s: exit %d, no result\n%s\n%s", user, code, stdout, stderr)
		}
		res, err := result.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		return code, stdout, res
	}

	code, stdout, res := run("app")
	if code != exitOK || res.Verdict != result.Pass {
		t.Fatalf("as app: exit %d, verdict %s %q\n%s", code, res.Verdict, res.VerdictReasons, stdout)
	}
	if !strings.Contains(stdout, "INFO refused (NOPERM") || !strings.Contains(stdout, "the eviction policy is unknown") {
		t.Errorf("as app: the summary does not name the missing figures:\n%s", stdout)
	}
	for i := range res.Runs {
		if r := &res.Runs[i]; r.Measured("server") || r.Measured("memory.bytes_per_identity") || r.Audit == nil {
			t.Errorf("as app: %s: unavailable %+v, audit %v", r.Key(), r.Unavailable, r.Audit != nil)
		}
	}

	code, out, stderr := runCLI(t, "acl", profilePath)
	if code != exitOK {
		t.Fatalf("rlbench acl: exit %d: %s", code, stderr)
	}
	var args []any
	for _, f := range strings.Fields(lastLine(out)) {
		args = append(args, f)
	}
	ctx := context.Background()
	if err := admin.Do(ctx, args...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "rlbench", ">app-pw").Err(); err != nil {
		t.Fatal(err)
	}
	code, stdout, res = run("rlbench")
	if code != exitOK || res.Verdict != result.Pass {
		t.Fatalf("as rlbench: exit %d, verdict %s %q\n%s", code, res.Verdict, res.VerdictReasons, stdout)
	}
	if a := res.Redis.Access; a == nil || len(a.Refused) != 0 || len(res.Redis.Unavailable) != 0 {
		t.Errorf("as rlbench: access %+v, unavailable %+v", a, res.Redis.Unavailable)
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		if len(r.Unavailable) != 0 || r.Server == nil || r.Eviction == nil || r.Reference == nil || r.Memory == nil || r.Memory.UsedMemoryUnread {
			t.Errorf("as rlbench: %s: not every figure: unavailable %+v", r.Key(), r.Unavailable)
		}
	}
}
