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
	t.Run("past the policy and p99", testCostsExcessAndP99)
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
	if b := c["b"]; b.HaveExcess || b.Replayed {
		t.Errorf("b was never audited: %+v", *b)
	}
	if b := c["b"]; !b.HaveServer || b.UsecPerCall != 4.5 || b.HaveAccuracy || b.HaveMemory {
		t.Errorf("old result: %+v, want its time per call and nothing else", *b)
	}
}

// testCostsExcessAndP99: how far one identity got past the policy is the
// most of the audited runs; the worst p99 leaves out a run whose
// generator slipped (it measured its own queue), which is said instead;
// replayed says some run had a model.
func testCostsExcessAndP99(t *testing.T) {
	r := &result.Result{Profile: result.ProfileInfo{Policy: result.PolicyInfo{Limit: 100, WindowMs: 1000}}}
	r.Runs = []result.Run{
		{Algorithm: "a", Scenario: "steady", Audit: &result.Audit{PolicyExcess: 3, Basis: result.AuditByBound},
			Requests: result.Requests{Sent: 1000}, LatencyUs: result.Latency{Count: 1000, P99: 900}},
		// the generator slipped: its 50ms p99 is its own queue
		{Algorithm: "a", Scenario: "burst", Audit: &result.Audit{PolicyExcess: 40, ExpectedAllowed: 5},
			Requests: result.Requests{Sent: 1000, Late: 500}, LatencyUs: result.Latency{Count: 1000, P99: 50_000}},
		{Algorithm: "a", Scenario: "many", Audit: &result.Audit{PolicyExcess: 0, Basis: result.AuditByBound},
			Requests: result.Requests{Sent: 1000}, LatencyUs: result.Latency{Count: 1000, P99: 1200}},
	}
	a := AlgorithmCosts(r)["a"]
	if !a.HaveExcess || a.PolicyExcess != 40 || a.ExcessScenario != "burst" {
		t.Errorf("past the policy %d in %q, want 40 in burst", a.PolicyExcess, a.ExcessScenario)
	}
	if !a.HaveP99 || a.WorstP99Us != 1200 || a.P99Scenario != "many" || !a.Slipped {
		t.Errorf("worst p99 %d in %q (slipped %v), want 1200 in many, and the slip said", a.WorstP99Us, a.P99Scenario, a.Slipped)
	}
	if !a.Replayed {
		t.Error("the burst run was replayed against a model, but the costs say not")
	}
}
