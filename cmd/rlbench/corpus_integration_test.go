//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// requireCorpusEnv, set to 1 (CI sets it), makes a corpus that cannot be
// fetched fail TestIntegrationCorpus instead of skipping it.
const requireCorpusEnv = "RLBENCH_REQUIRE_CORPUS"

// corpusCase is one profile of profiles/corpus and what its run must find.
type corpusCase struct {
	// profile is the profile's path under profiles/corpus.
	profile string
	// caught is the finding a buggy variant must be caught with; zero for
	// a published script, which must pass.
	caught verdict.Kind
	// also are the findings its bug may bring besides: a window that
	// never ends denies as well as leaking its key.
	also []verdict.Kind
}

// corpusCases are every profile of the corpus: each published script, and
// its buggy variant with the finding its bug makes.
var corpusCases = []corpusCase{
	{profile: "go-zero/periodscript.yaml"},
	{profile: "go-zero/periodscript.bug-missing-expiry.yaml", caught: verdict.KeyWithoutTTL, also: []verdict.Kind{verdict.UnderAdmission}},
	{profile: "go-zero/tokenscript.yaml"},
	{profile: "go-zero/tokenscript.bug-refill.yaml", caught: verdict.Overshoot},
	{profile: "redis_rate/allow_n.yaml"},
	{profile: "redis_rate/allow_n.bug-ttl.yaml", caught: verdict.Overshoot},
	{profile: "redis_rate/allow_at_most.yaml"},
	// Denied, it still takes part of a unit: it admits less, never more.
	{profile: "redis_rate/allow_at_most.bug-off-by-one.yaml", caught: verdict.UnderAdmission},
	{profile: "upstash-ratelimit/token_bucket.yaml"},
	{profile: "upstash-ratelimit/token_bucket.bug-ttl.yaml", caught: verdict.Overshoot},
	{profile: "sliding-window-rate-limiter/reserve.yaml"},
	{profile: "sliding-window-rate-limiter/reserve.bug-unit.yaml", caught: verdict.Overshoot},
	{profile: "nest-lab-throttler/increment.yaml"},
	{profile: "nest-lab-throttler/increment.bug-missing-expiry.yaml", caught: verdict.KeyWithoutTTL},
	{profile: "limits/acquire_moving_window.yaml"},
	{profile: "limits/acquire_moving_window.bug-off-by-one.yaml", caught: verdict.Overshoot},
	{profile: "laravel/duration_limiter.yaml"},
	{profile: "laravel/duration_limiter.bug-ttl.yaml", caught: verdict.Overshoot},
	{profile: "limits/incr_expire.yaml"},
	{profile: "limits/incr_expire.bug-missing-expiry.yaml", caught: verdict.KeyWithoutTTL, also: []verdict.Kind{verdict.UnderAdmission}},
	{profile: "ulule-limiter/incr.yaml"},
	// Windows a thousand times too long refuse long after they should end.
	{profile: "ulule-limiter/incr.bug-unit.yaml", caught: verdict.UnderAdmission},
	{profile: "rate-limiter-flexible/incr_ttl.yaml"},
	{profile: "rate-limiter-flexible/incr_ttl.bug-unit.yaml", caught: verdict.Overshoot},
	{profile: "rate-limit-redis/increment.yaml"},
	{profile: "rate-limit-redis/increment.bug-off-by-one.yaml", caught: verdict.Overshoot},
}

// corpusParallel is how many of the corpus's profiles run at once: each
// runs its own redis-server, and a 2-core machine keeps three runs' sends
// on schedule.
const corpusParallel = 3

// TestIntegrationCorpus runs every profile of profiles/corpus: limiters
// published by other open-source projects, fetched from their packages
// exactly as published (scripts/corpus-fetch.sh), each declared as its
// application calls it, and each beside a variant with one realistic bug.
// Every published script passes, judged with the power to catch an excess;
// every buggy variant is caught (its profile runs it as a negative
// control) with the finding its bug makes, and with no finding a bug of
// another kind would make. It reads the result's values, not the summary.
func TestIntegrationCorpus(t *testing.T) {
	redistest.ServerPath(t)
	dir := fetchCorpus(t)
	listed := map[string]bool{}
	for _, c := range corpusCases {
		listed[c.profile] = true
	}
	shipped, _ := filepath.Glob("../../profiles/corpus/*/*.yaml")
	for _, p := range shipped {
		if rel := strings.TrimPrefix(filepath.ToSlash(p), "../../profiles/corpus/"); !listed[rel] {
			t.Errorf("profiles/corpus/%s is not among the corpus's cases: say what its run must find", rel)
		}
	}
	started := time.Now()
	var mu sync.Mutex
	var table []string
	t.Run("profiles", func(t *testing.T) {
		slots := make(chan struct{}, corpusParallel)
		for _, c := range corpusCases {
			t.Run(strings.TrimSuffix(c.profile, ".yaml"), func(t *testing.T) {
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				line := runCorpusCase(t, dir, c)
				mu.Lock()
				table = append(table, line)
				mu.Unlock()
			})
		}
	})
	slices.Sort(table)
	t.Logf("the corpus, %d profiles in %s:\n%s", len(corpusCases), time.Since(started).Round(time.Second), strings.Join(table, "\n"))
}

