package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestImpossibleThresholdExits1 runs a short profile whose latency threshold
// no server can meet: the run completes, exits 1, names the threshold with
// its measured value, and records it in result.json.
func TestImpossibleThresholdExits1(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	out := t.TempDir()
	profile := tinyProfile + `thresholds:
  - "*/* requests.errors == 0"
  - "fixed_window/* latency_us.p50 < 1us"
`
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, writeProfile(t, profile))
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFail, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL  fixed_window/steady") || !strings.Contains(stdout, "latency_us.p50 < 1us: measured") {
		t.Errorf("summary does not name the failed threshold with its value:\n%s", stdout)
	}
	if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, `verdict: fail: threshold "fixed_window/* latency_us.p50 < 1us" failed on fixed_window/steady (measured`) {
		t.Errorf("the first line does not give the failed threshold: %q", first)
	}
	if i, j := strings.Index(stdout, "  FAIL  "), strings.LastIndex(stdout, "\nverdict: fail\n"); i < 0 || j < i {
		t.Errorf("failures should come before the final verdict:\n%s", stdout)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "tiny-*", "result.json"))
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != result.Fail || len(res.Thresholds) != 5 {
		t.Fatalf("verdict %s with %d threshold results, want fail with 4 + 1", res.Verdict, len(res.Thresholds))
	}
	if first := res.Thresholds[0]; first.OK || first.Run != "fixed_window/steady" || first.Value < 1 {
		t.Errorf("first threshold result should be the failure with its value: %+v", first)
	}
}

func TestThresholdProfileErrors(t *testing.T) {
	for _, tc := range []struct {
		why       string
		threshold string
		want      string
	}{
		{"unknown field", `"*/* audit.overshot == 0"`,
			`p.yaml:11: thresholds[0]: unknown field "audit.overshot" (did you mean "audit.overshoot"?)`},
		{"unknown operator", `"*/* audit.overshoot => 0"`,
			`p.yaml:11: thresholds[0]: unknown operator "=>" (use <, <=, >, >= or ==)`},
		{"unit mismatch", `"*/* latency_us.p99 < 5B"`,
			`p.yaml:11: thresholds[0]: latency_us.p99 is a time in microseconds; "5B" is a size`},
		{"selector matching no run", `"token_buckett/* latency_us.p99 < 5ms"`,
			`p.yaml:11: thresholds[0]: selector token_buckett/* matches no run (algorithms: fixed_window, sliding_log, token_bucket, leaky_bucket; scenarios: steady)`},
		{"not a string", `{field: p99}`,
			`p.yaml:11: thresholds[0]: want a rule like "*/* audit.overshoot == 0", got a mapping`},
	} {
		path := writeProfile(t, tinyProfile+"thresholds:\n  - "+tc.threshold+"\n")
		code, _, stderr := runCLI(t, "validate", path)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d", tc.why, code, exitUsage)
		}
		if got := strings.TrimPrefix(strings.TrimSpace(stderr), "rlbench: "+filepath.Dir(path)+"/"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got: %s\nwant: %s", tc.why, got, tc.want)
		}
	}
}

func writeResult(t *testing.T, r *result.Result) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "result.json")
	if err := result.WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func gateResult(p99 int64, overshoot int64) *result.Result {
	return &result.Result{
		Schema: result.Schema, Verdict: result.Pass, Complete: true, Thresholds: []result.ThresholdResult{},
		Profile: result.ProfileInfo{Name: "gate"},
		Runs: []result.Run{{Algorithm: "fixed_window", Scenario: "steady",
			LatencyUs: result.Latency{Count: 5000, P50: 100, P99: p99}, Audit: &result.Audit{Overshoot: overshoot}}},
	}
}

// interruptedResult is gateResult cut short: 7 of 500 planned requests,
// then Ctrl-C.
func interruptedResult(overshoot int64) *result.Result {
	r := gateResult(1000, overshoot)
	r.Complete, r.IncompleteReason = false, "interrupted (Ctrl-C)"
	r.Runs[0].Incomplete = true
	r.Runs[0].Requests = result.Requests{Planned: 500, Sent: 7, Allowed: 7}
	return r
}

