package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// candidate is one limiter's run for a recommendation: how far past the
// policy (-1: not audited), its server time per decision (0: not
// measured), its bytes per identity (0: not measured) and its promise.
type candidate struct {
	alg     string
	excess  int64
	usec    float64
	bytes   float64
	promise verdict.Promise
}

// recommendFor builds a result of one run per candidate, and the
// judgement their promises make.
func recommendFor(cs ...candidate) (*result.Result, verdict.Judgement) {
	var runs []result.Run
	var j verdict.Judgement
	for _, c := range cs {
		run := result.Run{Algorithm: c.alg, Scenario: "steady", Identities: 100_000, Params: result.Params{Limit: 100}}
		if c.excess >= 0 {
			run.Audit = &result.Audit{PolicyExcess: c.excess, MaxWindowAdmitted: 100 + c.excess}
		}
		if c.usec > 0 {
			run.Server = &result.Server{Calls: 1000, Usec: int64(c.usec * 1000), UsecPerCall: c.usec}
		}
		if c.bytes > 0 {
			run.Memory = &result.Memory{Identities: 100_000, BytesPerIdentity: c.bytes}
		}
		runs = append(runs, run)
		j.Runs = append(j.Runs, verdict.Run{Algorithm: c.alg, Scenario: "steady", Judged: true, Promise: c.promise})
	}
	r := resultOf(runs...)
	r.Profile.Algorithms = nil
	return r, j
}

// TestRecommend: the ranking is accuracy, then memory, then server time,
// each past what noise moves it; a broken limiter is never recommended;
// the sentence names the figures that decided and what the runner-up
// would save or cost.
func TestRecommend(t *testing.T) {
	for _, tc := range []struct {
		why              string
		cs               []candidate
		best, runnerUp   string
		decided          string
		want, wantNot    []string
		excludedContains string
	}{
		{"the exact window is the most accurate, however dear", []candidate{
			{"fixed_window", 99, 15, 88, verdict.Kept}, {"sliding_log", 0, 24, 2100, verdict.Kept}, {"token_bucket", 13, 28, 136, verdict.Kept}},
			"sliding_log", "token_bucket", decidedAccuracy,
			[]string{"Best fit for 100 per 1s on this traffic: sliding_log, the most accurate (0 past the policy in one window), 2.05 KiB per identity in steady, 24.0 µs of Redis time per decision",
				"the runner-up, token_bucket, would save 1.92 KiB per identity (187 MiB at 100k identities) but cost 4.0 µs more Redis time per decision (17%) and 13 past the policy in one window instead of 0",
				"ranked by accuracy (here the most one identity got past the policy within one window: not every limiter of this result was judged beside one ideal limiter), then memory per identity"}, nil, ""},
		{"equally accurate (within timing): memory decides", []candidate{
			{"sliding_log", 1, 24, 2100, verdict.Kept}, {"gcra", 0, 10, 90, verdict.Kept}},
			"gcra", "sliding_log", decidedMemory,
			[]string{"gcra, as accurate as the runner-up (0 past the policy in one window), the least memory (90 B per identity in steady)",
				"the runner-up, sliding_log, would save nothing and cost 1.96 KiB more per identity (192 MiB at 100k identities) and 14.0 µs more Redis time per decision (140%)"}, nil, ""},
		{"memory alike: server time decides", []candidate{
			{"leaky_bucket", 10, 25, 136, verdict.Kept}, {"token_bucket", 10, 20, 136, verdict.Kept}},
			"token_bucket", "leaky_bucket", decidedServer,
			[]string{"the least server time (20.0 µs of Redis time per decision)", "would save nothing and cost 5.0 µs more Redis time per decision (25%)"}, nil, ""},
		{"a broken limiter is left out, however cheap", []candidate{
			{"naive_counter", 0, 5, 50, verdict.Broken}, {"fixed_window", 99, 15, 88, verdict.Kept}},
			"fixed_window", "", "",
			[]string{"fixed_window, it kept its promise (99 past the policy in one window)"}, []string{"naive_counter", "runner-up"}, "naive_counter (broke its promise in steady)"},
		{"none put to the test: by cost alone, said so", []candidate{
			{"fixed_window", 0, 15, 134, verdict.Untested}, {"gcra", 0, 10, 90, verdict.Untested}},
			"gcra", "fixed_window", decidedMemory,
			[]string{"no run put their promise to the test, so their accuracy is unknown"}, []string{"accurate"}, ""},
		{"the same on every figure", []candidate{
			{"fixed_window", 0, 15, 100, verdict.Kept}, {"fixed_window_nx", 0, 16, 101, verdict.Kept}},
			"fixed_window", "fixed_window_nx", decidedNone,
			[]string{"the runner-up, fixed_window_nx, is as good on every figure measured"}, nil, ""},
	} {
		r, j := recommendFor(tc.cs...)
		rec := Recommend(r, j)
		got := func(c *Costs) string {
			if c == nil {
				return ""
			}
			return c.Algorithm
		}
		if got(rec.Best) != tc.best || got(rec.RunnerUp) != tc.runnerUp || rec.Decided != tc.decided {
			t.Errorf("%s: best %q, runner-up %q, decided by %q; want %q, %q, %q", tc.why, got(rec.Best), got(rec.RunnerUp), rec.Decided, tc.best, tc.runnerUp, tc.decided)
		}
		s := rec.Sentence("100 per 1s")
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: the sentence lacks %q:\n%s", tc.why, w, s)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(s, w) {
				t.Errorf("%s: the sentence has %q:\n%s", tc.why, w, s)
			}
		}
		if strings.Count(s, ". ") > 0 || !strings.HasSuffix(s, ".") {
			t.Errorf("%s: not one sentence: %s", tc.why, s)
		}
		if tc.excludedContains != "" && !strings.Contains(strings.Join(rec.Excluded, ";"), tc.excludedContains) {
			t.Errorf("%s: excluded %q, want %q among them", tc.why, rec.Excluded, tc.excludedContains)
		}
	}
	r, j := recommendFor(candidate{"naive_counter", 0, 5, 50, verdict.Broken})
	if s := Recommend(r, j).Sentence("100 per 1s"); s != "No limiter to recommend for 100 per 1s: naive_counter (broke its promise in steady)." {
		t.Errorf("only a broken limiter: %q", s)
	}
}
