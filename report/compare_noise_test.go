package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestCompareSingleRunsJudgeOnlyOrdersOfMagnitude: two back-to-back runs
// of one profile have no spread; p99 1.73ms against 14.0ms is noise on a
// small machine, not a regression, unless the caller gave a tolerance. A
// p99 of fewer than 10,000 requests needs a thirtyfold change; one of
// more, an order of magnitude.
func TestCompareSingleRunsJudgeOnlyOrdersOfMagnitude(t *testing.T) {
	for _, tc := range []struct {
		why      string
		requests int64
		p99      int64
		tol      Tolerances
		verdict  string
	}{
		{"eight times the p99, defaults: noise", 5000, 14_000, DefaultTolerances, Same},
		{"twenty times the p99 of 5,000 requests, defaults: the machine", 5000, 35_000, DefaultTolerances, Same},
		{"forty times the p99 of 5,000 requests, defaults: a change", 5000, 70_000, DefaultTolerances, Regressed},
		{"twenty times the p99 of 20,000 requests, defaults: an order of magnitude", 20_000, 35_000, DefaultTolerances, Regressed},
		{"eight times, with --p99 given: judged by it", 5000, 14_000, explicit, Regressed},
	} {
		base := compareRun("fixed_window", 200, 1730, 5, 100, 0, 0, 0, 0)
		cur := compareRun("fixed_window", 200, tc.p99, 5, 100, 0, 0, 0, 0)
		base.LatencyUs.Count, cur.LatencyUs.Count = tc.requests, tc.requests
		c := Compare(resultOf(base), resultOf(cur), tc.tol)
		if row := rowFor(t, c, "fixed_window/steady", "latency_us.p99"); row.Verdict != tc.verdict || c.Regressed != (tc.verdict == Regressed) {
			t.Errorf("%s: %+v (regressed %v), want %s", tc.why, row, c.Regressed, tc.verdict)
		}
		if !strings.Contains(strings.Join(c.Warnings, "\n"), "a single run has no spread") || !strings.Contains(strings.Join(c.Warnings, "\n"), "--repeat 5") {
			t.Errorf("%s: warnings %q do not say so or suggest --repeat", tc.why, c.Warnings)
		}
	}
	// Server cost and correctness are judged as usual.
	base := compareRun("fixed_window", 200, 1730, 5, 100, 0, 0, 0, 0)
	cur := compareRun("fixed_window", 200, 1730, 8, 100, 1, 0, 0, 0)
	c := Compare(resultOf(base), resultOf(cur), DefaultTolerances)
	if rowFor(t, c, "fixed_window/steady", "server.usec_per_call").Verdict != Regressed || rowFor(t, c, "fixed_window/steady", "audit.overshoot").Verdict != Regressed {
		t.Errorf("server cost +60%% or an overshoot passed a single-run comparison: %+v", c.Rows)
	}
}

// calibrated is a run with a reference and its relative figures.
func calibrated(p99, ping99 int64, usec, serverCost float64) result.Run {
	r := compareRun("token_bucket", 200, p99, usec, 100, 0, 0, 0, 0)
	r.LatencyUncorrectedUs = r.LatencyUs
	r.Reference = &result.Reference{PingUs: result.Latency{P50: 100, P99: ping99}, UsecPerCall: usec / serverCost}
	r.Relative = result.NewRelative(&r, result.CostRatio{Median: serverCost})
	r.Repeats = &result.Repeats{Count: 2, Values: map[string][]float64{}}
	return r
}

