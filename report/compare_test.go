package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// compareRun is a run with every compared metric set.
func compareRun(alg string, p50, p99 int64, usec, bpi float64, overshoot, excess, mismatches, noTTL int64) result.Run {
	return result.Run{
		Algorithm: alg, Scenario: "steady",
		Rate:      result.RateFigures{TargetPerS: 1000, AchievedPerS: 1000},
		LatencyUs: result.Latency{Count: 5000, P50: p50, P99: p99},
		Audit:     &result.Audit{Overshoot: overshoot, PolicyExcess: excess, ModelMismatches: mismatches},
		Memory:    &result.Memory{Identities: 10_000, BytesPerIdentity: bpi, KeysWithoutTTL: noTTL},
		Server:    &result.Server{UsecPerCall: usec},
	}
}

func resultOf(runs ...result.Run) *result.Result {
	r := resulttest.Sample()
	r.Runs = runs
	return r
}

func rowFor(t *testing.T, c *Comparison, run, metric string) CompareRow {
	t.Helper()
	for _, r := range c.Rows {
		if r.Run == run && r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no row for %s %s in %+v", run, metric, c.Rows)
	return CompareRow{}
}

// explicit are the default tolerances, given by the caller: they judge
// single runs too.
var explicit = Tolerances{P50: 0.15, P99: 0.25, UsecPerCall: 0.25, BytesPerIdentity: 0.05, Throughput: 0.20,
	Given: map[string]bool{"p50": true, "p99": true, "throughput": true}}

func TestCompareClassesOfMetric(t *testing.T) {
	base := compareRun("fixed_window", 200, 1000, 5, 100, 0, 100, 0, 0)
	for _, tc := range []struct {
		why     string
		current result.Run
		metric  string
		verdict string
	}{
		{"correctness: one more admitted beyond the bound is a regression",
			compareRun("fixed_window", 200, 1000, 5, 100, 1, 100, 0, 0), "audit.overshoot", Regressed},
		{"correctness: a key left without TTL is a regression",
			compareRun("fixed_window", 200, 1000, 5, 100, 0, 100, 0, 1), "memory.keys_without_ttl", Regressed},
		{"correctness: less policy excess is an improvement",
			compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0), "audit.policy_excess", Improved},
		{"correctness: a model mismatch is a regression",
			compareRun("fixed_window", 200, 1000, 5, 100, 0, 100, 3, 0), "audit.model_mismatches", Regressed},
		{"latency: p99 +30% exceeds the 25% tolerance",
			compareRun("fixed_window", 200, 1300, 5, 100, 0, 100, 0, 0), "latency_us.p99", Regressed},
		{"latency: p99 +20% is inside the tolerance",
			compareRun("fixed_window", 200, 1200, 5, 100, 0, 100, 0, 0), "latency_us.p99", Same},
		{"latency: p50 +20% exceeds the 15% tolerance",
			compareRun("fixed_window", 240, 1000, 5, 100, 0, 100, 0, 0), "latency_us.p50", Regressed},
		{"latency: p50 halved is an improvement",
			compareRun("fixed_window", 100, 1000, 5, 100, 0, 100, 0, 0), "latency_us.p50", Improved},
		{"server cost: +40% per call is a regression",
			compareRun("fixed_window", 200, 1000, 7, 100, 0, 100, 0, 0), "server.usec_per_call", Regressed},
		{"memory: +6% bytes per identity exceeds the 5% tolerance",
			compareRun("fixed_window", 200, 1000, 5, 106, 0, 100, 0, 0), "memory.bytes_per_identity", Regressed},
		{"memory: +4% bytes per identity is inside the tolerance",
			compareRun("fixed_window", 200, 1000, 5, 104, 0, 100, 0, 0), "memory.bytes_per_identity", Same},
	} {
		c := Compare(resultOf(base), resultOf(tc.current), explicit)
		row := rowFor(t, c, "fixed_window/steady", tc.metric)
		if row.Verdict != tc.verdict {
			t.Errorf("%s: verdict %s, want %s (%+v)", tc.why, row.Verdict, tc.verdict, row)
		}
		if c.Regressed != (tc.verdict == Regressed) {
			t.Errorf("%s: Regressed = %v", tc.why, c.Regressed)
		}
	}
}

