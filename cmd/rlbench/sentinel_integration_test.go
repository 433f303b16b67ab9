//go:build integration

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestIntegrationSentinel: a primary that Sentinel manages, named by
// --redis-sentinel, runs as any server does and the result names where it
// was.
func TestIntegrationSentinel(t *testing.T) {
	set := redistest.StartSentinelSet(t, "rlbench-primary", 1, 3)
	code, stdout, res, _ := runProfileText(t, "steady", steadyOn(set.Primary.Addr, ""),
		"--redis-sentinel", strings.Join(set.SentinelAddrs(), ","), "--redis-sentinel-master", "rlbench-primary")
	if code != exitOK || res.Verdict != result.Pass {
		t.Fatalf("exit %d, verdict %s\n%s", code, res.Verdict, stdout)
	}
	if res.Redis.Addr != set.Primary.Addr || !strings.Contains(res.Redis.Note, `the primary "rlbench-primary" of the Sentinels`) {
		t.Errorf("redis addr %q, note %q: want the primary %s named as the Sentinels' ", res.Redis.Addr, res.Redis.Note, set.Primary.Addr)
	}
}

// TestIntegrationSentinelPassword: Sentinels that ask for a password
// (requirepass) are asked with the one the profile's sentinel section
// names by its variable, which appears nowhere in what the run wrote;
// without it, the run says what the Sentinels answered and exits 3.
func TestIntegrationSentinelPassword(t *testing.T) {
	const password = "s3ntinel-only-pw"
	set := redistest.StartSentinelSetWithPassword(t, "rlbench-primary", 1, 3, password)
	t.Setenv("RLBENCH_TEST_SENTINEL_PW", password)
	sentinel := `sentinel: {master_name: rlbench-primary, addrs: ["` + strings.Join(set.SentinelAddrs(), `", "`) + `"]`
	withPassword := strings.Replace(steadyOn("x", ""), `redis: {addr: "x"}`, "redis: {"+sentinel+", password_env: RLBENCH_TEST_SENTINEL_PW}}", 1)
	code, stdout, res, dir := runProfileText(t, "steady", withPassword)
	if code != exitOK || res.Verdict != result.Pass || res.Redis.Addr != set.Primary.Addr {
		t.Fatalf("exit %d, verdict %s, redis at %q (want %s)\n%s", code, res.Verdict, res.Redis.Addr, set.Primary.Addr, stdout)
	}
	if strings.Contains(stdout, password) {
		t.Error("the summary prints the Sentinels' password")
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), password) {
			t.Errorf("%s holds the Sentinels' password", path)
		}
		return nil
	})
	without := strings.Replace(steadyOn("x", ""), `redis: {addr: "x"}`, "redis: {"+sentinel+"}}", 1)
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, without))
	if code != exitRuntime || !strings.Contains(stderr+stdout, "NOAUTH") {
		t.Errorf("without the password: exit %d, want %d saying what the Sentinels answered (NOAUTH)\n%s\n%s", code, exitRuntime, stdout, stderr)
	}
}
