package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Leaks names the runs that left keys without a TTL under their prefix:
// every limiter key must expire, so each of these is a failure.
func Leaks(r *Result) []string {
	var out []string
	for i := range r.Runs {
		run := &r.Runs[i]
		if m := run.Memory; m != nil && m.KeysWithoutTTL > 0 {
			out = append(out, fmt.Sprintf("FAIL %s: %d of %d keys under %s have no TTL and will never expire (a leak)",
				run.Key(), m.KeysWithoutTTL, m.Keys, run.Params.KeyPrefix))
		}
	}
	return out
}

// memoryNotes lists each distinct note the memory and server probes left,
// once, however many runs carry it.
func memoryNotes(r *Result) []string {
	var out []string
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for i := range r.Runs {
		if m := r.Runs[i].Memory; m != nil {
			for _, n := range m.Notes {
				add(n)
			}
		}
		if s := r.Runs[i].Server; s != nil {
			add(s.Note)
		}
	}
	return out
}

// writeMemory prints what each run cost: Redis memory per identity, keys
// and keys without a TTL, the script's server time, and rlbench's own peak
// memory; then, for every scenario run at several sizes, bytes/identity by
// size.
func writeMemory(w io.Writer, r *Result) error {
	var runs []*Run
	for i := range r.Runs {
		if r.Runs[i].Memory != nil {
			runs = append(runs, &r.Runs[i])
		}
	}
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tscenario\tidentities\tkeys\tno TTL\tB/identity\tMEMORY USAGE\tencodings\tus/call\trlbench RSS\t")
	for _, run := range runs {
		m := run.Memory
		noTTL := fmt.Sprint(m.KeysWithoutTTL)
		if m.KeysWithoutTTL > 0 {
			noTTL += " LEAK"
		}
		usec := "-"
		if run.Server != nil && run.Server.Calls > 0 {
			usec = fmt.Sprintf("%.2f", run.Server.UsecPerCall)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			run.Algorithm, run.Scenario, m.Identities, m.Keys, noTTL,
			perIdentity(m), optBytes(m.MemoryUsageSampledBytes), encodings(m.Encodings),
			usec, FormatBytes(m.RlbenchPeakRSSBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeSizeCurves(w, runs)
}

// writeSizeCurves prints bytes/identity by algorithm and size for each
// scenario group (a scenario that listed several sizes).
func writeSizeCurves(w io.Writer, runs []*Run) error {
	var groups []string
	for _, run := range runs {
		if g := run.ScenarioGroup; g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		var sizes []int
		var algos []string
		perIdentity := map[string]map[int]float64{}
		for _, run := range runs {
			if run.ScenarioGroup != g {
				continue
			}
			if !slices.Contains(sizes, run.Identities) {
				sizes = append(sizes, run.Identities)
			}
			if perIdentity[run.Algorithm] == nil {
				algos = append(algos, run.Algorithm)
				perIdentity[run.Algorithm] = map[int]float64{}
			}
			if b, ok := run.Memory.PerIdentity(); ok {
				perIdentity[run.Algorithm][run.Identities] = b
			}
		}
		sort.Ints(sizes)
		fmt.Fprintf(w, "\nbytes/identity in scenario %s, by number of identities\n", g)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := []string{"algorithm"}
		for _, n := range sizes {
			header = append(header, FormatCount(int64(n)))
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, a := range algos {
			row := []string{a}
			for _, n := range sizes {
				v, ok := perIdentity[a][n]
				if !ok {
					row = append(row, "-")
					continue
				}
				row = append(row, optBytes(v))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// optBytes renders a per-key or per-identity size, "-" when not measured.
// perIdentity renders bytes per identity, or "-" when too few identities
// held a key for the figure to mean anything.
func perIdentity(m *Memory) string {
	b, ok := m.PerIdentity()
	if !ok {
		return "-"
	}
	return optBytes(b)
}

func optBytes(b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", b)
}

// encodings renders OBJECT ENCODING counts, most frequent first:
// "listpack 998, skiplist 2".
func encodings(enc map[string]int64) string {
	if len(enc) == 0 {
		return "-"
	}
	names := make([]string, 0, len(enc))
	for k := range enc {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if enc[names[i]] != enc[names[j]] {
			return enc[names[i]] > enc[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, enc[k])
	}
	return strings.Join(parts, ", ")
}

// FormatBytes renders a size in bytes with a binary unit: 512 B, 37.2 MiB.
func FormatBytes(b uint64) string {
	if b == 0 {
		return "-"
	}
	return formatSize(float64(b))
}

// formatSize renders a size in bytes, which may be fractional or negative
// (a per-identity figure): 87.5 B, 117 B, 1.50 KiB, 58.0 MiB.
func formatSize(v float64) string {
	const unit = 1024
	if math.Abs(v) < unit {
		if math.Abs(v) >= 100 || v == math.Trunc(v) {
			return fmt.Sprintf("%.0f B", v)
		}
		return fmt.Sprintf("%.1f B", v)
	}
	v, suffix := v/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if math.Abs(v) < unit {
			break
		}
		v, suffix = v/unit, s
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return sign + trimFloat(v) + " " + suffix
}

// FormatCount renders a count briefly: 950, 10k, 1.5M.
func FormatCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", float64(n)/1000), "0"), ".") + "k"
	default:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", float64(n)/1e6), "0"), ".") + "M"
	}
}
