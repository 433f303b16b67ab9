//go:build integration

package main

import (
	"slices"
	"testing"
)

// TestIntegrationReplayProfile runs profiles/replay.yaml as shipped: the
// shipped trace's 10,905 requests from its 1,015 callers go through the
// four default limiters and the sliding counter, each of which keeps its
// bound and agrees with its model on them.
func TestIntegrationReplayProfile(t *testing.T) {
	res, _ := runShipped(t, "../../profiles/replay.yaml")
	var limiters []string
	for _, r := range res.Runs {
		limiters = append(limiters, r.Algorithm)
		q := r.Requests
		if q.Planned != 10905 || q.Sent != 10905 || r.Identities != 1015 || r.Params.Replay == nil || r.Params.Replay.Speed != 4 {
			t.Errorf("%s: planned %d, sent %d, %d identities, replay %+v", r.Key(), q.Planned, q.Sent, r.Identities, r.Params.Replay)
		}
		if a := r.Audit; a == nil || a.Identities != 1015 || a.Overshoot != 0 || a.ModelMismatches != 0 {
			t.Errorf("%s: audit %+v", r.Key(), a)
		}
	}
	if want := []string{"fixed_window", "sliding_log", "token_bucket", "leaky_bucket", "sliding_counter"}; !slices.Equal(limiters, want) {
		t.Errorf("limiters %v, want %v", limiters, want)
	}
}
