package main

import (
	"strings"
	"testing"
)

// TestSentinelFlags: --redis-sentinel needs the master's name, takes the
// place of --redis and --redis-cluster, and names Sentinels by host:port;
// each mistake is a usage error before anything is dialled.
func TestSentinelFlags(t *testing.T) {
	path := writeProfile(t, steadyOn("127.0.0.1:1", ""))
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"no master name", []string{"--redis-sentinel", "127.0.0.1:26379"}, "--redis-sentinel needs --redis-sentinel-master NAME"},
		{"a master name alone", []string{"--redis-sentinel-master", "m"}, "--redis-sentinel-master names the primary of the Sentinels --redis-sentinel names: give both"},
		{"and --redis", []string{"--redis", "127.0.0.1:6379", "--redis-sentinel", "127.0.0.1:26379", "--redis-sentinel-master", "m"}, "give one of --redis (one server), --redis-cluster or --redis-sentinel, not several"},
		{"a URL", []string{"--redis-sentinel", "redis://127.0.0.1:26379", "--redis-sentinel-master", "m"}, `--redis-sentinel: "redis://127.0.0.1:26379": a Sentinel is named by host:port`},
		{"a bad name", []string{"--redis-sentinel", "127.0.0.1:26379", "--redis-sentinel-master", "a b"}, `--redis-sentinel-master: "a b" is not a master's name`},
	} {
		code, _, stderr := runCLI(t, append(append([]string{"run", "--quiet", "--out", t.TempDir()}, tc.args...), path)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %s\nwant exit 2 saying %q", tc.why, code, stderr, tc.want)
		}
	}
}