// TestCompareInsideSpread: a p99 that moved beyond the tolerance but stays
// within what the baseline's repetitions already showed is noise.
func TestCompareInsideSpread(t *testing.T) {
	base := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	base.Repeats = &result.Repeats{Count: 3, Values: map[string][]float64{"latency_us.p99": {900, 1000, 1400}}}
	cur := compareRun("fixed_window", 200, 1350, 5, 100, 0, 0, 0, 0)
	c := Compare(resultOf(base), resultOf(cur), explicit)
	row := rowFor(t, c, "fixed_window/steady", "latency_us.p99")
	if row.Verdict != WithinSpread || c.Regressed {
		t.Errorf("verdict %s (regressed %v), want %s: %+v", row.Verdict, c.Regressed, WithinSpread, row)
	}
	if !strings.Contains(row.Note, "900us..1.40ms") {
		t.Errorf("note %q does not give the spread", row.Note)
	}
	// Outside the spread, it is a regression again.
	cur.LatencyUs.P99 = 1500
	if row := rowFor(t, Compare(resultOf(base), resultOf(cur), explicit), "fixed_window/steady", "latency_us.p99"); row.Verdict != Regressed {
		t.Errorf("beyond the spread: verdict %s", row.Verdict)
	}
}

// TestCompareSkipsBytesOfTinyRuns: memory per identity over a handful of
// identities is allocator noise; it is reported as not comparable, not as
// a regression.
func TestCompareSkipsBytesOfTinyRuns(t *testing.T) {
	base := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	cur := compareRun("fixed_window", 200, 1000, 5, -3000, 0, 0, 0, 0)
	cur.Memory.Identities = 5
	c := Compare(resultOf(base), resultOf(cur), DefaultTolerances)
	row := rowFor(t, c, "fixed_window/steady", "memory.bytes_per_identity")
	if row.Verdict != NotMeasured || c.Regressed || !strings.Contains(row.Note, "too few") {
		t.Errorf("row %+v, regressed %v", row, c.Regressed)
	}
	// Too few on both sides: nothing to say, no row.
	base.Memory.Identities = 5
	for _, r := range Compare(resultOf(base), resultOf(cur), DefaultTolerances).Rows {
		if r.Metric == "memory.bytes_per_identity" {
			t.Errorf("a row for a figure neither side can stand behind: %+v", r)
		}
	}
}

// TestCompareTimingDependentCorrectness: policy excess that rose in one
// current repetition but not in another is timing; risen in every
// repetition it is a regression. Overshoot is never excused by a spread.
func TestCompareTimingDependentCorrectness(t *testing.T) {
	base := compareRun("token_bucket", 200, 1000, 5, 100, 0, 21, 0, 0)
	base.Repeats = &result.Repeats{Count: 3, Values: map[string][]float64{"audit.policy_excess": {20, 20, 21}, "audit.overshoot": {0, 0, 0}}}
	for _, tc := range []struct {
		why     string
		reps    []float64
		overs   []float64
		metric  string
		verdict string
	}{
		{"one repetition no worse than the baseline's worst", []float64{21, 26}, []float64{0, 0}, "audit.policy_excess", WithinSpread},
		{"a rise of a request or two, as timing makes", []float64{22, 23}, []float64{0, 0}, "audit.policy_excess", WithinSpread},
		{"every repetition worse by more than timing explains", []float64{25, 26}, []float64{0, 0}, "audit.policy_excess", Regressed},
		{"overshoot in one repetition is a bug, not noise", []float64{20, 20}, []float64{0, 2}, "audit.overshoot", Regressed},
	} {
		cur := compareRun("token_bucket", 200, 1000, 5, 100, int64(tc.overs[1]), int64(max(tc.reps[0], tc.reps[1])), 0, 0)
		cur.Repeats = &result.Repeats{Count: 2, Values: map[string][]float64{"audit.policy_excess": tc.reps, "audit.overshoot": tc.overs}}
		row := rowFor(t, Compare(resultOf(base), resultOf(cur), DefaultTolerances), "token_bucket/steady", tc.metric)
		if row.Verdict != tc.verdict {
			t.Errorf("%s: verdict %s, want %s (%+v)", tc.why, row.Verdict, tc.verdict, row)
		}
	}
	// Without repetitions on the current side, any rise past what timing
	// explains is a regression.
	cur := compareRun("token_bucket", 200, 1000, 5, 100, 0, 25, 0, 0)
	if row := rowFor(t, Compare(resultOf(base), resultOf(cur), DefaultTolerances), "token_bucket/steady", "audit.policy_excess"); row.Verdict != Regressed {
		t.Errorf("unrepeated rise: verdict %s", row.Verdict)
	}
}

