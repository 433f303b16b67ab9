package verdict

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// passingResult is a complete result whose one run is audited, probed and
// has no errors: every check holds.
func passingResult() *result.Result {
	r := resulttest.Sample()
	run := &r.Runs[0]
	run.Requests = result.Requests{Sent: 1000, Allowed: 600, Denied: 400}
	run.Errors = nil
	run.Params.WindowMs = 1000
	run.Audit = &result.Audit{Identities: 10, Decisions: 1000, Allowed: 600, ExpectedAllowed: 600, BoundWindow: 200, MaxWindowAdmitted: 150}
	run.Memory = &result.Memory{Identities: 10, Keys: 10}
	run.Eviction = &result.Eviction{PolicyBefore: "noeviction", PolicyAfter: "noeviction", ExpiredKeys: 3}
	return r
}

func budget(f float64) *float64 { return &f }

// TestAssess: the verdict reads the contract's values. Each row changes
// one thing in a passing result; want names a word the first reason must
// hold ("" for a pass).
func TestAssess(t *testing.T) {
	for _, tc := range []struct {
		why    string
		change func(r *result.Result)
		want   string
	}{
		{"a complete run, every check holds", func(*result.Result) {}, ""},
		{"one key never expires: a leak", func(r *result.Result) { r.Runs[0].Memory.KeysWithoutTTL = 1 }, "without a TTL"},
		{"a window opened without a TTL, found while the run went on", func(r *result.Result) {
			r.Runs[0].WindowLocation = &result.WindowLocation{Method: "ttl", Identities: 5, AfterPrime: 5, WithoutTTL: 5, Example: "rlbench:r1:mine:edge:c:{0}"}
		}, "WINDOW WITHOUT TTL: right after the request that opened its window, the key of 5 of 5 identities had no TTL (e.g. rlbench:r1:mine:edge:c:{0})"},
		{"every window asked ended", func(r *result.Result) {
			r.Runs[0].WindowLocation = &result.WindowLocation{Method: "ttl", Identities: 5, ByTTL: 5}
		}, ""},
		{"a declared limiter's script wrote a key outside its prefix", func(r *result.Result) {
			r.Runs[0].Memory.KeysOutsidePrefix, r.Runs[0].Memory.OutsidePrefixExamples = 1, []string{"stray:1"}
		}, "wrote 1 key outside the run prefix it was given (e.g. stray:1)"},
		{"the run did not complete", func(r *result.Result) {
			r.Complete, r.IncompleteReason = false, "redis at 127.0.0.1:1 went away"
		}, "did not complete: redis at 127.0.0.1:1 went away"},
		{"a threshold failed", func(r *result.Result) {
			r.Thresholds = []result.ThresholdResult{{Expression: "*/* latency_us.p99 < 1ms", Run: "fixed_window/steady", Value: 1500, Against: 1000}}
		}, `threshold "*/* latency_us.p99 < 1ms" failed on fixed_window/steady (measured 1.50ms, against 1.00ms)`},
		{"overshoot: the limiter broke its own bound", func(r *result.Result) {
			r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.Violations = 5000, 50
		}, "OVERSHOOT: 50 identities got more than the algorithm's own bound of 200 within one 1s"},
		{"a caller's whole-second clock let twice the limit through: the excess is on the true clock alone", func(r *result.Result) {
			a, p := r.Runs[0].Audit, &r.Runs[0].Params
			p.Limit, a.BoundWindow, a.MaxWindowAdmitted, a.Overshoot, a.Violations = 100, 100, 200, 100, 1
			a.CallerClock = &result.AuditCallerClock{TickUs: 1_000_000, MaxWindowAdmittedOwn: 100,
				Burst: &result.CallerClockBurst{Admitted: 200, WithinMs: 87.4, AdmittedWithinMs: 96.2, AcrossTicks: true}}
		}, "OVERSHOOT: 1 identity got more than the algorithm's own bound of 100 within one 1s (100 admissions beyond it); " +
			"its caller's whole-second clock let 2x the limit (200) through within 96.2ms across a second boundary (more than its bound of 100 within 87.4ms), " +
			"requests it took for a second apart; on its own clock (the times its requests carried) 100 at most in one 1s window"},
		{"a whole-second clock's burst in a result written before its whole stretch was measured", func(r *result.Result) {
			a, p := r.Runs[0].Audit, &r.Runs[0].Params
			p.Limit, a.BoundWindow, a.MaxWindowAdmitted, a.Overshoot, a.Violations = 100, 100, 150, 50, 1
			a.CallerClock = &result.AuditCallerClock{TickUs: 1_000_000, MaxWindowAdmittedOwn: 100,
				Burst: &result.CallerClockBurst{Admitted: 150, WithinMs: 60, AcrossTicks: true}}
		}, "its caller's whole-second clock let more than its bound through within 60.0ms across a second boundary, requests it took for a second apart: " +
			"150 in one 1s window on the true clock (1.5x the limit of 100), on its own clock (the times its requests carried) 100 at most"},
		{"a caller-clocked limiter past its bound on its own clock too", func(r *result.Result) {
			a, p := r.Runs[0].Audit, &r.Runs[0].Params
			p.Limit, a.BoundWindow, a.MaxWindowAdmitted, a.Overshoot, a.Violations = 100, 100, 150, 50, 1
			a.CallerClock = &result.AuditCallerClock{TickUs: 1, MaxWindowAdmittedOwn: 140,
				Burst: &result.CallerClockBurst{Admitted: 150, WithinMs: 900}}
		}, "(50 admissions beyond it); 150 in one 1s window on the true clock (1.5x the limit of 100), more than its bound within 900ms; on its own clock (the times its requests carried) 140"},
		{"a fleet's clocks let it past its bound: not a tick", func(r *result.Result) {
			a, p := r.Runs[0].Audit, &r.Runs[0].Params
			p.Limit, a.BoundWindow, a.MaxWindowAdmitted, a.Overshoot, a.Violations = 100, 100, 120, 20, 1
			a.CallerClock = &result.AuditCallerClock{TickUs: 1, MaxWindowAdmittedOwn: 100,
				Burst: &result.CallerClockBurst{Admitted: 120, WithinMs: 950}}
		}, "more than its bound went through within 950ms, 120 in one 1s window on the true clock (1.2x the limit of 100), where on its own clock (the times its requests carried) 100 at most: its callers' clocks, not its own, let them through"},
		{"mismatches: the limiter disagreed with its model", func(r *result.Result) { r.Runs[0].Audit.ModelMismatches = 97 }, "MISMATCH: 97 of 1,000 decisions differ"},
		{"every call failed: no decision at all", func(r *result.Result) {
			r.Runs[0].Requests = result.Requests{Sent: 400, Errors: 400}
			r.Runs[0].Errors = []result.ErrorCount{{Message: "NOPERM this user has no permissions", Count: 400}}
		}, `400 of 400 calls got no decision (most common: "NOPERM`},
		{"one error in 1000 decisions is inside the default 0.1% budget", func(r *result.Result) {
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.Sent = 1, 1001
		}, ""},
		{"two errors in 1000 decisions are past it", func(r *result.Result) {
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.Sent = 2, 1002
		}, "past the error budget of 0.1% of decisions"},
		{"a profile's budget of 1% lets 10 errors in 1000 through", func(r *result.Result) {
			r.Profile.ErrorBudget = budget(0.01)
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.Sent = 10, 1010
		}, ""},
		{"a budget of 0 lets no error through", func(r *result.Result) {
			r.Profile.ErrorBudget = budget(0)
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.Sent = 1, 1001
		}, "past the error budget of 0% of decisions"},
		{"errors inside a scheduled fault window are the fault's, not the budget's", func(r *result.Result) {
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.FaultErrors, r.Runs[0].Requests.Sent = 300, 300, 1300
		}, ""},
		{"evictions leave the run inconclusive and are not blamed on the limiter", func(r *result.Result) {
			r.Runs[0].Eviction = &result.Eviction{PolicyBefore: "noeviction", PolicyAfter: "allkeys-lru", EvictedKeys: 70937}
			r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.ModelMismatches = 12, 40
		}, "Redis evicted 70,937 keys (maxmemory-policy noeviction until it was changed to allkeys-lru): limiter state was reset, the audit cannot judge this run"},
		{"a restart lost the limiter's state", func(r *result.Result) { r.Runs[0].Eviction.Restarted = true }, "Redis restarted during the run"},
		{"under-admission: the limiter denied what its model admits", func(r *result.Result) {
			r.Runs[0].Audit.ModelMismatches, r.Runs[0].Audit.UnderAdmitted = 30, 30
		}, "MISMATCH: 30 of 1,000 decisions differ"},
		{"under-admission alone, on client times", func(r *result.Result) {
			r.Runs[0].Audit.Basis, r.Runs[0].Audit.UnderAdmitted = result.AuditByBoundClientTime, 9900
			r.Runs[0].Audit.Power = &result.Power{OfferedMaxInWindow: 400, Excess: true, Shortfall: true, PromiseAdmits: 100, PromiseWithinMs: 1001}
		}, "UNDER-ADMISSION: it denied 9,900 requests its semantics promise to admit (fewer than 100 admissions lay within the 1001ms before each"},
		{"no power: nobody reached the limit, so an excess could not show", func(r *result.Result) {
			r.Runs[0].Audit.Power = &result.Power{OfferedMaxInWindow: 150, Replayed: true, Shortfall: true}
		}, "inconclusive: its identities offered at most 150 within one 1s against a bound of 200, and the reference model denied none"},
		{"a run with power passes", func(r *result.Result) {
			r.Runs[0].Audit.Power = &result.Power{OfferedMaxInWindow: 150, Replayed: true, ExpectedDenied: 400, Excess: true, Shortfall: true}
		}, ""},
		{"an inconclusive run its scenario accepts does not make the result inconclusive", func(r *result.Result) {
			r.Runs[0].Audit.Power = &result.Power{OfferedMaxInWindow: 150}
			r.Runs[0].Params.AcceptInconclusive = true
		}, ""},
		{"a schedule that sent under 95% of its plan", func(r *result.Result) { r.Runs[0].Requests.Planned = 1100 }, "inconclusive: it sent 1,000 of the 1,100 requests its schedule held"},
		{"95% of the plan is enough", func(r *result.Result) { r.Runs[0].Requests.Planned = 1050 }, ""},
		{"a fault kept the generator from its plan", func(r *result.Result) {
			r.Runs[0].Requests.Planned = 1500
			r.Runs[0].Faults = &result.Faults{Windows: []result.FaultWindow{{Kind: "pause"}}}
		}, ""},
		{"a boundary run that straddled no boundary", func(r *result.Result) { r.Runs[0].Shape = "boundary" }, "inconclusive: no burst was placed around any identity's window boundary"},
		{"a failure outranks an inconclusive run", func(r *result.Result) {
			r.Runs[0].Shape = "boundary"
			r.Runs[0].Audit.Overshoot = 1
		}, "OVERSHOOT"},
	} {
		r := passingResult()
		tc.change(r)
		j := Assess(r)
		switch {
		case tc.want == "" && (j.Verdict != result.Pass || len(j.Reasons()) > 0):
			t.Errorf("%s: verdict %s, reasons %q; want a pass", tc.why, j.Verdict, j.Reasons())
		case tc.want != "" && (j.Verdict != wantVerdict(tc.want) || len(j.Reasons()) == 0 || !strings.Contains(j.Reasons()[0], tc.want)):
			t.Errorf("%s: verdict %s, reasons %q; want %s whose first reason holds %q", tc.why, j.Verdict, j.Reasons(), wantVerdict(tc.want), tc.want)
		}
	}
}

