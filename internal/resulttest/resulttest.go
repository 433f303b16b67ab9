// Package resulttest gives tests of result readers two results: a small
// hand-made one to vary, and the committed fixture, a real run of
// profiles/smoke.yaml (written by tools/fixture).
package resulttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlbench/rlbench/result"
)

// FixturePath is the committed fixture, relative to the module root.
const FixturePath = "report/testdata/result.json"

// Sample is a small complete result with one run, for tests to change.
func Sample() *result.Result {
	return &result.Result{
		Schema:    result.Schema,
		Tool:      result.Tool{Name: "rlbench", Version: "test"},
		Profile:   result.ProfileInfo{Name: "demo", Policy: result.PolicyInfo{Limit: 100, WindowMs: 1000, Burst: 100}},
		Redis:     result.RedisInfo{Mode: "private", Version: "7.0.15", Addr: "127.0.0.1:1"},
		StartedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Complete:  true,
		Runs: []result.Run{{
			Algorithm: "fixed_window", Scenario: "steady", Shape: "steady",
			Requests:  result.Requests{Sent: 10, Allowed: 6, Denied: 3, Errors: 1},
			LatencyUs: result.Latency{Count: 10, P50: 250, P99: 1500, P999: 2500000, Max: 2500000},
			Errors:    []result.ErrorCount{{Message: "i/o timeout", Count: 1}},
		}},
		Thresholds: []result.ThresholdResult{},
		Verdict:    result.Pass,
	}
}

// Fixture reads the committed fixture; each caller gets its own copy.
func Fixture(t testing.TB) *result.Result {
	t.Helper()
	r, err := result.ReadFile(FixtureFile())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FixtureFile is the fixture's path on this machine: under the module
// root, the first folder from the working directory up that holds go.mod
// (a test runs in its package's folder, tools/fixture in the root). The
// source file's own path would not do: builds with -trimpath name it by
// import path.
func FixtureFile() string {
	dir, err := os.Getwd()
	if err != nil {
		return FixturePath
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, FixturePath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return FixturePath
		}
		dir = parent
	}
}

// Many is the fixture repeated until it holds at least scenarios
// scenarios (each copy's scenarios renamed c<copy>-<name>), with every
// run's figures: a large result, for tests and benchmarks of what reads
// one.
func Many(t testing.TB, scenarios int) *result.Result {
	t.Helper()
	base := Fixture(t)
	r := *base
	r.Runs = nil
	names := map[string]bool{}
	for copyN := 0; len(names) < scenarios; copyN++ {
		for _, run := range base.Runs {
			if len(names) >= scenarios && !names[fmt.Sprintf("c%04d-%s", copyN, run.Scenario)] {
				continue
			}
			run.Scenario = fmt.Sprintf("c%04d-%s", copyN, run.Scenario)
			names[run.Scenario] = true
			r.Runs = append(r.Runs, run)
		}
	}
	return &r
}

// ClusterMasters are the masters of the cluster Clustered ran on.
var ClusterMasters = []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}

// Clustered is the fixture as if it had run on a Redis Cluster of three
// masters: every run's decisions and keys split evenly over them, except
// in the fixture's first scenario, where a fixed hash tag put them all on
// the first master.
func Clustered(t testing.TB) *result.Result {
	t.Helper()
	r := Fixture(t)
	r.Redis.Cluster = &result.ClusterInfo{Masters: 3, Nodes: ClusterMasters}
	r.Redis.Addr = ClusterMasters[0] + "," + ClusterMasters[1] + "," + ClusterMasters[2]
	first := r.Runs[0].Scenario
	for i := range r.Runs {
		run := &r.Runs[i]
		c := &result.Cluster{HashTag: "identity", Redirections: result.Redirections{Moved: int64(i % 2)}}
		for j, addr := range ClusterMasters {
			n := result.NodeFigures{Addr: addr, UsecPerCall: 10 + float64(j)}
			switch {
			case run.Scenario == first && j == 0:
				n.Calls, n.KeysDelta = run.Requests.Sent, int64(run.Identities)
			case run.Scenario != first:
				n.Calls, n.KeysDelta = run.Requests.Sent/3, int64(run.Identities/3)
			}
			c.Nodes = append(c.Nodes, n)
		}
		if run.Scenario == first {
			c.HashTag = "fixed"
		}
		c.SetShares()
		run.Cluster = c
		run.Params.HashTag = c.HashTag
	}
	return r
}

