package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// benchUnits are the figures a benchmark line carries: the result field,
// how to scale it, and the unit benchstat shows.
var benchUnits = []struct {
	field string
	scale float64
	unit  string
}{
	{"latency_us.mean", 1000, "ns/op"},
	{"latency_us.p50", 1000, "p50-ns"},
	{"latency_us.p99", 1000, "p99-ns"},
	{"latency_us.p999", 1000, "p99.9-ns"},
	{"rate.achieved_per_s", 1, "req/s"},
	{"server.usec_per_call", 1000, "server-ns/call"},
	{"memory.bytes_per_identity", 1, "B/identity"},
	{"audit.overshoot", 1, "overshoot"},
}

// WriteBenchfmt prints r in the Go benchmark format, one line per run —
// one per repetition for a repeated run — so that `benchstat old.txt
// new.txt` compares two results with its own statistics:
//
//	BenchmarkRL/fixed_window/steady  20000  246000 ns/op  561000 p99-ns ...
func WriteBenchfmt(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: rlbench/%s\n", r.Host.OS, r.Host.Arch, benchName(r.Profile.Name))
	fmt.Fprintf(w, "redis: %s %s\nrlbench: %s\n", r.Redis.Mode, benchName(r.Redis.Version), benchName(r.Tool.Version))
	for i := range r.Runs {
		run := &r.Runs[i]
		name := "BenchmarkRL/" + benchName(run.Algorithm) + "/" + benchName(run.Scenario)
		reps := 1
		if run.Repeats != nil {
			reps = run.Repeats.Count
		}
		for k := 0; k < reps; k++ {
			var b strings.Builder
			fmt.Fprintf(&b, "%s\t%d", name, max(run.Requests.Sent/int64(reps), 1))
			for _, u := range benchUnits {
				v, ok := repetitionValue(run, u.field, k)
				if !ok {
					continue
				}
				fmt.Fprintf(&b, "\t%s %s", benchNumber(v*u.scale), u.unit)
			}
			if _, err := fmt.Fprintln(w, b.String()); err != nil {
				return err
			}
		}
	}
	return nil
}

// repetitionValue is field's value in repetition k of a repeated run, or the
// run's own value.
func repetitionValue(run *result.Run, field string, k int) (float64, bool) {
	if run.Repeats != nil {
		if vs, ok := run.Repeats.Values[field]; ok && k < len(vs) {
			return vs[k], true
		}
	}
	return result.FieldValue(run, field)
}

// benchName makes s safe inside a benchmark name or configuration value.
func benchName(s string) string {
	return strings.Map(func(r rune) rune {
		if unprintable(r) {
			return '_'
		}
		if r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}
