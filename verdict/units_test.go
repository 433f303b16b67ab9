package verdict

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestUnitHint: a user's limiter whose admissions, past its first window,
// are a clean factor off what its policy allows at the offered rate gets a
// hint beside its finding, naming the arguments whose unit to check.
func TestUnitHint(t *testing.T) {
	series := func(first int64, then ...int64) []result.Second {
		out := []result.Second{{TS: 0, Allowed: first}}
		for i, a := range then {
			out = append(out, result.Second{TS: i + 1, Allowed: a})
		}
		return out
	}
	for _, tc := range []struct {
		why    string
		args   []string
		series []result.Second
		want   string
	}{
		// 2 identities of 1000 a second, offered 2x: 2000 a second allowed.
		{"a bucket fed seconds where it counts milliseconds refills 1000x slower",
			[]string{"${burst}", "${rate_per_s}", "${now_s_float}"}, series(2000, 2, 2, 2, 2, 2),
			"about 1000x fewer, as if a time were read in the wrong unit: check the unit of ${now_s_float} (or of ${rate_per_s})"},
		{"whole counts a little off the factor", []string{"${now_ms}", "${limit}"}, series(2000, 1, 2, 3, 2, 2),
			"check the unit of ${now_ms} (or of the window its script counts in)"},
		{"a window in milliseconds read as minutes: 60,000x", []string{"${limit}", "${window_ms}"}, series(2000, 0, 0, 1, 0, 0),
			""}, // one admission in five seconds says no factor
		{"a limiter that admits what its policy allows", []string{"${now_ms}"}, series(2000, 2000, 1990, 2000, 2000, 2000), ""},
		{"half: no clean factor", []string{"${now_ms}"}, series(2000, 1000, 1000, 1000, 1000, 1000), ""},
		{"nothing admitted past the first window: no factor to tell", []string{"${now_ms}"}, series(2000, 0, 0, 0, 0, 0), ""},
	} {
		r := passingResult()
		run := &r.Runs[0]
		run.Algorithm, run.Identities, run.Series = "mine", 2, tc.series
		run.Params.Limit, run.Params.WindowMs, run.Params.DurationS = 1000, 1000, 6
		run.Rate.TargetPerS = 4000
		r.Profile.Limiters = []result.LimiterInfo{{Name: "mine", Args: tc.args}}
		got := unitHint(r, run)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
		// A built-in is not hinted at.
		r.Profile.Limiters = nil
		if got := unitHint(r, run); got != "" {
			t.Errorf("%s: a built-in is hinted at: %q", tc.why, got)
		}
	}
	// Beside the first finding of the limiter, once.
	r := passingResult()
	run := &r.Runs[0]
	run.Algorithm, run.Identities, run.Series = "mine", 2, series(2000, 2, 2, 2, 2, 2)
	run.Params.Limit, run.Params.WindowMs, run.Params.DurationS = 1000, 1000, 6
	run.Rate.TargetPerS = 4000
	r.Profile.Limiters = []result.LimiterInfo{{Name: "mine", Args: []string{"${now_s}"}}}
	run.Audit.UnderAdmitted, run.Audit.ModelMismatches = 9000, 9000
	reasons := Assess(r).Reasons()
	if len(reasons) != 2 || !strings.Contains(reasons[0], "MISMATCH") || !strings.Contains(reasons[0], "check the unit of ${now_s}") || strings.Contains(reasons[1], "check the unit") {
		t.Errorf("reasons %q: want the hint beside the first finding only", reasons)
	}
}
