//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// TestIntegrationExampleProfiles runs the shipped examples of a user's limiter as
// they are: the textbook fixed window and the Redis Function token bucket
// pass, and the fixed window with an off-by-one fails on its overshoot.
func TestIntegrationExampleProfiles(t *testing.T) {
	redistest.ServerPath(t)
	for _, tc := range []struct {
		name string
		exit int
	}{
		{"textbook_fixed_window", exitOK},
		{"token_bucket_function", exitOK},
		{"buggy_fixed_window", exitFail},
		{"hash_fixed_window", exitOK},
		{"list_sliding_log", exitOK},
		{"gcra_cost", exitOK},
		{"token_bucket_microtime", exitOK},
	} {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, "../../profiles/examples/"+tc.name+".yaml")
		matches, _ := filepath.Glob(filepath.Join(out, tc.name+"-*", "result.json"))
		if len(matches) != 1 {
			t.Fatalf("%s: exit %d, result files %v\n%s\n%s", tc.name, code, matches, stdout, stderr)
		}
		res, err := result.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Runs {
			a := r.Audit
			if a == nil || r.Requests.Errors != 0 || len(r.ReplyMalformed) != 0 {
				t.Fatalf("%s: %s: audit %v, errors %v, malformed replies %v", tc.name, r.Key(), a, r.Errors, r.ReplyMalformed)
			}
			if r.Scenario == "costly" && (r.Params.Cost == "") == (res.Profile.Limiters[0].Name == r.Algorithm) {
				t.Errorf("%s: %s: cost %q: a declared limiter told ${cost} records the scenario's cost, a built-in none", tc.name, r.Key(), r.Params.Cost)
			}
			if r.Algorithm == "fn_bucket" && (a.Basis != result.AuditByModel || a.ModelMismatches != 0 || r.Server.Command != "fcall") {
				t.Errorf("%s: the Function was not replayed exactly: %+v, server %+v", r.Key(), *a, r.Server)
			}
			switch {
			case r.Algorithm != "buggy" && a.Overshoot > 0:
				t.Errorf("%s: a correct limiter overshoots: %+v", r.Key(), *a)
			case r.Algorithm == "buggy" && a.Overshoot == 0 && r.LatencyUs.Max >= 40_000:
				// The bursts straddle the boundary only when each request is
				// decided within their 50ms offset of its due time.
				t.Logf("%s: a request was decided %dus after it was due, so the bursts may have missed the boundary: not judging the example", r.Key(), r.LatencyUs.Max)
				code = tc.exit
			case r.Algorithm == "buggy" && a.Overshoot == 0:
				t.Errorf("%s: the off-by-one went unseen: %+v", r.Key(), *a)
			case r.Algorithm == "buggy" && !strings.Contains(stdout, "buggy/edge: OVERSHOOT"):
				t.Errorf("%s: the summary does not flag the bug:\n%s", tc.name, stdout)
			}
		}
		if code == exitInconclusive && tc.exit == exitOK && heldBackByTheMachine(t, res) {
			code = tc.exit
		}
		if code != tc.exit {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", tc.name, code, tc.exit, stdout, stderr)
		}
	}
}

// TestIntegrationInitOnPublishedLimiters: rlbench init on limiters written
// the way popular libraries write them (a fixed window in a hash with the
// caller's seconds and a retry-after in float seconds, a moving window in
// a list with an amount, GCRA with a cost and TIME in seconds since 2017,
// a token bucket taking microtime(true)) writes a profile that validates
// and runs as it is, with shorter scenarios: no call fails, no reply part
// goes unread, and each correct limiter passes.
func TestIntegrationInitOnPublishedLimiters(t *testing.T) {
	redistest.ServerPath(t)
	for _, name := range []string{"hash_fixed_window", "list_sliding_log", "gcra_cost", "token_bucket_microtime"} {
		lua := filepath.Join(t.TempDir(), name+".lua")
		copyExample(t, name, lua)
		profilePath := initShortened(t, lua)
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, profilePath)
		matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
		if len(matches) != 1 {
			t.Errorf("%s: exit %d, results %v\n%s\n%s", name, code, matches, stdout, stderr)
			continue
		}
		res, err := result.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		if code == exitFail && name == "token_bucket_microtime" && refilledTwiceOnALateMachine(t, res) {
			code = exitOK
		}
		if code != exitOK {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
			continue
		}
		for _, r := range res.Runs {
			if r.Requests.Errors != 0 || len(r.ReplyMalformed) != 0 || r.Requests.Sent == 0 {
				t.Errorf("%s: %s: sent %d, errors %v, malformed replies %v", name, r.Key(), r.Requests.Sent, r.Errors, r.ReplyMalformed)
			}
		}
	}
}

