// Package resulttest gives tests of result readers two results: a small
// hand-made one to vary, and the committed fixture, a real run of
// profiles/smoke.yaml (written by tools/fixture).
package resulttest

import (
	"fmt"
	"path/filepath"
	"runtime"
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

// FixtureFile is the fixture's path on this machine.
func FixtureFile() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", FixturePath)
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
