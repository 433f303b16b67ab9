package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// SettledShare is how far past the policy a bucket's steady run may
// admit, as a share of what the policy allows, for its figures to count as
// settled: a bucket starts full, and over K windows admits about 1 +
// burst / (limit × K) times what the policy allows in the long run, so a
// bucket whose burst is its limit settles within 5% after 20 windows
// (measured in docs/profiles.md, "How long a steady run must be").
const SettledShare = 0.05

// kindShortRun notes the steady runs of a bucket too short for its first
// window's burst to weigh little.
var kindShortRun = &noteKind{title: "steady runs too short for a bucket's figures to settle",
	explain: "a bucket starts full, so its first window admits its whole burst besides what refills; over K windows it admits about 1 + burst / (limit x K) " +
		"times what the policy allows in the long run, and its over-policy and wrong-vs-ideal figures overstate what it lets through " +
		"(within 5% after 20 windows when its burst is its limit: see How long a steady run must be, docs/profiles.md)"}

// bucketFamilies are the semantics whose limiters start with a burst to
// spend: a declared limiter's, or a built-in's name and its variants
// (token_bucket_client_time).
var bucketFamilies = []string{"token_bucket", "leaky_bucket", "gcra"}

// isBucket reports whether alg's limiter is a bucket: a declared limiter
// by its semantics, a built-in by its family's name.
func isBucket(r *result.Result, alg string) bool {
	for _, l := range r.Profile.Limiters {
		if l.Name == alg {
			return slices.Contains(bucketFamilies, l.Semantics)
		}
	}
	for _, f := range bucketFamilies {
		if alg == f || strings.HasPrefix(alg, f+"_") {
			return true
		}
	}
	return false
}

// shortRunNote notes run when it is a bucket's steady run too short for
// its first window's burst to add less than SettledShare to what it
// admits, with what it may add and how long a run would settle it; false
// otherwise.
func shortRunNote(r *result.Result, run *result.Run) (note, bool) {
	p := r.RunPolicy(run)
	if run.Shape != "steady" || run.Audit == nil || run.Params.DurationS <= 0 || p.WindowMs <= 0 || p.Limit <= 0 || !isBucket(r, run.Algorithm) {
		return note{}, false
	}
	windows := run.Params.DurationS * 1000 / float64(p.WindowMs)
	burst := p.Burst
	if burst <= 0 {
		burst = p.Limit
	}
	over := 1 + float64(burst)/(float64(p.Limit)*windows)
	if over <= 1+SettledShare {
		return note{}, false
	}
	settled := FormatMillis(int64(math.Ceil(float64(burst)/(float64(p.Limit)*SettledShare))) * p.WindowMs)
	detail := fmt.Sprintf("%s: %gs, %.3g windows of %s: up to %.2fx what the policy allows over the run; %s would settle it",
		run.Key(), run.Params.DurationS, windows, FormatMillis(p.WindowMs), over, settled)
	return note{kind: kindShortRun, where: run.Key(), detail: detail,
		text: fmt.Sprintf("%s (a bucket starts full: %s)", strings.TrimSuffix(detail, "; "+settled+" would settle it"), "run it "+settled+" for figures that settled")}, true
}
