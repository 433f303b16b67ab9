package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// A replay's scenario names its trace, how it was read and its speed.
func TestDescribeReplayScenario(t *testing.T) {
	run := &result.Run{Shape: "replay", Identities: 1015, Params: result.Params{Rate: "363.5/s", DurationS: 30,
		Replay: &result.ReplayParams{Trace: "profiles/traces/synthetic.csv.gz", Format: "csv", Requests: 10905, Speed: 4}}}
	got := describeScenario(run)
	want := "shape replay, trace synthetic.csv.gz (csv, 10,905 requests a pass) at 4x, rate 364/s"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to start %q", got, want)
	}
}
