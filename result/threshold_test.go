package result_test

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		why    string
		expr   string
		field  string
		op     string
		factor float64
		ref    string
	}{
		{"correctness, every run", "*/* audit.overshoot == 0", "audit.overshoot", "==", 0, ""},
		{"latency with a unit converts to microseconds", "*/steady latency_us.p99 < 5ms", "latency_us.p99", "<", 5000, ""},
		{"seconds on a microsecond field", "*/* latency_us.max <= 1.5s", "latency_us.max", "<=", 1.5e6, ""},
		{"a multiple of the run's limit", "fixed_window/straddle audit.max_window_admitted <= 2*limit", "audit.max_window_admitted", "<=", 2, "limit"},
		{"a fraction of the target rate", "*/* rate.achieved_per_s >= 0.98*target", "rate.achieved_per_s", ">=", 0.98, "target"},
		{"a percentage of the target rate", "*/* rate.achieved_per_s >= 98%*target", "rate.achieved_per_s", ">=", 0.98, "target"},
		{"the name first", "*/* audit.max_window_admitted <= bound", "audit.max_window_admitted", "<=", 1, "bound"},
		{"spaces around the product", "*/* audit.max_window_admitted <= 2 * limit", "audit.max_window_admitted", "<=", 2, "limit"},
		{"sizes in KiB", "*/* memory.bytes_per_identity < 0.25KiB", "memory.bytes_per_identity", "<", 256, ""},
		{"a unitless time is in the field's own unit", "*/* latency_us.p50 < 800", "latency_us.p50", "<", 800, ""},
		{"server cost in microseconds", "*/* server.usec_per_call < 10us", "server.usec_per_call", "<", 10, ""},
		{"a time in seconds", "*/* elapsed_s >= 500ms", "elapsed_s", ">=", 0.5, ""},
	} {
		th, err := result.ParseThreshold(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		if th.Field != tc.field || th.Op != tc.op || th.Factor != tc.factor || th.Ref != tc.ref {
			t.Errorf("%s: got field %s op %s factor %v ref %q", tc.why, th.Field, th.Op, th.Factor, th.Ref)
		}
	}
}

// TestParseThresholdErrors pins the exact message for every kind of bad input.
func TestParseThresholdErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		expr string
		want string
	}{
		{"too few parts", "*/* audit.overshoot",
			`want "algorithm/scenario field operator value", e.g. "*/* audit.overshoot == 0"`},
		{"selector without a slash", "fixed_window audit.overshoot == 0",
			`selector "fixed_window" is not algorithm/scenario (use * for any, e.g. "*/steady")`},
		{"unknown field, with a hint", "*/* audit.overshot == 0",
			`unknown field "audit.overshot" (did you mean "audit.overshoot"?); numeric fields include latency_us.p99, audit.overshoot, rate.achieved_per_s, memory.bytes_per_identity`},
		{"a field that is not a number", "*/* algorithm == 0",
			`field "algorithm" is not a number`},
		{"unknown operator", "*/* audit.overshoot =< 0",
			`unknown operator "=<" (use <, <=, >, >= or ==)`},
		{"a size unit on a time", "*/* latency_us.p99 < 5KiB",
			`latency_us.p99 is a time in microseconds; "5KiB" is a size`},
		{"a time unit on a size", "*/* memory.bytes_per_identity < 5ms",
			`memory.bytes_per_identity is a size in bytes; "5ms" is a time`},
		{"a time unit on a count", "*/* audit.overshoot < 5ms",
			`audit.overshoot is a plain number; "5ms" is a time`},
		{"a request count compared with a time", "*/* latency_us.p99 < 2*limit",
			`latency_us.p99 is a time in microseconds; "limit" is the policy's limit (requests per window)`},
		{"not a number", "*/* audit.overshoot == none",
			`"none" is not a number, a unit value like 5ms, or a name (bound, capacity, limit, target)`},
		{"two names", "*/* audit.overshoot <= limit*bound",
			`value "limit*bound" names more than one of bound, capacity, limit, target`},
	} {
		_, err := result.ParseThreshold(tc.expr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
		}
	}
}