func TestCompareCommand(t *testing.T) {
	base := writeResult(t, gateResult(1000, 0))
	for _, tc := range []struct {
		why  string
		args []string
		code int
		want string
	}{
		{"unchanged", []string{base, writeResult(t, gateResult(1100, 0))}, exitOK, "verdict: no regression"},
		{"p99 doubled between single runs: noise", []string{base, writeResult(t, gateResult(2000, 0))}, exitOK, "a single run has no spread"},
		{"p99 doubled, judged by a tolerance given", []string{"--p99", "25%", base, writeResult(t, gateResult(2000, 0))}, exitFail, "REGRESSED"},
		{"a wider tolerance accepts it", []string{"--p99", "150%", "--all", base, writeResult(t, gateResult(2000, 0))}, exitOK, "+150%"},
		{"overshoot appeared", []string{"--format", "markdown", base, writeResult(t, gateResult(1000, 3))}, exitFail, "| fixed\\_window/steady | `audit.overshoot` | 0 | 3 |"},
		{"a malformed file", []string{base, writeProfile(t, `{"schema": "rlbench.result/v1", "runs": [`)}, exitUsage, "truncated JSON"},
		{"a missing file", []string{base, "/nonexistent/result.json"}, exitUsage, "/nonexistent/result.json: no such file"},
		{"a bad percentage", []string{"--p99", "lots", base, base}, exitUsage, `"lots" is not a percentage`},
		{"an interrupted result is no verdict", []string{base, writeResult(t, interruptedResult(0))}, exitFail,
			"comparison: no verdict, the current result did not complete (interrupted (Ctrl-C)) (--allow-incomplete compares what both measured)"},
		{"an interrupted baseline is refused: its verdict is not pass", []string{writeResult(t, interruptedResult(0)), base}, exitUsage,
			"its own verdict is fail: the run did not complete: interrupted (Ctrl-C); a baseline must pass"},
		{"forced, it is compared, and no verdict", []string{"--force-baseline", writeResult(t, interruptedResult(0)), base}, exitFail, "verdict: INCOMPLETE"},
		{"a baseline that failed its own checks is refused", []string{writeResult(t, gateResult(1000, 3)), base}, exitUsage,
			"its own verdict is fail: fixed_window/steady: OVERSHOOT"},
		{"forced, it is compared", []string{"--force-baseline", writeResult(t, gateResult(1000, 3)), base}, exitOK, "verdict: no regression"},
		{"compared anyway when allowed", []string{"--allow-incomplete", base, writeResult(t, interruptedResult(0))}, exitOK, "verdict: INCOMPLETE"},
		{"allowed, what it measured still regresses", []string{"--allow-incomplete", base, writeResult(t, interruptedResult(2))}, exitFail, "verdict: REGRESSED, and INCOMPLETE"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"compare"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%s: exit %d (want %d), output lacks %q:\n%s%s", tc.why, code, tc.code, tc.want, stdout, stderr)
		}
	}
}

// TestCompareJUnit: compare --junit writes the comparison's regressions as
// JUnit failures of their run's test case, and a clean comparison as
// passing cases; a JUnit path in a missing directory is refused before
// anything is read.
func TestCompareJUnit(t *testing.T) {
	base := writeResult(t, gateResult(1000, 0))
	dir := t.TempDir()
	path := filepath.Join(dir, "compare.xml")
	code, stdout, stderr := runCLI(t, "compare", "--junit", path, base, writeResult(t, gateResult(1000, 3)))
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFail, stdout, stderr)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testcase name="fixed_window/steady" classname="rlbench.compare">`,
		`<failure type="REGRESSED" message="audit.overshoot: 0 -&gt; 3, allowed none: REGRESSED">`, `failures="1"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the JUnit file lacks %s:\n%s", want, doc)
		}
	}
	code, stdout, stderr = runCLI(t, "compare", "--junit", path, base, writeResult(t, gateResult(1100, 0)))
	if doc, _ := os.ReadFile(path); code != exitOK || !strings.Contains(string(doc), `failures="0"`) {
		t.Errorf("a clean comparison: exit %d, JUnit:\n%s\n%s%s", code, doc, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "compare", "--junit", filepath.Join(dir, "missing", "x.xml"), base, base)
	if code != exitUsage || !strings.Contains(stderr, "does not exist") {
		t.Errorf("a JUnit file in a missing directory: exit %d, %s", code, stderr)
	}
}

