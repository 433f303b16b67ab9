package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func TestWriteBenchfmt(t *testing.T) {
	r := resulttest.Sample()
	r.Host = result.HostInfo{OS: "linux", Arch: "amd64"}
	r.Runs[0].LatencyUs.Mean = 300.5
	r.Runs[0].Rate.AchievedPerS = 1000
	rep := r.Runs[0]
	rep.Scenario = "repeated"
	rep.Repeats = &result.Repeats{Count: 2, Values: map[string][]float64{"latency_us.p99": {1000, 1200}}}
	r.Runs = append(r.Runs, rep)
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"goos: linux\ngoarch: amd64\npkg: rlbench/demo\n",
		"BenchmarkRL/fixed_window/steady\t10\t300500 ns/op\t250000 p50-ns\t1500000 p99-ns\t2500000000 p99.9-ns\t1000 req/s\n",
		"BenchmarkRL/fixed_window/repeated\t5\t300500 ns/op\t250000 p50-ns\t1000000 p99-ns",
		"BenchmarkRL/fixed_window/repeated\t5\t300500 ns/op\t250000 p50-ns\t1200000 p99-ns",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("benchfmt output lacks %q:\n%s", want, out)
		}
	}
	// Every benchmark line has a name, an iteration count and value-unit pairs.
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		if f := strings.Fields(line); len(f)%2 != 0 {
			t.Errorf("line is not name N (value unit)*: %q", line)
		}
	}
}
