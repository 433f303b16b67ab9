package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
)

// TestPasswordsNeverPrinted: a password written into a redis:// URL, on the
// command line or in a profile, is refused as bad input, and no output of
// rlbench holds it, whatever characters it has (url.Parse refuses some of
// them and quotes the URL it refused).
func TestPasswordsNeverPrinted(t *testing.T) {
	for _, pw := range []string{
		"50%off",       // an invalid %-escape: url.Parse quotes it
		"my pass",      // a space
		"pa[ss",        // a bracket url.Parse takes for an IPv6 host
		"p@ss:w/rd#1",  // the URL's own separators
		"s3cret-plain", // nothing special
	} {
		url := "redis://bench:" + pw + "@127.0.0.1:7101"
		for _, tc := range []struct {
			where, field string
			args         []string
		}{
			{"--redis", "--redis", []string{"run", "--quiet", "--redis", url, "--out", t.TempDir(), writeProfile(t, tinyProfile)}},
			{"profile run", "p.yaml:3: redis.addr", []string{"run", "--quiet", "--out", t.TempDir(), writeProfile(t, externalProfile("redis:\n  addr: '"+url+"'\n"))}},
			{"profile validate", "p.yaml:3: redis.addr", []string{"validate", writeProfile(t, externalProfile("redis:\n  addr: '"+url+"'\n"))}},
		} {
			code, stdout, stderr := runCLI(t, tc.args...)
			if strings.Contains(stdout+stderr, pw) || !userinfoRedacted(stdout+stderr) {
				t.Errorf("%s with password %q: the output holds it, or part of it:\n%s%s", tc.where, pw, stdout, stderr)
			}
			if code != exitUsage || !strings.Contains(stderr, tc.field) || !strings.Contains(stderr, "carries a password") {
				t.Errorf("%s with password %q: exit %d, stderr %q; want exit %d naming %s", tc.where, pw, code, stderr, exitUsage, tc.field)
			}
		}
	}
}

// userinfoRedacted reports whether every "//bench:" (the user name before
// the password) in out is followed by the redaction mark, so that not even
// part of a password was printed.
func userinfoRedacted(out string) bool {
	for rest := out; ; {
		i := strings.Index(rest, "//bench:")
		if i < 0 {
			return true
		}
		rest = rest[i+len("//bench:"):]
		if !strings.HasPrefix(rest, "xxxxx@") {
			return false
		}
	}
}

// TestBadRedisSettingsAreProfileErrors: what is wrong in a profile's redis
// section is found at load, with the line and the field (exit 2), not when
// rlbench first dials.
func TestBadRedisSettingsAreProfileErrors(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why, section, want string
	}{
		{"an address that is no address", "redis:\n  addr: 'not an address'\n",
			`p.yaml:3: redis.addr: "not an address" is not host:port or a redis:// URL: it holds white space`},
		{"a port out of range", "redis:\n  addr: '127.0.0.1:99999'\n",
			`p.yaml:3: redis.addr: "127.0.0.1:99999": port "99999" is not a TCP port (a number from 1 to 65535)`},
		{"an address without its port", "redis:\n  addr: '10.0.0.5:'\n",
			`p.yaml:3: redis.addr: "10.0.0.5:" names no port after the colon: write it host:port, as "10.0.0.5:6379"`},
		{"a scheme Redis does not speak", "redis:\n  addr: 'http://127.0.0.1:6379'\n",
			`p.yaml:3: redis.addr: "http://127.0.0.1:6379": scheme "http" is not redis:// or rediss://`},
		{"a database that is not a number", "redis:\n  addr: 'redis://127.0.0.1:6379/abc'\n",
			`p.yaml:3: redis.addr: "redis://127.0.0.1:6379/abc": the path "/abc" is not a database number`},
		{"a CA file that does not exist", "redis:\n  addr: '127.0.0.1:6379'\n  tls: true\n  tls_ca_file: /nonexistent/ca.pem\n",
			`p.yaml:5: redis.tls_ca_file: /nonexistent/ca.pem: no such file or directory`},
		{"a CA file without a certificate", "redis:\n  addr: '127.0.0.1:6379'\n  tls: true\n  tls_ca_file: " + notPEM + "\n",
			`p.yaml:5: redis.tls_ca_file: ` + notPEM + ` holds no PEM certificate`},
	} {
		for _, args := range [][]string{
			{"validate", writeProfile(t, externalProfile(tc.section))},
			{"run", "--out", t.TempDir(), writeProfile(t, externalProfile(tc.section))},
		} {
			code, _, stderr := runCLI(t, args...)
			got := stderr
			if i := strings.Index(got, "p.yaml:"); i >= 0 {
				got = got[i:]
			}
			if code != exitUsage || !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s (%s): exit %d\n got: %s\nwant: %s", tc.why, args[0], code, stderr, tc.want)
			}
		}
	}
}