// wantVerdict is the verdict a reason belongs to: an inconclusive run's,
// or a failure's.
func wantVerdict(reason string) string {
	if strings.Contains(reason, "inconclusive") || strings.Contains(reason, "evicted") || strings.Contains(reason, "restarted") {
		return result.Inconclusive
	}
	return result.Fail
}

// TestAssessEvictionsAreNotBlamedOnTheLimiter: a run whose keys Redis
// evicted fails for the evictions alone, not for the overshoot and
// mismatches a reset limiter shows.
func TestAssessEvictionsAreNotBlamedOnTheLimiter(t *testing.T) {
	r := passingResult()
	r.Runs[0].Eviction.EvictedKeys = 10
	r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.ModelMismatches = 3, 4
	j := Assess(r)
	if len(j.Reasons()) != 1 || !strings.Contains(j.Reasons()[0], "evicted") {
		t.Errorf("reasons %q, want only the evictions", j.Reasons())
	}
}

// TestAssessNegativeControls: a limiter declared broken must be caught.
func TestAssessNegativeControls(t *testing.T) {
	for _, tc := range []struct {
		why       string
		change    func(r *result.Result)
		verdict   string
		reason    string
		caughtFor string
	}{
		{"caught by an overshoot: the run passes and says so", func(r *result.Result) {
			r.Runs[0].Audit.Overshoot = 40
		}, result.Pass, "", "fixed_window: caught, as expected (steady: OVERSHOOT 40)"},
		{"caught by mismatches alone", func(r *result.Result) {
			r.Runs[0].Audit.ModelMismatches = 7
		}, result.Pass, "", "fixed_window: caught, as expected (steady: MISMATCH 7)"},
		{"not caught: the negative control got through", func(*result.Result) {}, result.Fail,
			"fixed_window is declared broken (expect_broken) but no run caught it: no overshoot, model mismatch or key without a TTL in steady", ""},
		{"findings in a run the server reset do not count as caught", func(r *result.Result) {
			r.Runs[0].Audit.Overshoot = 40
			r.Runs[0].Eviction.EvictedKeys = 5
		}, result.Fail, "declared broken (expect_broken) but no run caught it", ""},
		{"a control that never ran was not caught", func(r *result.Result) { r.Runs = nil }, result.Fail, "never ran", ""},
		{"a caught control's errors still count against the budget", func(r *result.Result) {
			r.Runs[0].Audit.Overshoot = 40
			r.Runs[0].Requests.Errors = 500
		}, result.Fail, "past the error budget", ""},
	} {
		r := passingResult()
		r.Profile.ExpectBroken = []string{"fixed_window"}
		tc.change(r)
		j := Assess(r)
		if j.Verdict != tc.verdict {
			t.Errorf("%s: verdict %s (reasons %q), want %s", tc.why, j.Verdict, j.Reasons(), tc.verdict)
		}
		if tc.reason != "" && (len(j.Reasons()) == 0 || !strings.Contains(j.Reasons()[0], tc.reason)) {
			t.Errorf("%s: reasons %q, want the first to hold %q", tc.why, j.Reasons(), tc.reason)
		}
		if tc.caughtFor != "" && (len(j.Caught) != 1 || j.Caught[0] != tc.caughtFor) {
			t.Errorf("%s: caught %q, want %q", tc.why, j.Caught, tc.caughtFor)
		}
	}
}

