package report

import "github.com/rlbench/rlbench/result"

// Verdict is pass when the result is complete, no run left a key without a
// TTL or wrote one outside its prefix, and every threshold held. It reads
// the contract's values, never the text a summary prints about them.
func Verdict(r *result.Result) string {
	if !r.Complete {
		return result.Fail
	}
	for i := range r.Runs {
		if m := r.Runs[i].Memory; m != nil && (m.KeysWithoutTTL > 0 || m.KeysOutsidePrefix > 0) {
			return result.Fail
		}
	}
	for _, t := range r.Thresholds {
		if !t.OK {
			return result.Fail
		}
	}
	return result.Pass
}

// Judge evaluates the thresholds on r's runs and sets its verdict.
func Judge(r *result.Result, thresholds []*result.Threshold) {
	r.Thresholds = result.Evaluate(r, thresholds)
	r.Verdict = Verdict(r)
}
