package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// externalProfile is a tiny run against the Redis the redis section names.
func externalProfile(redisSection string) string {
	return "name: ext\n" + redisSection + `policy: {limit: 10, window: 1s}
algorithms: [fixed_window, sliding_log]
concurrency: 4
scenarios:
  - shape: steady
    rate: 2x
    identities: 3
    duration: 200ms
    accept_inconclusive: true  # too short for an identity to reach its limit
`
}

// TestACLUserWithPasswordFromTheEnvironment connects as an ACL user whose
// password comes from the environment variable the profile names. The user
// may touch only rlbench:* keys, so Redis itself would refuse any write
// outside the run prefix; the password appears in no file the run writes.
func TestACLUserWithPasswordFromTheEnvironment(t *testing.T) {
	addr := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	defer admin.Close()
	ctx := context.Background()
	const password = "s3cret-RLBENCH-pw"
	if err := admin.Do(ctx, "ACL", "SETUSER", "bench", "on", ">"+password, "~rlbench:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	admin.Set(ctx, "customer:7", "theirs", 0)
	t.Setenv("RLBENCH_TEST_PASSWORD", password)
	section := "redis:\n  addr: " + addr + "\n  username: bench\n  password_env: RLBENCH_TEST_PASSWORD\n"

	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, writeProfile(t, externalProfile(section)))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "ext-*", "result.json"))
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if res.Redis.Mode != string(redisenv.External) || res.Redis.Addr != addr {
		t.Errorf("redis %+v, want external at %s", res.Redis, addr)
	}
	for _, r := range res.Runs {
		if r.Requests.Errors != 0 || r.Requests.Allowed == 0 {
			t.Errorf("%s: %+v %v", r.Key(), r.Requests, r.Errors)
		}
	}
	// Nothing written anywhere holds the password.
	noFileHolds(t, out, password)
	if strings.Contains(stdout+stderr, password) {
		t.Errorf("the output contains the password")
	}
	if v := admin.Get(ctx, "customer:7").Val(); v != "theirs" {
		t.Errorf("a foreign key was touched: %q", v)
	}
	if n := len(admin.Keys(ctx, "rlbench:*").Val()); n != 0 {
		t.Errorf("%d rlbench keys left on a server rlbench did not start", n)
	}

	// A wrong password fails fast, naming the address and not the password.
	t.Setenv("RLBENCH_TEST_PASSWORD", "wrong-"+password)
	code, _, stderr = runCLI(t, "run", "--quiet", "--out", t.TempDir(), writeProfile(t, externalProfile(section)))
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+addr+" refused the connection: WRONGPASS") || strings.Contains(stderr, password) {
		t.Errorf("wrong password: exit %d, stderr %s", code, stderr)
	}
}

// TestPasswordRequiredButNotGiven: a server with requirepass, named with
// --redis and no password, fails at once, naming the address and saying
// how a password is given, and prints no secret.
func TestPasswordRequiredButNotGiven(t *testing.T) {
	const password = "s3cret-RLBENCH-pw"
	srv := redistest.StartConfigured(t, "--requirepass", password)
	start := time.Now()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis", srv.Addr, writeProfile(t, tinyProfile))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to fail", took)
	}
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+srv.Addr+" refused the connection: NOAUTH") ||
		!strings.Contains(stderr, "--redis-password-env") || strings.Contains(stdout+stderr, password) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// noFileHolds fails the test when a file under dir holds secret.
func noFileHolds(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s contains the password", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTLS runs against a redis-server that only speaks TLS, trusting its
// certificate through tls_ca_file; without the CA the run fails, naming
// the address.
func TestTLS(t *testing.T) {
	path := redistest.ServerPath(t)
	dir := t.TempDir()
	certFile, keyFile := selfSignedCert(t, dir)
	port, err := redisenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	srv := exec.Command(path, "--port", "0", "--tls-port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--tls-cert-file", certFile, "--tls-key-file", keyFile, "--tls-ca-cert-file", certFile,
		"--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("TLS redis-server did not start on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}

	section := "redis:\n  addr: " + addr + "\n  tls: true\n  tls_ca_file: " + certFile + "\n"
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), writeProfile(t, externalProfile(section)))
	if code != exitOK || !strings.Contains(stdout, "fixed_window") {
		t.Fatalf("over TLS: exit %d\n%s\n%s", code, stdout, stderr)
	}

	untrusted := "redis:\n  addr: " + addr + "\n  tls: true\n"
	code, _, stderr = runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), writeProfile(t, externalProfile(untrusted)))
	if code != exitRuntime || !strings.Contains(stderr, addr) || !strings.Contains(stderr, "certificate") {
		t.Errorf("untrusted certificate: exit %d, stderr %s", code, stderr)
	}

	// Without TLS, the server closes the connection at the first command:
	// the message says TLS may be why.
	code, _, stderr = runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(), writeProfile(t, externalProfile("redis:\n  addr: "+addr+"\n")))
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+addr+" unreachable") || !strings.Contains(stderr, "if this port speaks TLS, name it rediss:// or set redis.tls") {
		t.Errorf("plain connection to a TLS port: exit %d, stderr %s", code, stderr)
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 that is its own CA.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestDatabaseOutOfRange: a database the server does not have (16 of the
// default 16, numbered from 0) fails at once, naming the address and the
// database.
func TestDatabaseOutOfRange(t *testing.T) {
	addr := redistest.Start(t)
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--redis", "redis://"+addr+"/16", writeProfile(t, tinyProfile))
	if code != exitRuntime || !strings.Contains(stderr, "redis at "+addr+" refused the connection: ERR DB index is out of range (database 16 was asked for") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}