// TestAssessOrdersReasons: the most serious reason comes first, whatever
// order the runs are in.
func TestAssessOrdersReasons(t *testing.T) {
	r := passingResult()
	second := r.Runs[0]
	second.Scenario = "burst"
	second.Audit = &result.Audit{Overshoot: 1, Violations: 1, BoundWindow: 2}
	r.Runs = append(r.Runs, second)
	r.Runs[0].Audit.ModelMismatches = 2
	r.Runs[1].Requests.Errors = 100
	r.Thresholds = []result.ThresholdResult{{Expression: "*/* requests.errors == 0", Run: "fixed_window/burst", Value: 100}}
	r.Complete, r.IncompleteReason = false, "interrupted (Ctrl-C)"
	got := Assess(r).Reasons()
	wants := []string{"did not complete", "fixed_window/burst: 100 of", "fixed_window/steady: MISMATCH", "fixed_window/burst: OVERSHOOT", "threshold"}
	if len(got) != len(wants) {
		t.Fatalf("reasons %q, want %d", got, len(wants))
	}
	for i, w := range wants {
		if !strings.Contains(got[i], w) {
			t.Errorf("reason %d is %q, want it to hold %q", i, got[i], w)
		}
	}
}

// TestJudgeRecordsTheReasons: Judge writes the verdict and its reasons
// into the result, so a tool reading result.json sees why.
func TestJudgeRecordsTheReasons(t *testing.T) {
	r := passingResult()
	r.Runs[0].Audit.ModelMismatches = 3
	th, err := result.ParseThreshold("*/* requests.errors == 0")
	if err != nil {
		t.Fatal(err)
	}
	Judge(r, []*result.Threshold{th})
	if r.Verdict != result.Fail || len(r.VerdictReasons) != 1 || !strings.Contains(r.VerdictReasons[0], "MISMATCH") || len(r.Thresholds) != 1 {
		t.Errorf("verdict %s, reasons %q, thresholds %+v", r.Verdict, r.VerdictReasons, r.Thresholds)
	}
}

