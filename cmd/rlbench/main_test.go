package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIWith(t, hooks{}, args...)
}

// runCLIWith runs the command with the test's hooks h, which no other
// invocation sees.
func runCLIWith(t *testing.T, h hooks, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(withHooks(context.Background(), h), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeProfile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runAndRead runs a profile on a private redis-server (or the Redis flags
// name) and returns the result, the summary, and the directory the run
// wrote.
func runAndRead(t *testing.T, name, body string, flags ...string) (*result.Result, string, string) {
	t.Helper()
	return runAndReadWith(t, hooks{}, name, body, flags...)
}

// runAndReadWith is runAndRead with the test's hooks h.
func runAndReadWith(t *testing.T, h hooks, name, body string, flags ...string) (*result.Result, string, string) {
	t.Helper()
	redistest.ServerPath(t)
	out := t.TempDir()
	args := append(append([]string{"run", "--quiet", "--out", out}, flags...), writeProfile(t, body))
	code, stdout, stderr := runCLIWith(t, h, args...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(out, name+"-*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("result files: %v", matches)
	}
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return res, stdout, filepath.Dir(matches[0])
}

const tinyProfile = `name: tiny
policy: {limit: 10, window: 1s}
concurrency: 4
scenarios:
  - shape: steady
    rate: 2x
    identities: 3
    duration: 300ms
    accept_inconclusive: true  # too short for an identity to reach its limit
`

// TestRunWritesAResultThatParsesBack runs a profile end to end on a private
// redis-server and reads the result back through the contract.
func TestRunWritesAResultThatParsesBack(t *testing.T) {
	t.Parallel()
	res, stdout, dir := runAndRead(t, "tiny", tinyProfile)
	if res.Redis.Mode != "private" || !res.Complete || res.Verdict != result.Pass || len(res.Runs) != 4 {
		t.Errorf("result: mode %s complete %v verdict %s runs %d", res.Redis.Mode, res.Complete, res.Verdict, len(res.Runs))
	}
	for _, r := range res.Runs {
		if r.Requests.Sent == 0 || r.LatencyUs.Count != r.Requests.Sent || r.LatencyHDR == "" || len(r.Series) == 0 {
			t.Errorf("%s: run is missing figures: %+v", r.Key(), r.Requests)
		}
	}
	for _, name := range []string{html.HTMLFile, "latency-steady.png", "hgrm/leaky_bucket-steady.hgrm"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the run wrote no %s beside the result: %v", name, err)
		}
	}
	for _, col := range []string{"algorithm", "sent", "allowed", "p99.9", "fixed_window", "leaky_bucket", "verdict: pass"} {
		if !strings.Contains(stdout, col) {
			t.Errorf("summary lacks %q:\n%s", col, stdout)
		}
	}
}

// TestUnreachableRedisExits3 fails in under 5 s, naming the address.
func TestUnreachableRedisExits3(t *testing.T) {
	addr := redistest.ClosedAddr(t)
	start := time.Now()
	code, _, stderr := runCLI(t, "run", "--quiet", "--redis", addr, "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code != exitRuntime {
		t.Errorf("exit %d, want %d", code, exitRuntime)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s to fail", took)
	}
	if !strings.Contains(stderr, addr) {
		t.Errorf("message does not name %s: %s", addr, stderr)
	}
}

func TestBadInputExits2(t *testing.T) {
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"unknown command", []string{"fly"}, `unknown command "fly"`},
		{"run without a profile", []string{"run"}, "exactly one profile"},
		{"missing file", []string{"validate", "/nonexistent/p.yaml"}, "/nonexistent/p.yaml: no such file"},
		{"unknown flag", []string{"run", "--fast", "x.yaml"}, "flag provided but not defined: -fast"},
		{"invalid profile", []string{"validate", writeProfile(t, "policy: {limit: -1, window: 1s}\nscenarios: []\n")}, "policy.limit: must be at least 1"},
		{"password variable not set", []string{"run", writeProfile(t, "redis: {addr: '127.0.0.1:1', password_env: RLBENCH_TEST_UNSET_VAR}\n"+tinyProfile[len("name: tiny\n"):])}, "RLBENCH_TEST_UNSET_VAR, which is not set"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d (stderr %s)", tc.why, code, exitUsage, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q lacks %q", tc.why, stderr, tc.want)
		}
	}
}