// fetchCorpus brings the corpus's scripts into a temporary directory with
// the profiles beside them, and returns that directory. A machine that
// cannot fetch them (no network, no npm) skips the test, unless
// RLBENCH_REQUIRE_CORPUS=1.
func fetchCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../../scripts/corpus-fetch.sh", dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("scripts/corpus-fetch.sh: %v\n%s", err, out)
		if os.Getenv(requireCorpusEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skipf("%s(set %s=1 to fail instead)", msg, requireCorpusEnv)
	}
	return dir
}

// runCorpusCase runs one profile of the corpus and checks what it found;
// it returns a line saying so.
func runCorpusCase(t *testing.T, dir string, c corpusCase) string {
	out := t.TempDir()
	began := time.Now()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, filepath.Join(dir, c.profile))
	took := time.Since(began).Round(100 * time.Millisecond)
	matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("exit %d, result files %v\n%s\n%s", code, matches, stdout, stderr)
	}
	res, err := result.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	j := verdict.Assess(res)
	for _, r := range res.Runs {
		if r.Requests.Errors != 0 || len(r.ReplyMalformed) != 0 || r.Requests.Sent == 0 || r.Audit == nil {
			t.Errorf("%s: sent %d, errors %v, malformed replies %v, audit %v: the declaration does not fit the script", r.Key(), r.Requests.Sent, r.Errors, r.ReplyMalformed, r.Audit)
		}
	}
	judged := j.Verdict
	if code == exitInconclusive && heldBackByTheMachine(t, res) {
		code, judged = exitOK, "held back by the machine: "+judged
	}
	if code != exitOK {
		t.Errorf("exit %d, want %d: %v\n%s", code, exitOK, j.Reasons(), stdout)
	}
	if c.caught == 0 {
		for _, r := range j.Runs {
			if len(r.Findings) > 0 || r.Promise != verdict.Kept {
				t.Errorf("the published script: %s/%s: promise %s, findings %v", r.Algorithm, r.Scenario, r.Promise, r.Findings)
			}
		}
		return fmt.Sprintf("  %-58s %s %s", c.profile, judged, took)
	}
	var found []string
	caught := false
	for _, r := range j.Runs {
		if !r.NegativeControl {
			t.Errorf("%s/%s: the buggy variant is not run as a negative control", r.Algorithm, r.Scenario)
		}
		for _, f := range r.Findings {
			found = append(found, fmt.Sprintf("%s %d in %s", f.Kind, f.Count, r.Scenario))
			switch {
			case f.Kind == c.caught:
				caught = true
			case !slices.Contains(c.also, f.Kind):
				t.Errorf("%s/%s: %s: a finding its bug does not make", r.Algorithm, r.Scenario, f.Text)
			}
		}
	}
	if !caught && burstsMayHaveMissed(t, res) {
		return fmt.Sprintf("  %-58s not judged: its bursts may have missed the boundary", c.profile)
	}
	if !caught || len(j.Caught) == 0 {
		t.Errorf("not caught with %s: found %v, caught %v", c.caught, found, j.Caught)
	}
	return fmt.Sprintf("  %-58s %s %s, caught: %s", c.profile, judged, took, strings.Join(found, ", "))
}

// burstsMayHaveMissed reports whether a boundary run of res decided a
// request 40ms or more after it was due: its bursts, 50ms either side of
// the boundary in every profile of the corpus, may then have landed on one
// side, and an excess that shows only across a boundary (a window that
// admits one more than its limit) could not show. On a quiet machine every
// request is decided within a few milliseconds and the run is judged.
func burstsMayHaveMissed(t *testing.T, res *result.Result) bool {
	t.Helper()
	for _, r := range res.Runs {
		if r.Shape == "boundary" && r.LatencyUs.Max >= 40_000 {
			t.Logf("%s: a request was decided %s after it was due, so the bursts may have missed the boundary: not judging the control",
				r.Key(), time.Duration(r.LatencyUs.Max)*time.Microsecond)
			return true
		}
	}
	return false
}