// TestAssessRuns: each run's part of the judgement, as the summary and the
// page read it. Each row changes one thing in a passing result.
func TestAssessRuns(t *testing.T) {
	for _, tc := range []struct {
		why      string
		change   func(r *result.Result)
		judged   bool
		control  bool
		promise  Promise
		findings []Kind
		counts   []int64
	}{
		{"every check holds: judged and kept", func(*result.Result) {}, true, false, Kept, nil, nil},
		{"no audit: not audited, though judged", func(r *result.Result) { r.Runs[0].Audit = nil }, true, false, NotAudited, nil, nil},
		{"an overshoot breaks the promise", func(r *result.Result) {
			r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.Violations = 5000, 50
		}, true, false, Broken, []Kind{Overshoot}, []int64{5000}},
		{"mismatches break it too", func(r *result.Result) { r.Runs[0].Audit.ModelMismatches = 97 }, true, false, Broken, []Kind{ModelMismatch}, []int64{97}},
		{"a leak is a finding, but the bound and the model were kept", func(r *result.Result) {
			r.Runs[0].Memory.KeysWithoutTTL = 3
		}, true, false, Kept, []Kind{KeyWithoutTTL}, []int64{3}},
		{"evictions: not judged, the audit's findings are not the limiter's", func(r *result.Result) {
			r.Runs[0].Eviction.EvictedKeys = 10
			r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.ModelMismatches = 3, 4
		}, false, false, NotAudited, []Kind{StateReset}, []int64{10}},
		{"a reset does not excuse a key without a TTL", func(r *result.Result) {
			r.Runs[0].Eviction.Restarted = true
			r.Runs[0].Memory.KeysWithoutTTL = 2
		}, false, false, NotAudited, []Kind{StateReset, KeyWithoutTTL}, []int64{0, 2}},
		{"a negative control's findings are found all the same", func(r *result.Result) {
			r.Profile.ExpectBroken = []string{"fixed_window"}
			r.Runs[0].Audit.Overshoot = 40
		}, true, true, Broken, []Kind{Overshoot}, []int64{40}},
		{"errors past the budget, most serious first", func(r *result.Result) {
			r.Runs[0].Requests.Errors = 500
			r.Runs[0].Memory.KeysOutsidePrefix = 1
			r.Runs[0].Audit.ModelMismatches = 1
		}, true, false, Broken, []Kind{ErrorsOverBudget, ModelMismatch, KeyOutsidePrefix}, []int64{500, 1, 1}},
	} {
		r := passingResult()
		tc.change(r)
		j := Assess(r)
		if len(j.Runs) != 1 {
			t.Fatalf("%s: %d runs judged, want 1", tc.why, len(j.Runs))
		}
		run := j.Runs[0]
		if run.Judged != tc.judged || run.NegativeControl != tc.control || run.Promise != tc.promise {
			t.Errorf("%s: judged %v, negative control %v, promise %s; want %v, %v, %s",
				tc.why, run.Judged, run.NegativeControl, run.Promise, tc.judged, tc.control, tc.promise)
		}
		var kinds []Kind
		var counts []int64
		for _, f := range append(slices.Clone(run.Inconclusive), run.Findings...) {
			kinds, counts = append(kinds, f.Kind), append(counts, f.Count)
			if f.Run != "fixed_window/steady" || !strings.HasPrefix(f.Text, "fixed_window/steady: ") {
				t.Errorf("%s: finding %+v does not name its run", tc.why, f)
			}
			if !run.NegativeControl && (j.Verdict == result.Inconclusive || !f.Kind.inconclusive()) && !slices.Contains(j.Reasons(), f.Text) {
				t.Errorf("%s: finding %q is not among the reasons %q", tc.why, f.Text, j.Reasons())
			}
		}
		if !slices.Equal(kinds, tc.findings) || !slices.Equal(counts, tc.counts) {
			t.Errorf("%s: findings %v %v, want %v %v", tc.why, kinds, counts, tc.findings, tc.counts)
		}
		for _, k := range tc.findings {
			if !run.Has(k) {
				t.Errorf("%s: Has(%s) is false", tc.why, k)
			}
		}
	}
}

