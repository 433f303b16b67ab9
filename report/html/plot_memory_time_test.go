package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// memoryTimeRuns is a two-minute scenario of two algorithms, one whose
// state per identity stays put and one whose state keeps growing, with
// rlbench's resident set level; and a short scenario without samples.
func memoryTimeRuns() *result.Result {
	r := resulttest.Sample()
	run := func(alg string, growth int64) result.Run {
		m := &result.MemoryOverTime{IntervalS: 5}
		for t := int64(0); t <= 120; t += 5 {
			keys := min(t*100, 2000) // every identity has come after 20s
			used := 1_000_000 + keys*(150+growth*t)
			m.Samples = append(m.Samples, result.MemorySample{TS: float64(t), RlbenchHeapBytes: 4 << 20, RlbenchRSSBytes: 30 << 20,
				RedisUsedMemoryBytes: &used, RedisKeys: &keys})
		}
		m.RlbenchRSS = &result.RSSAfterSettle{SettledBytes: 30 << 20, PeakBytes: 30 << 20}
		return result.Run{Algorithm: alg, Scenario: "soak", ElapsedS: 120, Identities: 2000,
			Memory: &result.Memory{Identities: 2000, Keys: 2000}, MemoryOverTime: m}
	}
	r.Runs = []result.Run{run("fixed_window", 0), run("sliding_log", 2),
		{Algorithm: "fixed_window", Scenario: "short", ElapsedS: 2}}
	r.Profile.Algorithms = []string{"fixed_window", "sliding_log"}
	return r
}

// TestMemoryOverTimeIsPlotted: a scenario long enough for memory over
// time gets its plot, each algorithm's line in its colour on both tiles;
// a short one gets none.
func TestMemoryOverTimeIsPlotted(t *testing.T) {
	r := memoryTimeRuns()
	v := newView(r)
	if !v.hasMemoryOverTime("soak") || v.hasMemoryOverTime("short") {
		t.Fatalf("hasMemoryOverTime: soak %v, short %v", v.hasMemoryOverTime("soak"), v.hasMemoryOverTime("short"))
	}
	d, err := memoryOverTime(v, "soak")
	if err != nil {
		t.Fatal(err)
	}
	if nd, ok := d.(noData); ok {
		t.Fatalf("no data: %s", nd.reason)
	}
	data, err := renderPNG(d)
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, "memory over time", data)
	if img == nil {
		return
	}
	seen := colorsIn(img)
	for _, alg := range v.algorithms {
		if c := v.colors.color(alg); !seen[c] {
			t.Errorf("no pixel of %s's colour %s", alg, hexColor(c))
		}
	}
	figs, err := Plots(r)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		if strings.HasPrefix(f.File, "memory-time-") {
			names = append(names, f.File)
			if f.NoData != "" {
				t.Errorf("%s: no data: %s", f.File, f.NoData)
			}
		}
	}
	if strings.Join(names, " ") != "memory-time-soak.png" {
		t.Errorf("memory-over-time figures %v, want only memory-time-soak.png", names)
	}
}