func TestCompareMissingRuns(t *testing.T) {
	a := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	b := compareRun("sliding_log", 200, 1000, 5, 100, 0, 0, 0, 0)
	n := compareRun("token_bucket", 200, 1000, 5, 100, 0, 0, 0, 0)
	c := Compare(resultOf(a, b), resultOf(a, n), DefaultTolerances)
	if !c.Regressed || len(c.MissingInCurrent) != 1 || c.MissingInCurrent[0] != "sliding_log/steady" {
		t.Errorf("a run lost from the baseline must regress: %+v", c)
	}
	if len(c.MissingInBaseline) != 1 || c.MissingInBaseline[0] != "token_bucket/steady" {
		t.Errorf("new run not reported: %+v", c.MissingInBaseline)
	}
}

func TestWriteCompareFormats(t *testing.T) {
	base := compareRun("fixed_window", 200, 1000, 5, 100, 0, 0, 0, 0)
	cur := compareRun("fixed_window", 200, 2000, 5, 100, 0, 0, 0, 0)
	c := Compare(resultOf(base), resultOf(cur), explicit)
	for format, want := range map[string][]string{
		"text":     {"latency_us.p99", "1.00ms", "2.00ms", "2.00", "+25%", "REGRESSED", "verdict: REGRESSED"},
		"markdown": {"| run | metric |", "| fixed\\_window/steady | `latency_us.p99` | 1.00ms | 2.00ms | 2.00 | +25% | **REGRESSED** |", "❌"},
		"json":     {`"metric": "latency_us.p99"`, `"regressed": true`},
	} {
		var buf bytes.Buffer
		if err := WriteCompare(&buf, c, format, false); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s output lacks %q:\n%s", format, w, buf.String())
			}
		}
	}
	if err := WriteCompare(&bytes.Buffer{}, c, "yaml", false); err == nil {
		t.Errorf("unknown format accepted")
	}
}

func TestMergeRepeats(t *testing.T) {
	mk := func(p99 int64, overshoot int64, sent int64) result.Run {
		r := compareRun("fixed_window", 100, p99, 5, 100, overshoot, 0, 0, 0)
		r.Requests = result.Requests{Sent: sent, Allowed: sent}
		return r
	}
	m := result.MergeRepeats([]result.Run{mk(900, 0, 10), mk(1500, 2, 10), mk(1000, 0, 10)})
	if m.LatencyUs.P99 != 1000 {
		t.Errorf("p99 %d, want the median 1000", m.LatencyUs.P99)
	}
	if m.Audit.Overshoot != 2 {
		t.Errorf("overshoot %d, want the worst repetition's 2", m.Audit.Overshoot)
	}
	if m.Requests.Sent != 30 {
		t.Errorf("sent %d, want the sum 30", m.Requests.Sent)
	}
	if lo, hi, ok := m.Repeats.Spread("latency_us.p99"); !ok || lo != 900 || hi != 1500 || m.Repeats.Count != 3 {
		t.Errorf("spread %v..%v %v count %d", lo, hi, ok, m.Repeats.Count)
	}
}
