package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// TestGeneratorNotes: a run in which rlbench waited for a CPU past
// CPUWaitNoted is noted, with the autogroup explanation only when the
// kernel groups by session; a run at the wait of a quiet machine is not.
func TestGeneratorNotes(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		why       string
		wait      float64
		autogroup *bool
		want      []string // substrings of the one note; nil: no note
	}{
		{"a quiet machine's wait is not worth a note", 0.15, &on, nil},
		{"starved, autogroups on: the note explains them", 0.47, &on,
			[]string{"a/s: rlbench waited for a CPU 47% of the traffic's time (it ran 51%)", "kernel.sched_autogroup_enabled=1", "A quiet machine"}},
		{"starved, autogroups off: no word of them", 0.47, &off,
			[]string{"rlbench waited for a CPU 47%", "partly the machine's"}},
		{"starved, a kernel that does not say", 0.30, nil,
			[]string{"rlbench waited for a CPU 30%"}},
	} {
		r := resulttest.Sample()
		r.Host.SchedAutogroup = tc.autogroup
		r.Runs = []result.Run{{Algorithm: "a", Scenario: "s", Generator: &result.Generator{CPUShare: 0.51, CPUWaitShare: tc.wait}}}
		notes := texts(generatorNotes(r, verdict.Assess(r)))
		if tc.want == nil {
			if len(notes) != 0 {
				t.Errorf("%s: %q", tc.why, notes)
			}
			continue
		}
		if len(notes) != 1 {
			t.Fatalf("%s: %d notes: %q", tc.why, len(notes), notes)
		}
		for _, w := range tc.want {
			if !strings.Contains(notes[0], w) {
				t.Errorf("%s: %q lacks %q", tc.why, notes[0], w)
			}
		}
		if has := strings.Contains(notes[0], "autogroup"); has != (tc.autogroup != nil && *tc.autogroup) {
			t.Errorf("%s: autogroups mentioned %v: %q", tc.why, has, notes[0])
		}
		found := false
		for _, n := range Notes(r) {
			found = found || n == notes[0]
		}
		if !found {
			t.Errorf("%s: the summary's notes lack it", tc.why)
		}
	}
}
