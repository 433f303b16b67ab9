package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// leakNotes names the runs the verdict found leaving keys without a TTL
// under their prefix, or writing keys outside it.
func leakNotes(r *result.Result, j verdict.Judgement) []note {
	var out []note
	for i := range r.Runs {
		run, m := &r.Runs[i], r.Runs[i].Memory
		if j.Runs[i].Has(verdict.KeyWithoutTTL) {
			out = append(out, note{kind: kindLeak, where: run.Key(), text: fmt.Sprintf("FAIL %s: %d of %d keys under %s %s no TTL and will never expire (a leak)",
				run.Key(), m.KeysWithoutTTL, m.Keys, run.Params.KeyPrefix, plural.Noun(m.KeysWithoutTTL, "has", "have"))})
		}
		if j.Runs[i].Has(verdict.KeyOutsidePrefix) {
			out = append(out, note{kind: kindOutside, where: run.Key(), text: fmt.Sprintf("FAIL %s: the script wrote %d %s outside the run prefix %s it was given (e.g. %s): a limiter must touch only its KEYS, or cleanup is not exact and Redis Cluster refuses it",
				run.Key(), m.KeysOutsidePrefix, plural.Noun(m.KeysOutsidePrefix, "key", "keys"), run.Params.KeyPrefix, strings.Join(m.OutsidePrefixExamples, ", "))})
		}
		if j.Runs[i].Has(verdict.KeyOtherDatabase) {
			out = append(out, note{kind: kindOutside, where: run.Key(), text: fmt.Sprintf("FAIL %s: the script wrote %d keys in other logical databases than the run's (e.g. %s), %d of them without a TTL; rlbench removed them: a limiter must touch only its KEYS in the database it is called in",
				run.Key(), m.KeysOtherDatabases, strings.Join(m.OtherDatabaseExamples, ", "), m.KeysOtherDatabasesWithoutTTL)})
		}
	}
	return out
}

// skippedNotes names, run by run, the checks the probes could not make:
// a check that did not happen must not read as one that passed.
func skippedNotes(r *result.Result) []note {
	var out []note
	for i := range r.Runs {
		run := &r.Runs[i]
		if m := run.Memory; m != nil {
			for _, s := range m.Skipped {
				out = append(out, note{kind: kindSkipped, where: run.Key(), text: fmt.Sprintf("%s: SKIPPED: %s", run.Key(), s)})
			}
		}
	}
	return out
}

// memoryNotes lists each distinct note the memory and server probes left,
// once, however many runs carry it.
func memoryNotes(r *result.Result) []note {
	var out []note
	var seen []string
	add := func(n string) {
		if n != "" && !slices.Contains(seen, n) {
			seen = append(seen, n)
			out = append(out, note{kind: kindProbe, text: n})
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
func writeMemory(w io.Writer, r *result.Result, j verdict.Judgement) error {
	var runs []*result.Run
	var leaks []bool
	for i := range r.Runs {
		if r.Runs[i].Memory != nil {
			runs = append(runs, &r.Runs[i])
			leaks = append(leaks, j.Runs[i].Has(verdict.KeyWithoutTTL))
		}
	}
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tscenario\tidentities\tkeys\tno TTL\tB/identity\tMEMORY USAGE\tencodings\tus/call\trlbench RSS\t")
	why := MissingCells{Rows: len(runs), Every: "every run"}
	for i, run := range runs {
		m := run.Memory
		switch {
		case m.CensusFailed && refusedCensus(run) != "":
			why.Add("identities and keys", run.Key(), "the key census was not taken: "+refusedCensus(run))
		case m.CensusFailed:
			why.Add("identities and keys", run.Key(), "the key census failed (the SKIPPED note says how)")
		}
		why.Add("B/identity", run.Key(), WhyNoMemory(r, run))
		why.Add("MEMORY USAGE", run.Key(), WhyNoKeySample(r, run))
		why.Add("encodings", run.Key(), WhyNoEncodings(r, run))
		why.Add("us/call", run.Key(), WhyNoServerTime(r, run))
		why.Add("rlbench RSS", run.Key(), whyNoRSS(r, m))
		noTTL := fmt.Sprint(m.KeysWithoutTTL)
		if leaks[i] {
			noTTL += " LEAK"
		}
		usec := "-"
		if run.Server != nil && run.Server.Calls > 0 {
			usec = fmt.Sprintf("%.2f", run.Server.UsecPerCall)
		}
		ids, keys := fmt.Sprint(m.Identities), fmt.Sprint(m.Keys)
		switch {
		case !run.Measured("memory.keys_without_ttl"):
			// The server refused the census: its note says what it said.
			ids, keys, noTTL = "-", "-", "UNAVAILABLE"
		case m.CensusFailed:
			ids, keys, noTTL = "-", "-", "SKIPPED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			run.Algorithm, run.Scenario, ids, keys, noTTL,
			perIdentity(m), optBytes(m.MemoryUsageSampledBytes), FormatEncodings(m.Encodings),
			usec, FormatBytes(m.RlbenchPeakRSSBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range why.Lines("-") {
		fmt.Fprintln(w, "  "+line)
	}
	return writeSizeCurves(w, r, runs)
}

// writeSizeCurves prints bytes/identity by algorithm and size for each
// scenario group (a scenario that listed several sizes).
func writeSizeCurves(w io.Writer, r *result.Result, runs []*result.Run) error {
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
		ran := map[string]map[int]*result.Run{}
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
				ran[run.Algorithm] = map[int]*result.Run{}
			}
			ran[run.Algorithm][run.Identities] = run
			if b, ok := run.Memory.PerIdentity(); ok {
				perIdentity[run.Algorithm][run.Identities] = b
			}
		}
		sort.Ints(sizes)
		fmt.Fprintf(w, "\nbytes/identity in scenario %s, by number of identities\n", g)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		var why MissingCells
		header := []string{"algorithm"}
		for _, n := range sizes {
			header = append(header, FormatCountShort(int64(n)))
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, a := range algos {
			row := []string{a}
			for _, n := range sizes {
				v, ok := perIdentity[a][n]
				if !ok {
					row = append(row, "-")
					if run := ran[a][n]; run != nil {
						why.Add(FormatCountShort(int64(n)), a, WhyNoMemory(r, run))
					} else {
						why.Add(FormatCountShort(int64(n)), a, "no run of it at that size has memory figures (not run at that size, or the server was not read after it)")
					}
					continue
				}
				row = append(row, optBytes(v))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, line := range why.Lines("-") {
			fmt.Fprintln(w, "  "+line)
		}
	}
	return nil
}

// perIdentity renders bytes per identity, or "-" when too few identities
// held a key for the figure to mean anything.
func perIdentity(m *result.Memory) string {
	b, ok := m.PerIdentity()
	if !ok {
		return "-"
	}
	return optBytes(b)
}
