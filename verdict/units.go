package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// cleanFactors are the ratios between time units a script can confuse: a
// minute and a second, a second and a millisecond, an hour and a second, a
// minute and a millisecond, a second and a microsecond.
var cleanFactors = []float64{60, 1000, 3600, 60_000, 1_000_000}

// factorSlack is how far from a clean factor a measured ratio may be and
// still be taken for it: the admissions of a few seconds are counted in
// whole requests.
const factorSlack = 0.25

// unitHint says, for a user's limiter whose sustained admissions were a
// clean factor (1000x, 60x, ...) off what its policy allows at the offered
// rate, which argument's unit to check: the caller's time it takes
// (${now_*}), or the window. Sustained admissions are those of the whole
// seconds after the first window (an idle identity's first burst aside).
// "" when the limiter is a built-in, or the factor is not clean.
func unitHint(r *result.Result, run *result.Run) string {
	var decl *result.LimiterInfo
	for i := range r.Profile.Limiters {
		if r.Profile.Limiters[i].Name == run.Algorithm {
			decl = &r.Profile.Limiters[i]
		}
	}
	p := run.Params
	if decl == nil || p.Limit <= 0 || p.WindowMs <= 0 || run.Identities <= 0 || run.Rate.TargetPerS <= 0 {
		return ""
	}
	from := int((p.WindowMs + 999) / 1000)
	var allowed int64
	seconds := 0
	for _, s := range run.Series {
		if s.TS >= from && float64(s.TS+1) <= p.DurationS {
			allowed += s.Allowed
			seconds++
		}
	}
	if seconds < 2 || allowed == 0 {
		return ""
	}
	sustained := float64(allowed) / float64(seconds)
	allows := min(float64(run.Identities)*float64(p.Limit)*1000/float64(p.WindowMs), run.Rate.TargetPerS)
	ratio, what := allows/sustained, "fewer"
	if ratio < 1 {
		ratio, what = 1/ratio, "more"
	}
	factor := 0.0
	for _, f := range cleanFactors {
		if math.Abs(ratio/f-1) <= factorSlack {
			factor = f
		}
	}
	if factor == 0 {
		return ""
	}
	var now, window []string
	for _, a := range decl.Args {
		switch {
		case strings.Contains(a, "${now_"):
			now = append(now, a)
		case strings.Contains(a, "${window_"), strings.Contains(a, "${rate_per_"):
			window = append(window, a)
		}
	}
	check := "the unit of the window its script counts in"
	switch {
	case len(now) > 0 && len(window) > 0:
		check = "the unit of " + strings.Join(now, ", ") + " (or of " + strings.Join(window, ", ") + ")"
	case len(now) > 0:
		check = "the unit of " + strings.Join(now, ", ") + " (or of the window its script counts in)"
	case len(window) > 0:
		check = "the unit of " + strings.Join(window, ", ")
	}
	return fmt.Sprintf(" — past its first window it admitted %s a second where its policy allows %s at the offered rate, about %s %s, as if a time were read in the wrong unit: check %s",
		fmtRate(sustained), fmtRate(allows), timesOf(factor), what, check)
}

// fmtRate writes requests a second to three significant figures.
func fmtRate(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
