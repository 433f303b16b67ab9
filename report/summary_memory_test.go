package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// memoryResult holds two sizes of one scenario group for two algorithms,
// one of them with a leak.
func memoryResult() *result.Result {
	r := resulttest.Sample()
	run := func(algo, scenario string, ids int, bpi float64, leaks int64) result.Run {
		return result.Run{
			Algorithm: algo, Scenario: scenario, Shape: "cardinality", ScenarioGroup: "once", Identities: ids,
			Params: result.Params{KeyPrefix: "rlbench:r1:" + algo + ":" + scenario + ":"},
			Memory: &result.Memory{Identities: int64(ids), Keys: int64(ids) + leaks, KeysWithoutTTL: leaks, BytesPerIdentity: bpi,
				MemoryUsageSampledBytes: 88, SampledKeys: 1000, Encodings: map[string]int64{"int": 990, "embstr": 10},
				RlbenchPeakRSSBytes: 25 << 20, Notes: []string{"used_memory is the whole server's"}},
			Server: &result.Server{UsecPerCall: 3.25, Calls: int64(ids)},
		}
	}
	r.Runs = []result.Run{
		run("fixed_window", "once-10k", 10000, 130.5, 0),
		run("sliding_log", "once-10k", 10000, 180.25, 0),
		run("fixed_window", "once-1M", 1000000, 129.75, 0),
		run("sliding_log", "once-1M", 1000000, 175, 3),
	}
	return r
}

func TestSummaryShowsMemoryAndLeaks(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummary(&b, memoryResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"B/identity", "MEMORY USAGE", "no TTL", "us/call", "rlbench RSS",
		"int 990, embstr 10", // encodings, most frequent first
		"3.25",               // server time per decision
		"25.0 MiB",           // rlbench's own peak RSS
		"3 LEAK",             // the leaking run, in the table
		"bytes/identity in scenario once, by number of identities",
		"! FAIL sliding_log/once-1M: 3 of 1000003 keys under rlbench:r1:sliding_log:once-1M: have no TTL",
		"! used_memory is the whole server's", // a probe note, once
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "used_memory is the whole server's"); n != 1 {
		t.Errorf("a note shared by %d runs printed %d times", 4, n)
	}
	// The curve: one row per algorithm, one column per size, in size order.
	curve := out[strings.Index(out, "by number of identities"):]
	for _, row := range []string{"algorithm  10k  1M", "fixed_window  130.5  129.8", "sliding_log  180.2  175.0"} {
		if !strings.Contains(strings.Join(strings.Fields(curve), "  "), row) {
			t.Errorf("curve lacks row %q:\n%s", row, curve)
		}
	}
	if leaks := leakNotes(memoryResult(), verdict.Assess(memoryResult())); len(leaks) != 1 {
		t.Errorf("Leaks found %d runs, want the one", len(leaks))
	}
}

// TestSummaryWithoutMemory: runs the probes did not reach print no memory
// table at all.
func TestSummaryWithoutMemory(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummary(&b, resulttest.Sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "B/identity") {
		t.Errorf("memory table without memory figures:\n%s", b.String())
	}
}

func TestFormatBytesAndCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{FormatBytes(0), "-"},               // not measured
		{FormatBytes(512), "512 B"},         // under a KiB
		{FormatBytes(1536), "1.50 KiB"},     // a fraction
		{FormatBytes(25 << 20), "25.0 MiB"}, // whole MiB
		{FormatBytes(300 << 20), "300 MiB"}, // three digits
		{FormatCountShort(950), "950"},      // as is
		{FormatCountShort(10000), "10k"},    // whole thousands
		{FormatCountShort(100000), "100k"},  // trailing zeros kept before the point
		{FormatCountShort(1500), "1.5k"},    // one decimal
		{FormatCountShort(1000000), "1M"},   // whole millions
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