// TestCompareCalibrated: with a reference on both sides, the relative
// figures are judged and the absolute ones shown for people only. A busier
// machine that slows everything alike passes; a script three times slower
// does not, however the machine is.
func TestCompareCalibrated(t *testing.T) {
	base := calibrated(1000, 800, 10, 2)
	busy := calibrated(10_000, 8_000, 30, 2)
	c := Compare(resultOf(base), resultOf(busy), DefaultTolerances)
	if c.Regressed {
		t.Errorf("a machine busy everywhere regressed: %+v", c.Rows)
	}
	if row := rowFor(t, c, "token_bucket/steady", "latency_us.p99"); row.Verdict != NotJudged || !strings.Contains(row.Note, "relative.latency_p99") {
		t.Errorf("absolute p99 row %+v, want it shown, not judged", row)
	}
	slower := calibrated(1100, 800, 30, 6)
	c = Compare(resultOf(base), resultOf(slower), DefaultTolerances)
	if row := rowFor(t, c, "token_bucket/steady", "relative.server_cost"); row.Verdict != Regressed || !c.Regressed {
		t.Errorf("a script three times slower: %+v", row)
	}
	// The absolute rows are left out of the text unless asked for.
	var text, all bytes.Buffer
	if err := WriteCompare(&text, c, "text", false); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompare(&all, c, "text", true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "relative.server_cost") || strings.Contains(text.String(), "latency_us.p50") ||
		!strings.Contains(text.String(), "figures unchanged or not comparable (--all lists them)") {
		t.Errorf("default text shows more or less than what changed:\n%s", text.String())
	}
	if !strings.Contains(all.String(), "latency_us.p50") || !strings.Contains(all.String(), "audit.overshoot") {
		t.Errorf("--all does not list every figure:\n%s", all.String())
	}
	// Against a result recorded before references, the absolute figures
	// are judged, and the warning says why.
	old := compareRun("token_bucket", 200, 1000, 10, 100, 0, 0, 0, 0)
	c = Compare(resultOf(old), resultOf(slower), DefaultTolerances)
	if rowFor(t, c, "token_bucket/steady", "server.usec_per_call").Verdict != Regressed ||
		!strings.Contains(strings.Join(c.Warnings, "\n"), "only one side measured a reference") {
		t.Errorf("against an uncalibrated baseline: %+v, warnings %q", c.Rows, c.Warnings)
	}
}

// closedLoop is a closed-loop run with the given rate.
func closedLoop(perS float64, repeated bool) result.Run {
	r := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	r.Rate = result.RateFigures{AchievedPerS: perS}
	if repeated {
		r.Repeats = &result.Repeats{Count: 3, Values: map[string][]float64{}}
	}
	return r
}

// TestCompareTailNeedsSamples: the p99 of a few hundred requests is the
// latency of a handful; it is not compared.
func TestCompareTailNeedsSamples(t *testing.T) {
	base := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	cur := compareRun("fixed_window", 200, 20_000, 5, 100, 0, 0, 0, 0)
	cur.LatencyUs.Count = 150
	c := Compare(resultOf(base), resultOf(cur), explicit)
	if row := rowFor(t, c, "fixed_window/steady", "latency_us.p99"); row.Verdict != NotMeasured || c.Regressed || !strings.Contains(row.Note, "rests on its 1 slowest") {
		t.Errorf("p99 of 150 requests: %+v (regressed %v)", row, c.Regressed)
	}
}

// TestCompareThroughput: closed-loop throughput is compared, and a fall is
// the regression; open-loop runs, whose rate is set, are not.
func TestCompareThroughput(t *testing.T) {
	for _, tc := range []struct {
		why      string
		base     result.Run
		cur      result.Run
		verdict  string
		noRowFor bool
	}{
		{"repeated: a fall by half", closedLoop(40_000, true), closedLoop(20_000, true), Regressed, false},
		{"repeated: a fall by a tenth is within 20%", closedLoop(40_000, true), closedLoop(36_000, true), Same, false},
		{"repeated: a rise by half", closedLoop(40_000, true), closedLoop(60_000, true), Improved, false},
		{"single runs: a fall by half is noise", closedLoop(40_000, false), closedLoop(20_000, false), Same, false},
		{"single runs: to a twentieth is an order of magnitude", closedLoop(40_000, false), closedLoop(2_000, false), Regressed, false},
	} {
		row := rowFor(t, Compare(resultOf(tc.base), resultOf(tc.cur), DefaultTolerances), "fixed_window/steady", "rate.achieved_per_s")
		if row.Verdict != tc.verdict {
			t.Errorf("%s: %+v, want %s", tc.why, row, tc.verdict)
		}
	}
	// In a closed loop the arrivals follow the machine's speed, and so
	// does how far one window gets past the policy.
	row := rowFor(t, Compare(resultOf(closedLoop(40_000, true)), resultOf(closedLoop(20_000, true)), DefaultTolerances), "fixed_window/steady", "audit.policy_excess")
	if row.Verdict != NotMeasured {
		t.Errorf("policy excess of a closed loop: %+v", row)
	}
	open := closedLoop(1000, true)
	open.Rate.TargetPerS = 1000
	for _, r := range Compare(resultOf(open), resultOf(open), DefaultTolerances).Rows {
		if r.Metric == "rate.achieved_per_s" {
			t.Errorf("an open-loop run's rate was compared: %+v", r)
		}
	}
}