// familyArgs are the ARGV templates each built-in script reads.
var familyArgs = map[string]string{
	algorithms.FixedWindowName: `["${limit}", "${window_ms}"]`,
	algorithms.SlidingLogName:  `["${limit}", "${window_us}"]`,
	algorithms.TokenBucketName: `["${limit}", "${window_us}", "${burst}"]`,
	algorithms.LeakyBucketName: `["${limit}", "${window_us}", "${burst}"]`,
}

// redeclaredProfile is a profile running each built-in beside its own Lua
// copied into dir and declared as a user's limiter, my_<name>, with its
// family's semantics.
func redeclaredProfile(t *testing.T, dir, name, policy, scenarios string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\npolicy: %s\nconcurrency: 16\nalgorithms:\n", name, policy)
	for _, alg := range algorithms.Default() {
		src, err := os.ReadFile(filepath.Join("../../algorithms", alg+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "my_"+alg+".lua"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  - %s\n  - name: my_%s\n    script: my_%s.lua\n    keys: [\"${identity}\"]\n    args: %s\n"+
			"    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}\n    semantics: %s\n",
			alg, alg, alg, familyArgs[alg], alg)
	}
	b.WriteString(scenarios)
	b.WriteString("thresholds:\n  - \"my_*/* audit.model_mismatches == 0\"\n  - \"*/* audit.overshoot == 0\"\n")
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonKeys lists the JSON paths a run's object holds, to compare the
// fields of two runs.
func jsonKeys(t *testing.T, r result.Run) []string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			keys = append(keys, prefix)
			return
		}
		for k, sub := range obj {
			// Which encodings a run saw, and the notes its probes left
			// (a server still settling), depend on its keys and the
			// machine, not on whether the limiter is built in.
			// How a window was located follows from what the limiter
			// says of it: the built-in's formula, a declared window's
			// behaviour.
			if prefix == "memory.encodings." || prefix == "window_location." || k == "notes" {
				continue
			}
			walk(prefix+k+".", sub)
		}
	}
	walk("", m)
	sort.Strings(keys)
	return keys
}

