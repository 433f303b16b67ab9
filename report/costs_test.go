package report

import (
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestAlgorithmCosts: accuracy from the audited run that went furthest
// past its own policy's limit, memory from the run that held the most
// identities, server time over all runs; a result written before the
// server's usec was recorded still gives its time per call.
func TestAlgorithmCosts(t *testing.T) {
	r := &result.Result{Profile: result.ProfileInfo{Policy: result.PolicyInfo{Limit: 100, WindowMs: 1000}}}
	r.Runs = []result.Run{
		// 150 of the profile's 100
		{Algorithm: "a", Scenario: "steady", Audit: &result.Audit{MaxWindowAdmitted: 150},
			Server: &result.Server{Calls: 100, Usec: 300, UsecPerCall: 3}},
		// 19 of its own 10 is further past its policy
		{Algorithm: "a", Scenario: "many", Params: result.Params{Limit: 10}, Audit: &result.Audit{MaxWindowAdmitted: 19},
			Memory: &result.Memory{Identities: 100_000, BytesPerIdentity: 60},
			Server: &result.Server{Calls: 300, Usec: 300, UsecPerCall: 1}},
		// fewer identities: noisier memory, not taken
		{Algorithm: "a", Scenario: "few", Memory: &result.Memory{Identities: 2_000, BytesPerIdentity: 90}},
		// an old result: no usec, only the time per call
		{Algorithm: "b", Scenario: "steady", Server: &result.Server{Calls: 10, UsecPerCall: 4.5}},
	}
	c := AlgorithmCosts(r)
	a := c["a"]
	if !a.HaveAccuracy || a.MostPerLimit != 1.9 || a.MostScenario != "many" {
		t.Errorf("accuracy %v in %q, want 1.9 in many", a.MostPerLimit, a.MostScenario)
	}
	if !a.HaveMemory || a.BytesPerIdentity != 60 || a.MemoryScenario != "many" {
		t.Errorf("memory %v in %q, want 60 in many", a.BytesPerIdentity, a.MemoryScenario)
	}
	if !a.HaveServer || a.UsecPerCall != 1.5 {
		t.Errorf("server %v, want 600us over 400 calls", a.UsecPerCall)
	}
	if b := c["b"]; !b.HaveServer || b.UsecPerCall != 4.5 || b.HaveAccuracy || b.HaveMemory {
		t.Errorf("old result: %+v, want its time per call and nothing else", *b)
	}
}
