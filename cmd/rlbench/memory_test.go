package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestRunCardinalityRecordsMemory runs a two-size cardinality profile end to
// end on a private redis-server and reads the figures back from the result
// and the summary (report/html draws the memory curve of such a result).
func TestRunCardinalityRecordsMemory(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, writeProfile(t, `name: card
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
	res, err := result.ReadFile(matches[0])
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
		// Below result.MinIdentitiesForBytes identities memory per identity
		// is not shown, and used_memory is read without waiting for it to
		// settle: only the larger run's delta must be real.
		if (r.Identities >= result.MinIdentitiesForBytes && (m.BytesPerIdentity <= 0 || m.UsedMemoryDeltaBytes <= 0)) ||
			m.MemoryUsageSampledBytes <= 0 || m.SampledKeys != min(r.Identities, 1000) {
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
