package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestTheEvictionNoteNamesThePolicyInForce: the note on eviction names
// the policies the runs met, as each run read them around its traffic,
// not the one read when rlbench connected; without those readings, the
// one read then.
func TestTheEvictionNoteNamesThePolicyInForce(t *testing.T) {
	for _, tc := range []struct {
		why      string
		atStart  string
		runs     []*result.Eviction
		want     string
		wantNone bool
	}{
		{"set to evict after rlbench connected", "noeviction",
			[]*result.Eviction{{PolicyBefore: "allkeys-lru", PolicyAfter: "allkeys-lru"}},
			"maxmemory-policy was allkeys-lru during the runs", false},
		{"set back to noeviction before the runs", "allkeys-lru",
			[]*result.Eviction{{PolicyBefore: "noeviction", PolicyAfter: "noeviction"}}, "", true},
		{"changed between two runs", "noeviction",
			[]*result.Eviction{{PolicyBefore: "volatile-lru", PolicyAfter: "volatile-lru"}, {PolicyBefore: "volatile-lru", PolicyAfter: "allkeys-lfu"}},
			"maxmemory-policy was volatile-lru, then allkeys-lfu during the runs", false},
		{"no readings around the runs", "allkeys-random", []*result.Eviction{nil},
			"maxmemory-policy was allkeys-random during the runs", false},
	} {
		r := resulttest.Sample()
		r.Redis.MaxmemoryPolicy = tc.atStart
		base := r.Runs[0]
		r.Runs = nil
		for i, e := range tc.runs {
			run := base
			run.Scenario = string(rune('a' + i))
			run.Eviction = e
			r.Runs = append(r.Runs, run)
		}
		var buf bytes.Buffer
		if err := WriteSummary(&buf, r); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if tc.wantNone && strings.Contains(got, "maxmemory-policy was") {
			t.Errorf("%s: a note on a policy the runs did not meet:\n%s", tc.why, got)
		}
		if !tc.wantNone && !strings.Contains(got, tc.want) {
			t.Errorf("%s: no %q in:\n%s", tc.why, tc.want, got)
		}
	}
}
