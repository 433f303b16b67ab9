package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

func TestHeavyKeyNotes(t *testing.T) {
	// A sliding log measured at 1,000 identities of one stamp each, beside
	// a steady run whose identities held 40 stamps.
	base := func(steadyKeyBytes float64, keysPerIdentity int64) *result.Result {
		return &result.Result{Profile: result.ProfileInfo{Policy: result.PolicyInfo{Limit: 50, WindowMs: 10000}},
			Runs: []result.Run{
				{Algorithm: "sliding_log", Scenario: "many", Identities: 1000,
					Memory: &result.Memory{Identities: 1000, Keys: 1000, BytesPerIdentity: 186, MemoryUsageSampledBytes: 125}},
				{Algorithm: "sliding_log", Scenario: "steady", Identities: 20,
					Memory: &result.Memory{Identities: 20, Keys: 20 * keysPerIdentity, MemoryUsageSampledBytes: steadyKeyBytes}},
			}}
	}
	tests := []struct {
		name            string
		steadyKeyBytes  float64
		keysPerIdentity int64
		want            string // "" for no note
	}{
		{"a log of 40 stamps", 1116, 1, "sliding_log: 186 B per identity comes from many; in steady each identity's keys held 1.09 KiB (6.0x): at 1k identities that traffic would take more than 1.06 MiB, not 182 KiB"},
		// Keys per identity count: two keys of 200 B are 400 B an identity.
		{"two keys an identity", 200, 2, "held 400 B (2.2x)"},
		// Under twice the figure: no note.
		{"about the same", 300, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := heavyKeyNotes(base(tt.steadyKeyBytes, tt.keysPerIdentity))
			switch {
			case tt.want == "" && len(notes) > 0:
				t.Errorf("want no note, got %q", notes[0].text)
			case tt.want != "" && len(notes) != 1:
				t.Errorf("want one note with %q, got %d", tt.want, len(notes))
			case tt.want != "" && !strings.Contains(notes[0].text, tt.want):
				t.Errorf("want a note with %q, got %q", tt.want, notes[0].text)
			}
		})
	}
}
