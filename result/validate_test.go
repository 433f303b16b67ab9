package result_test

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestDecodeRefusesImpossibleFigures: a count or a figure a run cannot
// measure (a negative one, or counts that do not add up) is refused on
// load, naming the field, instead of being rendered.
func TestDecodeRefusesImpossibleFigures(t *testing.T) {
	good, err := marshalResult(resulttest.Sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why, from, to, want string
	}{
		{"the issue's negative count", `"sent": 10`, `"sent": -10`,
			"runs[0] (fixed_window/steady): requests.sent is -10, and it cannot be negative"},
		{"a negative latency", `"p99": 1500`, `"p99": -1500`,
			"runs[0] (fixed_window/steady): latency_us.p99 is -1500, and it cannot be negative"},
		{"a negative rate", `"achieved_per_s": 0`, `"achieved_per_s": -3.5`,
			"runs[0] (fixed_window/steady): rate.achieved_per_s is -3.5, and it cannot be negative"},
		{"a negative error count", "\"count\": 1\n", "\"count\": -1\n",
			"runs[0] (fixed_window/steady): errors[0].count is -1, and it cannot be negative"},
		{"a negative policy", `"limit": 100`, `"limit": -100`,
			"profile.policy.limit is -100, and it cannot be negative"},
		{"counts that do not add up", `"allowed": 6`, `"allowed": 60`,
			"runs[0] (fixed_window/steady): requests.sent 10 is not allowed 60 + denied 3 + errors 1"},
	} {
		if !strings.Contains(good, tc.from) {
			t.Fatalf("%s: the sample has no %s", tc.why, tc.from)
		}
		_, err := result.Decode([]byte(strings.Replace(good, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.want)
		}
	}
}

// TestDecodeKeepsSignedFigures: what can rightly be negative (memory that
// shrank, a clock ahead of Redis) still loads, and so does the committed
// fixture of a real run.
func TestDecodeKeepsSignedFigures(t *testing.T) {
	r := resulttest.Sample()
	r.Runs[0].Memory = &result.Memory{Identities: 10, UsedMemoryDeltaBytes: -4096, ClientBuffersDeltaBytes: -100, BytesPerIdentity: -399.6}
	r.Runs[0].ClockOffset = &result.ClockOffset{OffsetUs: -250, UncertaintyUs: 40}
	r.Thresholds = []result.ThresholdResult{{Expression: "*/* memory.bytes_per_identity > 0", Run: "fixed_window/steady", Value: -399.6}}
	data, err := marshalResult(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.Decode([]byte(data)); err != nil {
		t.Errorf("signed figures refused: %v", err)
	}
	resulttest.Fixture(t)
}