func TestValidateAndAlgorithms(t *testing.T) {
	code, stdout, stderr := runCLI(t, "validate", writeProfile(t, tinyProfile))
	if code != exitOK || !strings.Contains(stdout, "ok: 1 scenario x 4 algorithms = 4 runs") {
		t.Errorf("validate: exit %d, %s %s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "algorithms")
	for _, name := range algorithms.Names() {
		if code != exitOK || !strings.Contains(stdout, name) {
			t.Errorf("algorithms: exit %d, lacks %s:\n%s", code, name, stdout)
		}
	}
}

// TestAlgorithmsTable: the table takes bytes per identity and server time
// per decision from a baseline result when there is one, says how to
// measure them when the default one is missing, and refuses a baseline
// named on the command line that cannot be read.
func TestAlgorithmsTable(t *testing.T) {
	code, stdout, _ := runCLI(t, "algorithms")
	if code != exitOK || !strings.Contains(stdout, "no baseline at results/baselines/compare-all.json; measure with: rlbench run profiles/compare-all.yaml") {
		t.Errorf("without a baseline: exit %d:\n%s", code, stdout)
	}
	for _, want := range []string{
		"NAME STATE PER IDENTITY B/IDENTITY µs/CALL BOUND IN ONE WINDOW EXACT",
		"sliding_log sorted set, a member per admitted request - - limit yes",
		"sliding_counter (opt-in) hash {w, cur, prev}: two window counts - - 2 x limit no",
	} {
		if !strings.Contains(collapse(stdout), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "algorithms", "--baseline", "../../report/testdata/wave1-result.json")
	for _, want := range []string{
		"fixed_window string counter 117 B 2.3 2 x limit yes",
		"sliding_log sorted set, a member per admitted request 771 B 5.1 limit yes",
		"gcra (opt-in) string, the theoretical arrival time - - burst + limit yes",
		"Measured by profile compare on Redis 7.0.15 (private)",
	} {
		if code != exitOK || !strings.Contains(collapse(stdout), want) {
			t.Errorf("with a baseline: exit %d, lacks %q:\n%s", code, want, stdout)
		}
	}
	if code, _, stderr := runCLI(t, "algorithms", "--baseline", "nope.json"); code != exitUsage || !strings.Contains(stderr, "nope.json") {
		t.Errorf("a missing baseline named on the command line: exit %d, %s", code, stderr)
	}
}

// collapse joins the words of s with single spaces, line by line: column
// widths depend on every row.
func collapse(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

// TestValidateSaysHowLongARunTakes: a run that ends after a request count
// is described by its requests, not by its safety time bound.
func TestValidateSaysHowLongARunTakes(t *testing.T) {
	for _, tc := range []struct {
		why, profile, want string
	}{
		{"a timed scenario", tinyProfile, "4 runs, at most 1.2s,"},
		{"a closed loop bounded by a count", "policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window]\nscenarios:\n  - {shape: steady, rate: max, requests: 5000}\n",
			"1 run, 5000 requests in closed loop,"},
		{"an open loop that reaches its count first", "policy: {limit: 10, window: 1s}\nalgorithms: [fixed_window]\nscenarios:\n  - {shape: steady, rate: 100/s, requests: 50, duration: 1m}\n",
			"1 run, at most 500ms,"},
	} {
		code, stdout, stderr := runCLI(t, "validate", writeProfile(t, tc.profile))
		if code != exitOK || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: exit %d, %q lacks %q (%s)", tc.why, code, stdout, tc.want, stderr)
		}
	}
}

// TestShippedProfilesAreValid keeps profiles/ in step with the parser.
func TestShippedProfilesAreValid(t *testing.T) {
	paths, _ := filepath.Glob("../../profiles/*.yaml")
	examples, _ := filepath.Glob("../../profiles/*/*.yaml")
	paths = append(paths, examples...)
	if len(paths) < 6 {
		t.Fatalf("found %d profiles", len(paths))
	}
	for _, p := range paths {
		if code, _, stderr := runCLI(t, "validate", p); code != exitOK {
			t.Errorf("%s: %s", p, stderr)
		}
	}
}
