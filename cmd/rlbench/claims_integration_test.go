//go:build integration

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestIntegrationClaimsCloudflare runs profiles/claims/cloudflare.yaml as
// shipped: the synthetic trace's 18,020 requests through the sliding
// counter, the fixed window, the token bucket and the sliding log, each
// decision set beside the ideal sliding window, run on the same arrivals.
// The sliding log decides every one as the ideal does; every other figure
// is as measured, logged for docs/results.md, and held only to what the
// comparison guarantees (its counts within its decisions, every decision
// of the run compared, at the server's times).
func TestIntegrationClaimsCloudflare(t *testing.T) {
	res, summary := runShipped(t, "../../profiles/claims/cloudflare.yaml")
	var limiters []string
	for _, r := range res.Runs {
		limiters = append(limiters, r.Algorithm)
		a := r.Accuracy
		if a == nil || a.Ideal != result.IdealSlidingWindow || a.Decisions != r.Requests.Sent || r.Requests.Sent == 0 || !a.ExactTimes || a.Sampled {
			t.Errorf("%s: accuracy %+v of %d requests: want every one compared, at the server's times", r.Key(), a, r.Requests.Sent)
			continue
		}
		if r.Algorithm == "sliding_log" && a.Wrong() != 0 {
			t.Errorf("sliding_log: %d false admits, %d false denies beside the ideal it decides as", a.FalseAdmits, a.FalseDenies)
		}
		t.Logf("%s: %d of %d decisions wrong (%.4f%%: %d false admits, %d false denies); %d identities near the threshold, mean rate difference %.1f%%; %d of %d below it limited",
			r.Algorithm, a.Wrong(), a.Decisions, 100*a.WrongShare, a.FalseAdmits, a.FalseDenies,
			a.NearThresholdIdentities, 100*a.NearThresholdRateDiff, a.LimitedBelowThreshold, a.BelowThresholdIdentities)
	}
	if want := []string{"sliding_counter", "fixed_window", "token_bucket", "sliding_log"}; !slices.Equal(limiters, want) {
		t.Errorf("limiters %v, want %v", limiters, want)
	}
	if !strings.Contains(string(summary), "wrong vs ideal") || !strings.Contains(string(summary), "run on the same arrivals") {
		t.Errorf("the summary does not set the limiters beside the ideal:\n%s", summary)
	}
}
