package result_test

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestUnavailableFiguresReadAsAbsent: a figure a refused command would
// have measured is absent to a threshold or a comparison (FieldValue), as
// is everything in a section named unavailable, and memory per identity
// without used_memory is not shown; a figure measured reads as it is.
func TestUnavailableFiguresReadAsAbsent(t *testing.T) {
	run := &result.Run{
		Memory: &result.Memory{Identities: 5000, Keys: 5000, UsedMemoryDeltaBytes: 0, BytesPerIdentity: 0, MemoryUsageSampledBytes: 0, UsedMemoryUnread: true},
		Server: &result.Server{UsecPerCall: 3},
		Unavailable: []result.Unavailable{
			{Figure: "memory.memory_usage_sampled_bytes", Command: "MEMORY USAGE", Reason: "NOPERM"},
			{Figure: "server", Command: "INFO", Reason: "NOPERM"},
		},
	}
	for _, path := range []string{"memory.memory_usage_sampled_bytes", "server.usec_per_call", "memory.bytes_per_identity", "memory.used_memory_delta_bytes"} {
		if v, ok := result.FieldValue(run, path); ok {
			t.Errorf("%s reads %v, though it was not measured", path, v)
		}
	}
	if v, ok := result.FieldValue(run, "memory.keys"); !ok || v != 5000 {
		t.Errorf("memory.keys reads %v %v, want 5000", v, ok)
	}
	if _, ok := run.Memory.PerIdentity(); ok {
		t.Error("memory per identity is shown without used_memory")
	}
	if run.Measured("server.calls") || !run.Measured("memory.keys") {
		t.Error("Measured does not follow Unavailable")
	}
}

// TestDecodeChecksUnavailableFigures: a result naming a figure the
// contract does not have, or one without the command and what Redis said,
// is refused on load; one naming real figures loads.
func TestDecodeChecksUnavailableFigures(t *testing.T) {
	r := resulttest.Sample()
	r.Redis.Access = &result.Access{User: "app", CheckedBy: "calls", Refused: []result.RefusedCommand{{Command: "INFO", Reason: "NOPERM this user has no permissions to run the 'info' command"}}}
	r.Redis.Unavailable = []result.Unavailable{{Figure: "maxmemory_policy", Command: "INFO and CONFIG GET", Reason: "NOPERM; ERR unknown command"}}
	r.Runs[0].Unavailable = []result.Unavailable{{Figure: "memory.used_memory_delta_bytes", Command: "INFO", Reason: "NOPERM"}, {Figure: "eviction", Command: "INFO", Reason: "NOPERM"}}
	good, err := marshalResult(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.Decode([]byte(good)); err != nil {
		t.Fatalf("a result with unavailable figures: %v", err)
	}
	for _, tc := range []struct{ why, from, to, want string }{
		{"a figure the contract does not have", `"figure": "eviction"`, `"figure": "evictions"`, `unavailable[1]: figure "evictions" is not a figure of the result`},
		{"a server figure it does not have", `"figure": "maxmemory_policy"`, `"figure": "uptime"`, `redis.unavailable[0]: figure "uptime"`},
		{"no reason", `"reason": "NOPERM"`, `"reason": ""`, "the command and what Redis said are both needed"},
	} {
		_, err := result.Decode([]byte(strings.Replace(good, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.want)
		}
	}
}
