//go:build integration

package main

import (
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