// Swept is a result of a sweep of clock skews (0, ±50ms, ±500ms) of a
// fleet of two instances: fixed_window, which reads Redis TIME, holds at
// every step; fixed_window_client_time, which trusts its callers' clocks,
// holds at 0 and goes past its bound of 200 from ±50ms on, its model
// agreeing with every decision.
func Swept() *result.Result {
	r := Sample()
	r.Profile.Algorithms = []string{"fixed_window", "fixed_window_client_time"}
	r.Runs = nil
	for _, step := range []struct {
		name   string
		skewMs float64
		client int64
	}{{"sweep-skew0", 0, 190}, {"sweep-skew50ms", 50, 303}, {"sweep-skew500ms", 500, 2299}} {
		for _, alg := range []string{"fixed_window", "fixed_window_client_time"} {
			most, takes := int64(120), false
			if alg == "fixed_window_client_time" {
				most, takes = step.client, true
			}
			over := max(most-200, 0)
			r.Runs = append(r.Runs, result.Run{
				Algorithm: alg, Scenario: step.name, Shape: "steady", Identities: 2,
				Requests:  result.Requests{Sent: 12000, Allowed: 4000 + over, Denied: 8000 - over},
				LatencyUs: result.Latency{Count: 12000, P50: 250, P99: 900, P999: 1200, Max: 2000},
				Audit: &result.Audit{Identities: 2, Decisions: 12000, Allowed: 4000 + over, ExpectedAllowed: 4000 + over,
					MaxWindowAdmitted: most, BoundWindow: 200, Overshoot: over, Violations: min(over, 2), PolicyExcess: most - 100,
					Coverage: 1, Basis: result.AuditByModel, Power: &result.Power{OfferedMaxInWindow: 2000, Replayed: true, ExpectedDenied: 10, Excess: true, Shortfall: true}},
				Fleet: &result.Fleet{Instances: 2, ClockSkewMs: step.skewMs, Sweep: "sweep", TakesTime: takes,
					PerInstance: []result.FleetInstance{
						{OffsetMs: -step.skewMs, Sent: 6000, Allowed: 2000 + over/2, InExcess: (most / 2) * min(over, 1)},
						{OffsetMs: step.skewMs, Sent: 6000, Allowed: 2000 + over - over/2, InExcess: (most - most/2) * min(over, 1)},
					}},
			})
		}
	}
	return r
}

// Dashed are results whose tables hold a dash for every reason the
// summary and the page know, by name: the committed fixture, the oldest
// result (report/testdata/wave1-result.json), and the fixture with one
// figure taken from token_bucket's runs as each cause takes it.
func Dashed(t testing.TB) map[string]*result.Result {
	t.Helper()
	out := map[string]*result.Result{}
	out["fixture"] = Fixture(t)
	wave1, err := result.ReadFile(filepath.Join(filepath.Dir(FixtureFile()), "wave1-result.json"))
	if err != nil {
		t.Fatal(err)
	}
	out["wave1"] = wave1
	vary := func(name string, change func(r *result.Result, run *result.Run)) {
		r := Fixture(t)
		// Every run set beside the ideal and with its power, so that the
		// change is the one cause of a dash in its column.
		for i := range r.Runs {
			run := &r.Runs[i]
			if run.Audit != nil {
				run.Accuracy = &result.Accuracy{Ideal: result.IdealSlidingWindow, Identities: 1, Decisions: run.Requests.Decisions(), FalseAdmits: 1}
				run.Audit.Power = &result.Power{OfferedMaxInWindow: 200}
			}
			run.Memory.RlbenchPeakRSSBytes = 1 << 20
		}
		for i := range r.Runs {
			if r.Runs[i].Algorithm == "token_bucket" {
				change(r, &r.Runs[i])
			}
		}
		out[name] = r
	}
	vary("no accuracy", func(_ *result.Result, run *result.Run) { run.Accuracy = nil })
	vary("every decision in a fault", func(_ *result.Result, run *result.Run) {
		run.Accuracy = &result.Accuracy{Ideal: result.IdealSlidingWindow, FaultDecisions: 40}
	})
	vary("not audited", func(_ *result.Result, run *result.Run) { run.Audit, run.Accuracy = nil, nil })
	vary("no power", func(_ *result.Result, run *result.Run) { run.Audit.Power = nil })
	vary("no latency", func(_ *result.Result, run *result.Run) {
		run.Requests = result.Requests{Sent: 40, Errors: 40}
		run.LatencyUs = result.Latency{}
	})
	vary("slipped", func(_ *result.Result, run *result.Run) { run.Requests.Late = run.Requests.Sent })
	vary("server not read", func(_ *result.Result, run *result.Run) { run.Memory, run.Server = nil, nil })
	vary("no server figures", func(_ *result.Result, run *result.Run) { run.Server = nil })
	vary("census failed", func(_ *result.Result, run *result.Run) { run.Memory.CensusFailed = true })
	vary("keys expired", func(_ *result.Result, run *result.Run) {
		run.Memory.Keys, run.Memory.Identities, run.Memory.ExpiredKeys, run.Memory.SampledKeys = 0, 0, 30, 0
		run.Memory.MemoryUsageSampledBytes, run.Memory.Encodings = 0, nil
	})
	vary("no RSS", func(_ *result.Result, run *result.Run) { run.Memory.RlbenchPeakRSSBytes = 0 })
	vary("embedded", func(r *result.Result, _ *result.Run) { r.Redis.Mode = "embedded" })
	return out
}