// TestCompareWarnsWhatDiffers: results from other profiles, policies,
// hosts or servers are compared, but not silently.
func TestCompareWarnsWhatDiffers(t *testing.T) {
	for _, tc := range []struct {
		why    string
		change func(r *result.Result)
		want   string
	}{
		{"another profile", func(r *result.Result) { r.Profile.Name = "steady" }, "different profiles (demo and steady)"},
		{"the profile changed", func(r *result.Result) { r.Profile.SHA256 = "bbbbbbbbbbbbbbbbbbbb" }, "profile demo changed between the two results"},
		{"another policy", func(r *result.Result) { r.Profile.Policy.Limit = 50 }, "different policies: 100 per 1s in the baseline, 50 per 1s, burst 100 now"},
		{"another host", func(r *result.Result) {
			r.Host = result.HostInfo{Name: "ci-7", OS: "linux", Arch: "arm64", CPUs: 8, GOMAXPROCS: 7}
		}, "different hosts"},
		{"another server", func(r *result.Result) { r.Redis.Version = "7.2.4" }, "different Redis servers: private 7.0.15 in the baseline, private 7.2.4 now"},
		{"a cluster against one server", func(r *result.Result) { r.Redis.Cluster = &result.ClusterInfo{Masters: 3} },
			"different Redis servers: private 7.0.15 in the baseline, private Redis Cluster 7.0.15: 3 masters, 0 replicas now"},
		{"a run with another rate", func(r *result.Result) { r.Runs[0].Params.Rate = "4x" }, "runs with other parameters: fixed_window/steady (policy 100/1s, rate 2x"},
	} {
		base := resultOf(compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0))
		base.Profile.SHA256 = "aaaaaaaaaaaaaaaaaaaa"
		base.Runs[0].Params.Rate = "2x"
		cur := resultOf(compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0))
		cur.Profile.SHA256, cur.Runs[0].Params.Rate = base.Profile.SHA256, "2x"
		if w := Compare(base, cur, DefaultTolerances).Warnings; len(w) != 1 {
			t.Fatalf("identical results warn more than that they are single runs: %q", w)
		}
		tc.change(cur)
		if w := strings.Join(Compare(base, cur, DefaultTolerances).Warnings, "\n"); !strings.Contains(w, tc.want) {
			t.Errorf("%s: warnings %q lack %q", tc.why, w, tc.want)
		}
	}
}

// bucketRun is a token bucket's steady run whose busiest window admitted
// most, with late of its 1000 requests sent over a millisecond late.
func bucketRun(most, late int64) result.Run {
	r := compareRun("token_bucket", 200, 1000, 5, 100, 0, most-25, 0, 0)
	r.Params.Limit = 25
	r.Requests = result.Requests{Sent: 1000, Allowed: 600, Denied: 400, Late: late}
	r.Audit.MaxWindowAdmitted, r.Audit.BoundWindow = most, 50
	return r
}

// TestComparePolicyExcessOfASlippedSchedule: when a schedule slipped, late
// requests bunch, and how far one window got past the policy moves with
// the machine up to the algorithm's own bound (24 where it was 19, within
// a bound of 50); past the baseline's bound it is a regression, and
// without a slip the usual slack holds.
func TestComparePolicyExcessOfASlippedSchedule(t *testing.T) {
	for _, tc := range []struct {
		why       string
		base, cur result.Run
		verdict   string
	}{
		{"slipped, within the bound", bucketRun(44, 416), bucketRun(49, 20), WithinSpread},
		{"slipped, past the baseline's bound", bucketRun(44, 416), bucketRun(55, 20), Regressed},
		{"kept the schedule: the usual slack", bucketRun(44, 5), bucketRun(49, 5), Regressed},
	} {
		row := rowFor(t, Compare(resultOf(tc.base), resultOf(tc.cur), DefaultTolerances), "token_bucket/steady", "audit.policy_excess")
		if row.Verdict != tc.verdict {
			t.Errorf("%s: %+v, want %s", tc.why, row, tc.verdict)
		}
	}
}