// TestBadRedisFlagIsUsage: a --redis value that is no Redis address is bad
// usage (exit 2), found before anything is dialled, and the message quotes
// it and says what part is wrong.
func TestBadRedisFlagIsUsage(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"http://127.0.0.1:6379", `scheme "http" is not redis:// or rediss://`},
		{"127.0.0.1:99999", `--redis: "127.0.0.1:99999": port "99999" is not a TCP port (a number from 1 to 65535)`},
		{"redis://127.0.0.1:6379/abc", `the path "/abc" is not a database number`},
		{"redis://127.0.0.1:6379/0?dial_timeout=1s", "a query"},
		{"127.0.0.1", `--redis: "127.0.0.1" names no port: write it host:port, as "127.0.0.1:6379"`},
		{"127.0.0.1:", `--redis: "127.0.0.1:" names no port after the colon: write it host:port, as "127.0.0.1:6379"`},
		{":6379", `--redis: ":6379" names no host before the colon: write it host:port, as "127.0.0.1:6379" for this machine`},
		{"::1:6379", `--redis: "::1:6379": an IPv6 address goes in brackets, as "[::1]:6379"`},
		{"redis://bench:s3cret@127.0.0.1:6379", `--redis: "redis://bench:xxxxx@127.0.0.1:6379" carries a password; put it in an environment variable and name that in redis.password_env (a profile) or --redis-password-env (the command line)`},
	} {
		code, stdout, stderr := runCLI(t, "run", "--quiet", "--redis", tc.addr, "--out", t.TempDir(), writeProfile(t, tinyProfile))
		if code != exitUsage || !strings.Contains(stderr, "--redis") || !strings.Contains(stderr, tc.want) || strings.Contains(stdout+stderr, "s3cret") {
			t.Errorf("--redis %s: exit %d, stderr %q; want exit %d and %q", tc.addr, code, stderr, exitUsage, tc.want)
		}
	}
}

// TestTLSAgainstAPlainServer: rediss:// to a server that does not speak
// TLS says the TLS handshake failed, not only that a deadline passed.
func TestTLSAgainstAPlainServer(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	code, _, stderr := runCLI(t, "run", "--quiet", "--redis", "rediss://"+addr, "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code != exitRuntime || !strings.Contains(stderr, "TLS handshake with "+addr+" failed") {
		t.Errorf("exit %d, stderr %q; want exit %d and a failed TLS handshake", code, stderr, exitRuntime)
	}
}

// TestOutputDirCheckedBeforeTheRun: an --out that cannot hold results is
// bad usage found before Redis is even dialled, not after a whole run whose
// result is then lost.
func TestOutputDirCheckedBeforeTheRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"/proc/rlbench-results", file, "/dev/null", filepath.Join(file, "below")} {
		code, _, stderr := runCLI(t, "run", "--quiet", "--redis", redistest.ClosedAddr(t), "--out", out, writeProfile(t, tinyProfile))
		if code != exitUsage || !strings.Contains(stderr, "--out "+out) {
			t.Errorf("--out %s: exit %d, stderr %q; want exit %d naming it", out, code, stderr, exitUsage)
		}
	}
}

// TestBadRedisClusterFlagIsUsage: a --redis-cluster value that names no
// cluster nodes, or one given with --redis, is bad usage (exit 2), found
// before anything is dialled, and a password in it is never printed.
func TestBadRedisClusterFlagIsUsage(t *testing.T) {
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"no node", []string{"--redis-cluster", ","}, "--redis-cluster: list is empty"},
		{"a node that is no address", []string{"--redis-cluster", "127.0.0.1:7000,nowhere"}, `--redis-cluster: "nowhere" names no port`},
		{"a database, which a cluster does not have", []string{"--redis-cluster", "redis://127.0.0.1:7000/3"}, "names database 3: a Redis Cluster has database 0 only"},
		{"a password in a node's URL", []string{"--redis-cluster", "redis://bench:s3cret@127.0.0.1:7000"}, `"redis://bench:xxxxx@127.0.0.1:7000" carries a password`},
		{"one server and a cluster at once", []string{"--redis", "127.0.0.1:6379", "--redis-cluster", "127.0.0.1:7000"}, "give one of --redis (one server), --redis-cluster or --redis-sentinel, not several"},
	} {
		args := append(append([]string{"run", "--quiet", "--out", t.TempDir()}, tc.args...), writeProfile(t, tinyProfile))
		code, stdout, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stdout+stderr, "s3cret") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.why, code, stderr, exitUsage, tc.want)
		}
	}
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis-cluster", "127.0.0.1:7000",
		writeProfile(t, externalProfile("redis:\n  addr: 127.0.0.1:6379\n  db: 2\n")))
	if code != exitUsage || !strings.Contains(stderr, "redis.db is 2, and a Redis Cluster has database 0 only") {
		t.Errorf("a profile's database with --redis-cluster: exit %d, stderr %q", code, stderr)
	}
}

// TestUnreachableClusterFailsFast: a cluster nobody listens at fails the
// run within seconds as a runtime failure (exit 3), naming the address.
func TestUnreachableClusterFailsFast(t *testing.T) {
	addr := redistest.ClosedAddr(t)
	start := time.Now()
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis-cluster", addr, writeProfile(t, tinyProfile))
	if code != exitRuntime || !strings.Contains(stderr, "redis cluster at "+addr+" unreachable") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to give up", took)
	}
}
