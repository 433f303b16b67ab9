package result_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// withFleet gives every run of r a fleet of two instances, the second's
// figures k times the first's.
func withFleet(r *result.Result, k int64) {
	for i := range r.Runs {
		r.Runs[i].Fleet = &result.Fleet{Instances: 2, ClockSkewMs: 50, Sweep: "sweep", TakesTime: true,
			PerInstance: []result.FleetInstance{
				{OffsetMs: -50, Sent: 10, Allowed: 4, InExcess: 1},
				{OffsetMs: 50, Sent: 10 * k, Allowed: 4 * k, InExcess: k},
			}}
	}
}

// TestMergeSegmentsAddsTheFleetByInstance: segments of one load ran one
// fleet over disjoint identities: each instance's requests, admissions and
// part in the excess add up, its clock is the one fleet's, and the parts
// are left as they were.
func TestMergeSegmentsAddsTheFleetByInstance(t *testing.T) {
	parts := segments(t, 2)
	withFleet(parts[0], 2)
	withFleet(parts[1], 3)
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	f := merged.Runs[0].Fleet
	want := []result.FleetInstance{
		{OffsetMs: -50, Sent: 20, Allowed: 8, InExcess: 2},
		{OffsetMs: 50, Sent: 50, Allowed: 20, InExcess: 5},
	}
	if f == nil || f.Instances != 2 || f.ClockSkewMs != 50 || f.Sweep != "sweep" || !f.TakesTime || len(f.PerInstance) != 2 ||
		f.PerInstance[0] != want[0] || f.PerInstance[1] != want[1] {
		t.Errorf("merged fleet %+v, want the instances %+v", f, want)
	}
	if got := parts[0].Runs[0].Fleet.PerInstance[1].Sent; got != 20 {
		t.Errorf("merging changed a segment's instance: sent %d, want 20", got)
	}
}

// TestValidateRefusesAFleetOfOtherInstances: per_instance must list the
// instances the fleet says it has.
func TestValidateRefusesAFleetOfOtherInstances(t *testing.T) {
	r := segments(t, 1)[0]
	withFleet(r, 1)
	r.Runs[0].Fleet.Instances = 3
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.Decode(data); err == nil || !strings.Contains(err.Error(), "fleet.per_instance has 2 instances") {
		t.Errorf("a fleet of 3 listing 2: %v", err)
	}
}