func TestThresholdSelectors(t *testing.T) {
	th, err := result.ParseThreshold("*_bucket/stead? latency_us.p99 < 5ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alg, scen string
		want      bool
	}{
		{"token_bucket", "steady", true},
		{"leaky_bucket", "steadz", true},
		{"fixed_window", "steady", false},
		{"token_bucket", "steady2", false},
	} {
		if got := th.Matches(tc.alg, tc.scen); got != tc.want {
			t.Errorf("Matches(%s, %s) = %v", tc.alg, tc.scen, got)
		}
	}
	if th.MatchesAny([]string{"fixed_window/steady", "sliding_log/steady"}) {
		t.Errorf("matched a plan without buckets")
	}
}

func TestEvaluate(t *testing.T) {
	r := resulttest.Sample()
	r.Runs[0].Params.Limit = 100
	r.Runs[0].Rate = result.RateFigures{TargetPerS: 1000, AchievedPerS: 950}
	r.Runs[0].Audit = &result.Audit{MaxWindowAdmitted: 200, BoundWindow: 200, Overshoot: 0}
	second := r.Runs[0]
	second.Algorithm = "sliding_log"
	second.Audit = nil
	r.Runs = append(r.Runs, second)
	var ts []*result.Threshold
	for _, e := range []string{
		"fixed_window/* audit.max_window_admitted <= 2*limit", // 200 <= 200: holds
		"*/* rate.achieved_per_s >= 0.98*target",              // 950 < 980: fails on both runs
		"*/* latency_us.p99 < 1ms",                            // 1500us: fails on both
		"sliding_log/* audit.overshoot == 0",                  // no audit in that run: fails with a note
	} {
		th, err := result.ParseThreshold(e)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	got := result.Evaluate(r, ts)
	if len(got) != 6 {
		t.Fatalf("%d results, want 6: %+v", len(got), got)
	}
	failed := 0
	for i, g := range got {
		if !g.OK {
			failed++
			if i >= 5 {
				t.Errorf("failures are not listed first: %+v", got)
			}
		}
	}
	if failed != 5 {
		t.Errorf("%d failures, want 5: %+v", failed, got)
	}
	last := got[len(got)-1]
	if !last.OK || last.Value != 200 || last.Against != 200 || last.Run != "fixed_window/steady" {
		t.Errorf("the passing row: %+v", last)
	}
	for _, g := range got {
		if g.Run == "sliding_log/steady" && strings.Contains(g.Expression, "overshoot") && g.Note != "the run has no audit.overshoot" {
			t.Errorf("missing field note: %+v", g)
		}
	}
}

// TestThresholdsOnRlbenchsOwnMemory: rlbench's own memory figures are
// unsigned, and a profile may still bound them ("rlbench's RSS under 300
// MB"): they are sizes, read and compared like any other field.
func TestThresholdsOnRlbenchsOwnMemory(t *testing.T) {
	r := resulttest.Sample()
	r.Runs[0].Memory = &result.Memory{RlbenchPeakRSSBytes: 310 << 20, AuditHeapBytes: 46 << 20}
	for _, tc := range []struct {
		expr string
		ok   bool
	}{
		{"*/* memory.rlbench_peak_rss_bytes < 300MiB", false}, // 310 MiB: over
		{"*/* memory.audit_heap_bytes < 200MiB", true},        // 46 MiB: under
	} {
		th, err := result.ParseThreshold(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if d, err := result.FieldDimension(th.Field); err != nil || d != result.Bytes {
			t.Errorf("%s: %v %v, want a size in bytes", th.Field, d, err)
		}
		got := result.Evaluate(r, []*result.Threshold{th})
		if len(got) != 1 || got[0].OK != tc.ok {
			t.Errorf("%s: %+v, want ok=%v", tc.expr, got, tc.ok)
		}
	}
}