// TestLimiter: one algorithm's promise over its runs: broken anywhere is
// broken; a run the server reset judges nothing.
func TestLimiter(t *testing.T) {
	r := passingResult()
	base := r.Runs[0]
	add := func(alg, scenario string, change func(run *result.Run)) {
		run := base
		a, e := *base.Audit, *base.Eviction
		run.Audit, run.Eviction = &a, &e
		run.Algorithm, run.Scenario = alg, scenario
		change(&run)
		r.Runs = append(r.Runs, run)
	}
	r.Runs = nil
	add("fixed_window", "steady", func(*result.Run) {})
	add("fixed_window", "burst", func(run *result.Run) { run.Audit.Overshoot = 3 })
	add("fixed_window", "burst", func(run *result.Run) { run.Audit.ModelMismatches = 1 })
	add("token_bucket", "steady", func(run *result.Run) { run.Eviction.EvictedKeys, run.Audit.Overshoot = 1, 9 })
	add("token_bucket", "burst", func(*result.Run) {})
	add("leaky_bucket", "steady", func(run *result.Run) { run.Eviction.Restarted = true })
	add("sliding_log", "steady", func(run *result.Run) { run.Audit = nil })
	j := Assess(r)
	for _, tc := range []struct {
		alg      string
		promise  Promise
		brokenIn []string
	}{
		{"fixed_window", Broken, []string{"burst"}}, // one scenario named once
		{"token_bucket", Kept, nil},                 // the reset run's overshoot is not the limiter's
		{"leaky_bucket", NotAudited, nil},           // its only run was reset
		{"sliding_log", NotAudited, nil},            // never audited
		{"gcra", NotAudited, nil},                   // never ran
	} {
		if l := j.Limiter(tc.alg); l.Promise != tc.promise || !slices.Equal(l.BrokenIn, tc.brokenIn) {
			t.Errorf("%s: %s in %q, want %s in %q", tc.alg, l.Promise, l.BrokenIn, tc.promise, tc.brokenIn)
		}
	}
}

// TestFailuresAreTheReasons: the structured failures and the reasons a
// result records are one list.
func TestFailuresAreTheReasons(t *testing.T) {
	r := passingResult()
	r.Complete = false
	r.Profile.ExpectBroken = []string{"gcra"}
	r.Runs[0].Audit.Overshoot = 2
	r.Thresholds = []result.ThresholdResult{
		{Expression: "*/* requests.errors == 0", Run: "fixed_window/steady", Value: 1},
		{Expression: "*/* requests.errors == 0", Run: "fixed_window/burst", Value: 2},
	}
	j := Assess(r)
	var kinds []Kind
	for i, f := range j.Failures {
		kinds = append(kinds, f.Kind)
		if j.Reasons()[i] != f.Text {
			t.Errorf("reason %d is %q, failure %q", i, j.Reasons()[i], f.Text)
		}
	}
	if want := []Kind{Incomplete, Overshoot, ControlNotCaught, ThresholdFailed}; !slices.Equal(kinds, want) {
		t.Errorf("failures %v, want %v", kinds, want)
	}
	if th := j.Failures[3]; th.Run != "fixed_window/steady" || th.Count != 2 {
		t.Errorf("threshold failure %+v, want the first run and a count of 2", th)
	}
}
