package html

import (
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestKeysWithoutTTLSaysWhatTheSummarySays holds the page's "keys without
// TTL" cell to the summary's word for a census that did not happen: a
// census the server refused is unavailable, one that failed is skipped,
// and either is flagged, not shown as a clean count.
func TestKeysWithoutTTLSaysWhatTheSummarySays(t *testing.T) {
	tests := []struct {
		name   string
		change func(run *result.Run)
		want   string
	}{
		{"counted", func(run *result.Run) { run.Memory.KeysWithoutTTL = 3 }, "3"},
		{"census refused", func(run *result.Run) {
			run.Memory.CensusFailed = true
			run.Unavailable = append(run.Unavailable, result.Unavailable{Figure: "memory.keys_without_ttl", Command: "SCAN",
				Reason: "NOPERM User bench has no permissions to run the 'scan' command"})
		}, "unavailable"},
		{"census failed", func(run *result.Run) { run.Memory.CensusFailed = true }, "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := resulttest.Fixture(t)
			var run *result.Run
			for i := range r.Runs {
				if r.Runs[i].Memory != nil && run == nil {
					run = &r.Runs[i]
				}
			}
			if run == nil {
				t.Fatal("the fixture has no run with memory figures")
			}
			tt.change(run)
			p := newPage(r, nil, RenderOptions{})
			var found bool
			for _, s := range p.Scenarios {
				for _, row := range s.Rows {
					if row.Algorithm != run.Algorithm || s.Name != run.Scenario {
						continue
					}
					found = true
					if row.KeysNoTTL != tt.want {
						t.Errorf("keys without TTL: %q, want %q", row.KeysNoTTL, tt.want)
					}
					if flagged := tt.want != "3" || run.Memory.KeysWithoutTTL > 0; row.BadTTL != flagged {
						t.Errorf("flagged %v, want %v", row.BadTTL, flagged)
					}
				}
			}
			if !found {
				t.Fatalf("no row of %s/%s on the page", run.Algorithm, run.Scenario)
			}
		})
	}
}