// TestCompareTailOfAStarvedSingleRun: a run whose generator waited for a
// CPU half its traffic time has the p99 of the machine's stalls (51 times
// PING's, where the run before had 1.1), repeated or not: not judged.
func TestCompareTailOfAStarvedSingleRun(t *testing.T) {
	base := calibrated(1100, 1000, 10, 2)
	cur := calibrated(51_000, 1000, 10, 2)
	cur.Generator = &result.Generator{CPUShare: 0.12, CPUWaitShare: 0.51}
	base.Repeats, cur.Repeats = nil, nil
	c := Compare(resultOf(base), resultOf(cur), DefaultTolerances)
	if row := rowFor(t, c, "token_bucket/steady", "relative.latency_p99"); row.Verdict != NotMeasured || !strings.Contains(row.Note, "waited for a CPU 51%") || c.Regressed {
		t.Errorf("a starved single run: %+v", row)
	}
	cur.Generator.CPUWaitShare = 0.1
	if row := rowFor(t, Compare(resultOf(base), resultOf(cur), DefaultTolerances), "token_bucket/steady", "relative.latency_p99"); row.Verdict != Regressed {
		t.Errorf("a run that had its CPU, 46 times the p99: %+v", row)
	}
	// Repeated on both sides, the median repetition kept starved as
	// long: its latency is the machine's all the same.
	base.Repeats = &result.Repeats{Count: 3, Values: map[string][]float64{}}
	cur.Repeats, cur.Generator.CPUWaitShare = &result.Repeats{Count: 3, Values: map[string][]float64{}}, 0.51
	if row := rowFor(t, Compare(resultOf(base), resultOf(cur), explicit), "token_bucket/steady", "relative.latency_p99"); row.Verdict != NotMeasured {
		t.Errorf("repeated, starved: %+v", row)
	}
	cur.Generator.CPUWaitShare = 0.1
	if row := rowFor(t, Compare(resultOf(base), resultOf(cur), explicit), "token_bucket/steady", "relative.latency_p99"); row.Verdict != Regressed {
		t.Errorf("repeated, with its CPU: %+v", row)
	}
}

// TestCompareSpreadWording: when the spread the two runs measured sets a
// row's tolerance, its note says what the change was against it, never
// that a regression was allowed; and the comparison says the smallest
// slowdown of each limiter's script it would have caught.
func TestCompareSpreadWording(t *testing.T) {
	spread := func(cost, low, high float64) result.Run {
		r := calibrated(1000, 800, 10, cost)
		r.Relative.ServerCostLow, r.Relative.ServerCostHigh = low, high
		return r
	}
	// Quartiles 1.6..2.4 around 2 on both sides: 2 x hypot(0.4, 0.4) = 113%.
	base := spread(2, 1.6, 2.4)
	for _, tc := range []struct {
		why     string
		cost    float64
		verdict string
		note    string
	}{
		{"past the spread", 5, Regressed, "more than the spread the two runs measured explains (it allows +113%)"},
		{"inside it", 3, Same, "within the spread the two runs measured (+113%)"},
	} {
		c := Compare(resultOf(base), resultOf(spread(tc.cost, tc.cost*0.8, tc.cost*1.2)), DefaultTolerances)
		row := rowFor(t, c, "token_bucket/steady", "relative.server_cost")
		if row.Verdict != tc.verdict || row.Note != tc.note {
			t.Errorf("%s: %s (%s), want %s (%s)", tc.why, row.Verdict, row.Note, tc.verdict, tc.note)
		}
		if len(c.Detectable) != 1 || c.Detectable[0].Algorithm != "token_bucket" || math.Abs(c.Detectable[0].Factor-2.13) > 0.01 {
			t.Errorf("%s: detectable %+v, want token_bucket 2.13x", tc.why, c.Detectable)
		}
		var text bytes.Buffer
		if err := WriteCompare(&text, c, "text", false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "detects: a limiter's server time per decision slower by at least token_bucket 2.13x (token_bucket/steady)") {
			t.Errorf("%s: the text does not say what the comparison detects:\n%s", tc.why, text.String())
		}
	}
}

