package html

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// TestPageRendersTheVerdictsFindings: the decision table, the run tables
// and the remarks mark what the verdict found, no more: a run whose state
// the server reset is not blamed for its overshoot, and failed calls
// within the error budget are worth a look, not a failure.
func TestPageRendersTheVerdictsFindings(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	base.Errors = nil
	run := func(alg, scenario string, change func(*result.Run)) result.Run {
		run := base
		run.Algorithm, run.Scenario = alg, scenario
		run.Requests = result.Requests{Sent: 1000, Allowed: 600, Denied: 400}
		run.Audit = &result.Audit{Identities: 1, Decisions: 1000, Allowed: 600, ExpectedAllowed: 600, BoundWindow: 20, MaxWindowAdmitted: 20}
		run.Eviction = &result.Eviction{PolicyBefore: "noeviction", PolicyAfter: "noeviction"}
		change(&run)
		return run
	}
	r.Runs = []result.Run{
		run("fixed_window", "steady", func(run *result.Run) {
			run.Eviction.EvictedKeys, run.Audit.Overshoot, run.Audit.Violations = 3, 9, 1
		}),
		run("token_bucket", "steady", func(run *result.Run) { run.Audit.ModelMismatches = 4 }),
		run("sliding_log", "steady", func(run *result.Run) { run.Requests.Errors, run.Requests.Sent = 1, 1001 }),
		run("leaky_bucket", "steady", func(run *result.Run) { run.Requests.Errors, run.Requests.Sent = 10, 1010 }),
	}
	r.Profile.Algorithms = []string{"fixed_window", "token_bucket", "sliding_log", "leaky_bucket"}
	v := newView(r)

	promise := map[string]string{}
	for _, row := range decide(v).Rows {
		promise[row.Algorithm] = row.Promise
		if row.Broken != strings.HasPrefix(row.Promise, "BROKEN") || row.Unaudited != (row.Promise == "not audited") {
			t.Errorf("%s: promise %q, broken %v, unaudited %v", row.Algorithm, row.Promise, row.Broken, row.Unaudited)
		}
	}
	for alg, want := range map[string]string{
		"fixed_window": "not audited", // its one run was reset
		"token_bucket": "BROKEN in steady",
		"sliding_log":  "kept",
		"leaky_bucket": "kept",
	} {
		if promise[alg] != want {
			t.Errorf("%s: promise %q, want %q", alg, promise[alg], want)
		}
	}

	for _, tc := range []struct {
		run                                              int
		badOvershoot, badMismatch, badErrors, warnErrors bool
	}{
		{0, false, false, false, false}, // reset: its overshoot stays, unmarked
		{1, false, true, false, false},
		{2, false, false, false, true}, // one error in 1000 decisions: inside the budget
		{3, false, false, true, false}, // ten: past it
	} {
		row := newTableRow(v, &r.Runs[tc.run])
		if row.BadOvershoot != tc.badOvershoot || row.BadMismatch != tc.badMismatch || row.BadErrors != tc.badErrors || row.WarnErrors != tc.warnErrors {
			t.Errorf("%s: overshoot %v, mismatch %v, errors bad %v warn %v; want %v %v %v %v", r.Runs[tc.run].Key(),
				row.BadOvershoot, row.BadMismatch, row.BadErrors, row.WarnErrors, tc.badOvershoot, tc.badMismatch, tc.badErrors, tc.warnErrors)
		}
	}

	if text := strings.Join(remarks(v, "fixed_window"), " "); !strings.Contains(text, "In steady Redis evicted keys or restarted") || strings.Contains(text, "broke its promise") {
		t.Errorf("fixed_window's remarks blame it for a reset run: %s", text)
	}
	if text := strings.Join(remarks(v, "token_bucket"), " "); !strings.Contains(text, "It broke its promise: in steady it admitted 0 beyond its own bound and disagreed with its model on 4 decisions") {
		t.Errorf("token_bucket's remarks: %s", text)
	}
}

// TestBannerFoldsReasonsPastThree: the banner shows the verdict's first
// three reasons and folds the others behind a line, so that a result with
// many failures still opens with the decision in its first screen; every
// reason stays on the page.
func TestBannerFoldsReasonsPastThree(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	r.Runs = nil
	for _, alg := range []string{"a", "b", "c", "d", "e"} {
		run := base
		run.Algorithm = alg
		run.Audit = &result.Audit{Identities: 1, Decisions: 100, Allowed: 60, ExpectedAllowed: 60, BoundWindow: 20, MaxWindowAdmitted: 25, Overshoot: 5, Violations: 1}
		r.Runs = append(r.Runs, run)
	}
	all := verdict.Assess(r).Reasons()
	p := newPage(r, nil, testSemantics)
	if len(all) <= bannerReasons+1 || !slices.Equal(p.Reasons, all[:bannerReasons]) || !slices.Equal(p.MoreReasons, all[bannerReasons:]) {
		t.Fatalf("banner %q, folded %q; want the first %d of %q, then the rest", p.Reasons, p.MoreReasons, bannerReasons, all)
	}
	var page strings.Builder
	if err := WriteHTML(&page, r, nil, testSemantics); err != nil {
		t.Fatal(err)
	}
	fold := fmt.Sprintf("<details><summary>%d more</summary>", len(p.MoreReasons))
	if !strings.Contains(page.String(), fold) || !strings.Contains(page.String(), html.EscapeString(all[len(all)-1])) {
		t.Errorf("the page does not fold the reasons past the third behind %q", fold)
	}
}