// TestIntegrationRedeclaredBuiltinsMatchTheBuiltins: each built-in re-declared as a
// user's limiter (its own .lua copy, its family as semantics) runs through
// every shape (a closed steady loop, boundary, cardinality) with the same
// result fields as the built-in, disagrees with its model nowhere, and
// admits exactly what the built-in admits in scenarios whose admissions do
// not depend on timing; it appears in the summary, the thresholds, the
// HTML report and compare. (An open-loop steady run's admissions move with
// timing: TestIntegrationExampleProfiles and the workload tests run that shape.)
func TestIntegrationRedeclaredBuiltinsMatchTheBuiltins(t *testing.T) {
	redistest.ServerPath(t)
	dir := t.TempDir()
	// A window of an hour: a bucket gains a token every 6s, so the closed
	// loop "drain" admits exactly each limiter's capacity, and every key
	// is alive for the memory probe.
	long := redeclaredProfile(t, dir, "long", "{limit: 600, window: 1h, burst: 900}", `scenarios:
  - name: drain
    shape: steady
    rate: max
    identities: 4
    requests: 4000
  - name: many
    shape: cardinality
    identities: 1000
    distribution: sequential
    rate: max
    accept_inconclusive: true   # one request an identity: memory, not admissions
`)
	// Bursts of more than the limit either side of each boundary: exactly
	// 2 x limit - 1 for the fixed window in one window's length, and the
	// limit for the sliding log.
	edge := redeclaredProfile(t, dir, "edge", "{limit: 10, window: 300ms, burst: 12}", `scenarios:
  - name: edge
    shape: boundary
    identities: 3
    burst: 14
    offset: 40ms
    stagger: 100ms
`)
	var runs []result.Run
	var edgeDir string
	for _, path := range []string{long, edge} {
		out := t.TempDir()
		args := []string{"run", "--quiet", "--out", out, path}
		if path == long {
			args = slices.Insert(args, 2, "--no-report")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", path, code, stdout, stderr)
		}
		for _, alg := range algorithms.Default() {
			if !strings.Contains(stdout, "my_"+alg) {
				t.Errorf("the summary lacks my_%s:\n%s", alg, stdout)
			}
		}
		matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
		res, err := result.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		thresholds := 0
		for _, th := range res.Thresholds {
			if strings.HasPrefix(th.Run, "my_") && th.OK {
				thresholds++
			}
		}
		if want := 2 * 4 * len(res.Runs) / 8; thresholds != want {
			t.Errorf("%s: %d thresholds held on declared runs, want %d", path, thresholds, want)
		}
		runs = append(runs, res.Runs...)
		if path == edge {
			edgeDir = filepath.Dir(matches[0])
		}
	}
	byKey := map[string]result.Run{}
	for _, r := range runs {
		byKey[r.Key()] = r
	}
	deterministic := map[string]bool{"drain": true, "many": true, "fixed_window/edge": true, "sliding_log/edge": true}
	for _, alg := range algorithms.Default() {
		for _, s := range []string{"drain", "many", "edge"} {
			b, u := byKey[alg+"/"+s], byKey["my_"+alg+"/"+s]
			if got, want := jsonKeys(t, u), jsonKeys(t, b); !slices.Equal(got, want) {
				t.Errorf("%s: fields differ from the built-in's:\n got %v\nwant %v", u.Key(), got, want)
			}
			a := u.Audit
			if a.ModelMismatches != 0 || a.Overshoot != 0 || a.Reply == nil || a.Reply.RemainingChecked != a.Decisions || a.Reply.RetryAfterTooEarly != 0 {
				t.Errorf("%s: audit %+v, reply %+v", u.Key(), *a, a.Reply)
			}
			if u.Server == nil || u.Server.Calls != u.Requests.Sent || u.Memory == nil {
				t.Errorf("%s: server %+v, memory %+v", u.Key(), u.Server, u.Memory)
			} else if s != "edge" && u.Memory.Identities != b.Memory.Identities {
				// (In the 300ms window of edge a bucket's key expires once
				// it is full again, at a moment that depends on timing.)
				t.Errorf("%s: %d identities hold a key, the built-in's %d", u.Key(), u.Memory.Identities, b.Memory.Identities)
			}
			if !deterministic[s] && !deterministic[alg+"/"+s] {
				continue
			}
			// Bursts land on their side of a boundary when every request
			// was decided within the bursts' offset (40ms) of its due time;
			// on a starved machine they may not, and the admissions then
			// depend on timing.
			if s == "edge" && (u.LatencyUs.Max >= 30_000 || b.LatencyUs.Max >= 30_000) {
				t.Logf("%s: a request was decided %s after it was due: not comparing its admissions", u.Key(),
					time.Duration(max(u.LatencyUs.Max, b.LatencyUs.Max))*time.Microsecond)
				continue
			}
			if u.Requests.Allowed != b.Requests.Allowed && !locatedApart(u, b) {
				t.Errorf("%s admitted %d, the built-in %d", u.Key(), u.Requests.Allowed, b.Requests.Allowed)
			}
			// A window found by behaviour costs requests of its own (the
			// window after the prime exhausted, then probed): what the
			// most one window admitted is the same.
			if locatedApart(u, b) && u.Audit.MaxWindowAdmitted != b.Audit.MaxWindowAdmitted {
				t.Errorf("%s admitted at most %d in one window, the built-in %d", u.Key(), u.Audit.MaxWindowAdmitted, b.Audit.MaxWindowAdmitted)
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(edgeDir, html.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "my_token_bucket") || !strings.Contains(string(page), "Your Lua script my_token_bucket.lua, which takes its time from Redis (TIME in the script), declared a token_bucket") {
		t.Errorf("report.html does not show and describe the declared limiters")
	}
	resultPath := filepath.Join(edgeDir, "result.json")
	code, stdout, stderr := runCLI(t, "compare", "--all", resultPath, resultPath)
	if code != exitOK || !strings.Contains(stdout, "my_sliding_log/edge") {
		t.Errorf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// locatedApart says the boundary runs u and b found their windows in
// different ways.
func locatedApart(u, b result.Run) bool {
	return u.WindowLocation != nil && b.WindowLocation != nil && u.WindowLocation.Method != b.WindowLocation.Method
}

// refilledTwiceOnALateMachine reports whether res failed only because a
// bucket that takes its caller's time admitted a little past its bound
// while the machine held rlbench's senders back. Such a script sets its
// time to each request's, even one older than the last it saw: when the
// machine delays one sender behind another, times reach it out of order
// and it refills the same interval twice. The excess is the script's, and
// rlbench rightly reports it; on a quiet machine the times arrive in
// order and the test judges the run as it is.
func refilledTwiceOnALateMachine(t *testing.T, res *result.Result) bool {
	t.Helper()
	j := verdict.Assess(res)
	if j.Verdict != result.Fail {
		return false
	}
	for _, f := range j.Failures {
		if f.Kind != verdict.Overshoot && f.Kind != verdict.ThresholdFailed {
			return false
		}
	}
	late := false
	for i := range res.Runs {
		r := &res.Runs[i]
		a := r.Audit
		if a == nil || a.Overshoot == 0 {
			continue
		}
		if r.Algorithm == algorithms.TokenBucketName || a.Overshoot*20 > a.BoundWindow*max(a.Violations, 1) {
			// The built-in, or more than a twentieth of the bound an
			// identity: not a refill of a late request's interval.
			return false
		}
		late = late || (r.Generator != nil && r.Generator.CPUWaitShare >= 0.01)
	}
	if late {
		t.Logf("the machine held rlbench back and the caller-clock bucket refilled twice: %v", j.Reasons())
	}
	return late
}
