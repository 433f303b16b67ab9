package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// TestLeakFailsTheVerdict: a key without a TTL under a run prefix fails the
// result, and the probes' figures reach the contract unchanged.
func TestLeakFailsTheVerdict(t *testing.T) {
	p := &workload.Profile{Name: "x", Algorithms: []string{"fixed_window"}}
	for _, tc := range []struct {
		why   string
		leaks int64
		want  string
	}{
		{"every key expires", 0, report.Pass},
		{"one key never expires", 1, report.Fail},
	} {
		run := &workload.RunResult{
			Algorithm: "fixed_window",
			Scenario:  workload.Scenario{Name: "once-1k", Group: "once", Shape: workload.ShapeCardinality, Distribution: workload.SequentialIdentities},
			Memory: &workload.MemoryFigures{Identities: 1000, Keys: 1000 + tc.leaks, KeysWithoutTTL: tc.leaks, HaveUsedMemory: true,
				UsedMemoryDelta: 130_000, ClientBuffersDelta: 2_000, BytesPerIdentity: 128, Encodings: map[string]int64{"int": 1000}},
			Server: &workload.ServerFigures{CommandStat: redisenv.CommandStat{Calls: 1000, Usec: 3500}, StatsReset: true},
		}
		res := buildResult(p, &redisenv.Env{Mode: redisenv.Private}, "r1", time.Now(), []*workload.RunResult{run}, nil, nil)
		if res.Verdict != tc.want {
			t.Errorf("%s: verdict %s, want %s", tc.why, res.Verdict, tc.want)
		}
		got := res.Runs[0]
		if m := got.Memory; m == nil || m.KeysWithoutTTL != tc.leaks || m.UsedMemoryDeltaBytes != 130_000 ||
			m.ClientBuffersDeltaBytes != 2_000 || m.BytesPerIdentity != 128 || m.Encodings["int"] != 1000 {
			t.Errorf("%s: memory %+v", tc.why, got.Memory)
		}
		if s := got.Server; s == nil || s.Calls != 1000 || s.UsecPerCall != 3.5 || !s.StatsReset {
			t.Errorf("%s: server %+v", tc.why, got.Server)
		}
		if got.ScenarioGroup != "once" || got.Params.Distribution != "sequential" {
			t.Errorf("%s: group %q, distribution %q", tc.why, got.ScenarioGroup, got.Params.Distribution)
		}
	}
}

// TestRunCardinalityRecordsMemory runs a two-size cardinality profile end to
// end on a private redis-server and reads the figures back from the result.
func TestRunCardinalityRecordsMemory(t *testing.T) {
	redistest.ServerPath(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--out", out, writeProfile(t, `name: card
policy: {limit: 10, window: 1h}
algorithms: [fixed_window, token_bucket]
concurrency: 8
scenarios:
  - name: once
    shape: cardinality
    distribution: sequential
    identities: [500, 2000]
    repeats: 300
    rate: max
`))
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "card-*", "result.json"))
	if len(matches) != 1 {
		t.Fatalf("result files: %v", matches)
	}
	res, err := report.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs, want 2 sizes x 2 algorithms", len(res.Runs))
	}
	for _, r := range res.Runs {
		m, s := r.Memory, r.Server
		if m == nil || s == nil {
			t.Fatalf("%s: no memory or server figures", r.Key())
		}
		if m.Identities != int64(r.Identities) || m.Keys != m.Identities || m.KeysWithoutTTL != 0 {
			t.Errorf("%s: %d identities, %d keys, %d without TTL; want %d, %d, 0", r.Key(), m.Identities, m.Keys, m.KeysWithoutTTL, r.Identities, r.Identities)
		}
		if m.BytesPerIdentity <= 0 || m.UsedMemoryDeltaBytes <= 0 || m.MemoryUsageSampledBytes <= 0 || m.SampledKeys != min(r.Identities, 1000) {
			t.Errorf("%s: memory figures missing: %+v", r.Key(), m)
		}
		if m.RlbenchPeakHeapBytes == 0 || m.RlbenchPeakRSSBytes == 0 {
			t.Errorf("%s: rlbench's own memory not recorded: %+v", r.Key(), m)
		}
		if s.Calls != r.Requests.Sent || s.UsecPerCall <= 0 || !s.StatsReset {
			t.Errorf("%s: server %+v for %d requests", r.Key(), s, r.Requests.Sent)
		}
		if r.ScenarioGroup != "once" || r.Params.Distribution != "sequential" || r.Params.Repeats != 300 {
			t.Errorf("%s: group %q params %+v", r.Key(), r.ScenarioGroup, r.Params)
		}
	}
	// Columns are compared with their padding squeezed to two spaces.
	table := strings.Join(strings.Fields(stdout), "  ")
	for _, want := range []string{"B/identity", "bytes/identity  in  scenario  once", "fixed_window  once-500  500  500  0", "token_bucket  once-2k  2000  2000  0"} {
		if !strings.Contains(table, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
}
