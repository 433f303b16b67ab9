package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redistest"
)

// aclLog is what a server's ACL LOG holds: every refused AUTH names the
// user it was tried for.
func aclLog(t *testing.T, admin *redis.Client) string {
	t.Helper()
	entries, err := admin.Do(context.Background(), "ACL", "LOG").Slice()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(entries)
}

// TestRedisFlagSendsNotTheProfilesCredentials: a profile whose redis
// section names one server with a user and a password, run with --redis
// naming another, must not send that user and password to the other
// server. The other server here has no such user: had the credentials
// gone to it, it would refuse the connection (WRONGPASS, exit 3) and log
// the attempt. Named as the profile's own address, the credentials do go.
func TestRedisFlagSendsNotTheProfilesCredentials(t *testing.T) {
	ctx := context.Background()
	theirs := redistest.Start(t)
	other := redistest.Start(t)
	for _, addr := range []string{theirs, other} {
		admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
		t.Cleanup(func() { _ = admin.Close() })
		if addr == theirs {
			if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "on", ">profile-pw-7f3a", "~rlbench:*", "+@all").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("RLBENCH_TEST_PASSWORD", "profile-pw-7f3a")
	section := "redis:\n  addr: " + theirs + "\n  username: bench\n  password_env: RLBENCH_TEST_PASSWORD\n"
	path := writeProfile(t, externalProfile(section))

	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), "--redis", other, path)
	if code != exitOK {
		t.Fatalf("--redis %s: exit %d\n%s\n%s", other, code, stdout, stderr)
	}
	otherAdmin := redis.NewClient(&redis.Options{Addr: other, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = otherAdmin.Close() })
	if log := aclLog(t, otherAdmin); strings.Contains(log, "bench") {
		t.Errorf("the other server was sent the profile's user: ACL LOG %s", log)
	}
	if strings.Contains(stdout+stderr, "profile-pw-7f3a") {
		t.Errorf("the output holds the password")
	}

	// The profile's own server, named on the command line as a URL: the
	// credentials are the profile's, and they are needed.
	code, stdout, stderr = runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), "--redis", "redis://"+theirs+"/0", path)
	if code != exitOK {
		t.Fatalf("--redis naming the profile's own server: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCredentialsFromTheCommandLine: --redis-username and
// --redis-password-env connect as an ACL user without a profile section,
// as REDISCLI_AUTH does for redis-cli; the password appears nowhere, a
// variable that is not set is a usage error naming the variable, and a
// value that is not a variable's name (a password given by mistake) is
// refused without being repeated.
func TestCredentialsFromTheCommandLine(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = admin.Close() })
	const password = "cli-pw-RLBENCH-91c2"
	if err := admin.Do(ctx, "ACL", "SETUSER", "ci", "on", ">"+password, "~rlbench:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "default", "off").Err(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RLBENCH_CI_AUTH", password)
	path := writeProfile(t, externalProfile(""))
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, "--redis", addr, "--redis-username", "ci", "--redis-password-env", "RLBENCH_CI_AUTH", path)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	noFileHolds(t, out, password)
	if strings.Contains(stdout+stderr, password) {
		t.Errorf("the output holds the password")
	}

	code, _, stderr = runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis", addr, "--redis-username", "ci", "--redis-password-env", "RLBENCH_UNSET_VAR", path)
	if code != exitUsage || !strings.Contains(stderr, "--redis-password-env names RLBENCH_UNSET_VAR, which is not set") {
		t.Errorf("unset variable: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis", addr, "--redis-password-env", "pw!"+password, path)
	if code != exitUsage || strings.Contains(stderr, password) || !strings.Contains(stderr, "not printed") {
		t.Errorf("a password in place of a name: exit %d, stderr %s", code, stderr)
	}
}
