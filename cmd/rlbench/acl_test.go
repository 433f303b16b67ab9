package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// TestACLLineFollowsTheProfile: a profile's faults, its cluster and its
// own limiter's Lua are each granted what they need, and nothing else is
// (no @all, no key beyond rlbench's).
func TestACLLineFollowsTheProfile(t *testing.T) {
	code, out, stderr := runCLI(t, "acl", "--user", "bench", "../../profiles/examples/token_bucket_function.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rule := lastLine(out)
	for _, want := range []string{"ACL SETUSER bench reset on ~rlbench:* ", " +fcall ", " +function|load ", " +hmget ", " +info ", " +evalsha_ro "} {
		if !strings.Contains(rule+" ", want) {
			t.Errorf("%q lacks %q", rule, want)
		}
	}
	for _, not := range []string{"@all", "client|pause", "cluster|slots", "config", "~*"} {
		if strings.Contains(rule, not) {
			t.Errorf("%q grants %q, which the profile does not need", rule, not)
		}
	}
	path := writeProfile(t, `name: f
policy: {limit: 10, window: 1s}
algorithms: [fixed_window]
redis: {addr: "127.0.0.1:6379"}
scenarios:
  - shape: steady
    rate: 1x
    duration: 2s
    faults:
      - {at: 500ms, for: 100ms, kind: pause}
`)
	if code, out, _ := runCLI(t, "acl", "--segment", path); code != exitOK || !strings.Contains(lastLine(out), " +client|pause") || !strings.Contains(lastLine(out), " +get") {
		t.Errorf("a pause fault and --segment: exit %d, %s", code, out)
	}
	if code, _, stderr := runCLI(t, "acl", "--user", "a b", path); code != exitUsage || !strings.Contains(stderr, "--user") {
		t.Errorf("a user name with a space: exit %d, %s", code, stderr)
	}
}

// TestRedisDocTablesEveryNeed: docs/redis.md names every command rlbench
// may send to a server it did not start.
func TestRedisDocTablesEveryNeed(t *testing.T) {
	doc, err := os.ReadFile("../../docs/redis.md")
	if err != nil {
		t.Fatal(err)
	}
	table := strings.ReplaceAll(string(doc), `\|`, "|")
	for _, n := range redisenv.Needs {
		if !strings.Contains(table, "`"+n.ACL+"`") {
			t.Errorf("docs/redis.md does not name %s (%s)", n.ACL, n.For)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