// TestCompareJUnitSchema: a comparison written as JUnit keeps to the
// common schema; a regression fails its run's case, a run the current
// result lacks fails the comparison's own case.
func TestCompareJUnitSchema(t *testing.T) {
	base := resultOf(calibrated(1000, 800, 10, 2), compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0))
	cur := resultOf(calibrated(1000, 800, 30, 6))
	var buf bytes.Buffer
	if err := WriteCompareJUnit(&buf, Compare(base, cur, DefaultTolerances)); err != nil {
		t.Fatal(err)
	}
	if problems := validateJUnit(t, buf.Bytes()); len(problems) > 0 {
		t.Errorf("not the JUnit schema: %q\n%s", problems, buf.String())
	}
	for _, want := range []string{`<testcase name="token_bucket/steady" classname="rlbench.compare">`,
		`<failure type="REGRESSED" message="relative.server_cost: 2.00x -&gt; 6.00x (3.00x), allowed +25%: REGRESSED">`,
		`<failure type="MISSING" message="fixed_window/steady is in the baseline but missing from the current result">`,
		`tests="2" failures="2"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, buf.String())
		}
	}
}

// TestComparePooledServerCost: a limiter's server cost is judged once over
// all its runs, the median of their ratios against the spread they
// measured narrowed by the root of their number: one run's odd rounds
// (here one scenario 40% up) raise no alarm, a script 1.3 times slower in
// every run does, and each run's own row is shown, not judged.
func TestComparePooledServerCost(t *testing.T) {
	runs := func(costs ...float64) *result.Result {
		var out []result.Run
		for i, c := range costs {
			r := calibrated(1000, 800, 10, c)
			r.Scenario = fmt.Sprintf("s%d", i)
			r.Relative.ServerCostLow, r.Relative.ServerCostHigh = c*0.925, c*1.075 // a 15% spread each
			out = append(out, r)
		}
		return resultOf(out...)
	}
	base := runs(2, 2.1, 1.9, 2, 2)
	// 2 x hypot(0.15, 0.15) / sqrt(5) = 19%.
	for _, tc := range []struct {
		why     string
		cur     *result.Result
		verdict string
	}{
		{"unchanged, one run's rounds odd", runs(2, 2.1, 2.66, 2, 1.95), Same},
		{"a script 1.3 times slower", runs(2.6, 2.73, 2.47, 2.6, 2.6), Regressed},
	} {
		c := Compare(base, tc.cur, DefaultTolerances)
		row := rowFor(t, c, "token_bucket/*", "relative.server_cost")
		if row.Verdict != tc.verdict || math.Abs(row.Tolerance-0.19) > 0.005 || c.Regressed != (tc.verdict == Regressed) {
			t.Errorf("%s: %s at %s (%s), regressed %v; want %s at +19%%", tc.why, row.Verdict, row.Allowed, row.Note, c.Regressed, tc.verdict)
		}
		if own := rowFor(t, c, "token_bucket/s2", "relative.server_cost"); own.Verdict != NotJudged || own.Note != "judged over all of its runs, as token_bucket/*" {
			t.Errorf("%s: a run's own row %+v, want it shown, not judged", tc.why, own)
		}
		if len(c.Detectable) != 1 || c.Detectable[0].Run != "token_bucket/*" || math.Abs(c.Detectable[0].Factor-1.19) > 0.005 {
			t.Errorf("%s: detectable %+v, want token_bucket 1.19x over all its runs", tc.why, c.Detectable)
		}
	}
	// --server given wider than the spread: it applies, and the note says so.
	tol := DefaultTolerances
	tol.UsecPerCall, tol.Given = 0.5, map[string]bool{"server": true}
	row := rowFor(t, Compare(base, runs(2.6, 2.73, 2.47, 2.6, 2.6), tol), "token_bucket/*", "relative.server_cost")
	if row.Verdict != Same || row.Allowed != "+50%" || !strings.Contains(row.Note, "within --server") {
		t.Errorf("--server 50%%: %+v", row)
	}
}

// TestCompareMiddleOfAStarvedSingleRun: the p50 of a single run whose
// generator waited for a CPU most of its traffic is the machine's too (13
// times PING's in one run of profiles/smoke.yaml on a loaded machine, 1.1
// in the next): not compared.
func TestCompareMiddleOfAStarvedSingleRun(t *testing.T) {
	base, cur := calibrated(1100, 1000, 10, 2), calibrated(1100, 1000, 10, 2)
	cur.LatencyUncorrectedUs.P50 = 2600 // 26 times PING's 100
	cur.Generator = &result.Generator{CPUShare: 0.2, CPUWaitShare: 1.83}
	base.Repeats, cur.Repeats = nil, nil
	cur.Relative = result.NewRelative(&cur, result.CostRatio{Median: 2})
	c := Compare(resultOf(base), resultOf(cur), DefaultTolerances)
	if row := rowFor(t, c, "token_bucket/steady", "relative.latency_p50"); row.Verdict != NotMeasured || !strings.Contains(row.Note, "waited for a CPU 183%") || c.Regressed {
		t.Errorf("a starved single run's p50: %+v", row)
	}
}
