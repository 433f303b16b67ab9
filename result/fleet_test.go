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

// TestSkewTolerances: per sweep and limiter, the largest skew up to which
// every step held (no overshoot, no under-admission), in the order of the
// skews whatever the order of the runs; none when the smallest step
// failed; every step when all held; a step without an audit holds nothing.
func TestSkewTolerances(t *testing.T) {
	step := func(alg string, skewMs float64, over, under int64, audited bool) result.Run {
		r := result.Run{Algorithm: alg, Scenario: "sweep-skew", Fleet: &result.Fleet{Sweep: "sweep", ClockSkewMs: skewMs}}
		if audited {
			r.Audit = &result.Audit{Overshoot: over, UnderAdmitted: under, MaxWindowAdmitted: 100 + over, BoundWindow: 100}
		}
		return r
	}
	runs := []result.Run{
		step("server", 500, 0, 0, true), step("client", 500, 40, 0, true), step("early", 500, 0, 0, true), step("blind", 500, 0, 0, true),
		step("server", 0, 0, 0, true), step("client", 0, 0, 0, true), step("early", 0, 3, 0, true), step("blind", 0, 0, 0, true),
		step("server", 50, 0, 0, true), step("client", 50, 0, 2, true), step("early", 50, 0, 0, true), step("blind", 50, 0, 0, false),
		{Algorithm: "server", Scenario: "other"},
	}
	got := result.SkewTolerances(runs)
	want := map[string]struct {
		tolerated bool
		ms        float64
		all       bool
		first     float64
	}{
		"server": {true, 500, true, -1},
		"client": {true, 0, false, 50},
		"early":  {false, 0, false, 0},
		"blind":  {true, 0, false, 50},
	}
	if len(got) != len(want) {
		t.Fatalf("%d tolerances, want %d: %+v", len(got), len(want), got)
	}
	for _, g := range got {
		w := want[g.Algorithm]
		first := -1.0
		if g.FirstFailure != nil {
			first = g.FirstFailure.SkewMs
		}
		if g.Sweep != "sweep" || g.Tolerated != w.tolerated || g.ToleratedMs != w.ms || g.AllHeld != w.all || first != w.first ||
			len(g.Steps) != 3 || g.Steps[0].SkewMs != 0 || g.Steps[2].SkewMs != 500 {
			t.Errorf("%s: %+v, want %+v", g.Algorithm, g, w)
		}
	}
}
