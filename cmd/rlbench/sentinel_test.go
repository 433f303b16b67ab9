package main

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/profile"
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

// TestSentinelCredentials: the Sentinels' own user and password (from the
// variable the profile names) go to the profile's Sentinels, named by the
// profile or by --redis-sentinel; Sentinels the profile does not name get
// neither, and a variable that is not set is a usage error naming it.
func TestSentinelCredentials(t *testing.T) {
	p := &profile.Profile{Path: "s.yaml", Redis: &profile.RedisSpec{Sentinel: &profile.SentinelSpec{
		MasterName: "m", Addrs: []string{"10.0.0.5:26379"}, Username: "watcher", PasswordEnv: "RLBENCH_TEST_SENTINEL_PW"}}}
	t.Setenv("RLBENCH_TEST_SENTINEL_PW", "hunter2")
	for _, tc := range []struct {
		why            string
		o              runOptions
		wantUser, want string
	}{
		{"the profile's Sentinels", runOptions{}, "watcher", "hunter2"},
		{"the same Sentinels named on the command line", runOptions{redisSentinel: "10.0.0.5:26379", redisSentinelMaster: "m"}, "watcher", "hunter2"},
		{"other Sentinels", runOptions{redisSentinel: "10.0.0.9:26379", redisSentinelMaster: "m"}, "", ""},
	} {
		ro, err := redisOptions(p, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if s := ro.Sentinel; s == nil || s.Username != tc.wantUser || s.Password != tc.want {
			t.Errorf("%s: sentinel %+v, want user %q and password %q", tc.why, s, tc.wantUser, tc.want)
		}
	}
	if ro, err := redisOptions(p, runOptions{redisAddr: "10.0.0.7:6379"}); err != nil || ro.Sentinel != nil {
		t.Errorf("--redis: sentinel %+v, %v: want none", ro.Sentinel, err)
	}
	p.Redis.Sentinel.PasswordEnv = "RLBENCH_TEST_SENTINEL_UNSET"
	_, err := redisOptions(p, runOptions{})
	if err == nil || !strings.Contains(err.Error(), "s.yaml: redis.sentinel.password_env names RLBENCH_TEST_SENTINEL_UNSET, which is not set") {
		t.Errorf("an unset variable: %v", err)
	}
}