// TestRepeatRecordsMediansAndSpread: --repeat 3 runs each scenario three
// times on fresh keys and folds them into one run per algorithm with the
// repetitions' values kept.
func TestRepeatRecordsMediansAndSpread(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	out := t.TempDir()
	profile := strings.Replace(tinyProfile, "duration: 300ms", "duration: 200ms", 1)
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--repeat", "3", "--out", out, writeProfile(t, profile))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "tiny-*", "result.json"))
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs, want one per algorithm", len(res.Runs))
	}
	for _, r := range res.Runs {
		if r.Repeats == nil || r.Repeats.Count != 3 || len(r.Repeats.Values["latency_us.p99"]) != 3 {
			t.Fatalf("%s: repeats %+v", r.Key(), r.Repeats)
		}
		lo, hi, _ := r.Repeats.Spread("latency_us.p99")
		if p99 := float64(r.LatencyUs.P99); p99 < lo || p99 > hi {
			t.Errorf("%s: p99 %v is not inside its repetitions' spread %v..%v", r.Key(), p99, lo, hi)
		}
		// Three repetitions of 2x for 200ms over 3 identities at 10/s
		// each: 12 requests each, sent or (when a busy machine held the
		// generator past the end) counted unsent.
		if q := r.Requests; q.Sent+q.Unsent != 3*12 {
			t.Errorf("%s: sent %d + unsent %d, want the sum over repetitions 36", r.Key(), q.Sent, q.Unsent)
		}
	}
}

// smokeWith returns profiles/smoke.yaml with its algorithm list replaced
// (to keep the test short; it keeps sliding_log, which a smoke threshold
// names) and extra thresholds appended.
func smokeWith(t *testing.T, algorithms string, thresholds ...string) string {
	t.Helper()
	data, err := os.ReadFile("../../profiles/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(data), "seed: 7\n", "seed: 7\nalgorithms: "+algorithms+"\n", 1)
	for _, th := range thresholds {
		body += "  - " + strconv.Quote(th) + "\n"
	}
	return writeProfile(t, body)
}

// TestSmokeGateCatchesAnImpossibleThreshold: the smoke profile with a
// threshold no server meets exits 1 and names it.
func TestSmokeGateCatchesAnImpossibleThreshold(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", t.TempDir(),
		smokeWith(t, "[fixed_window, sliding_log]", "*/steady latency_us.p50 < 1us"))
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFail, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL  fixed_window/steady") || !strings.Contains(stdout, "*/steady latency_us.p50 < 1us: measured") {
		t.Errorf("the failed threshold is not named with its value:\n%s", stdout)
	}
}

// TestSmokeGateCatchesABrokenLimiter: with a sliding log that admits three
// more than its limit, the smoke profile fails and exits 1, naming it first
// and blaming no correct limiter.
func TestSmokeGateCatchesABrokenLimiter(t *testing.T) {
	redistest.ServerPath(t)
	// Not in parallel: the overshoot in both scenarios needs their
	// schedules kept.
	code, stdout, stderr := runCLIWith(t, brokenSlidingLog(), "run", "--quiet", "--no-report", "--out", t.TempDir(),
		smokeWith(t, "[fixed_window, sliding_log]"))
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFail, stdout, stderr)
	}
	if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, "verdict: fail: sliding_log/steady: OVERSHOOT") {
		t.Errorf("the first line does not name the broken limiter: %q", first)
	}
	if !strings.Contains(stdout, "sliding_log/straddle: OVERSHOOT") || strings.Contains(stdout, "fixed_window/straddle: OVERSHOOT") {
		t.Errorf("the broken limiter is not named in every run, or a correct one is:\n%s", stdout)
	}
}
