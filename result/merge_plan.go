package result

import (
	"fmt"
	"slices"
	"strings"
)

// onePlan checks that the segments, in segment order, ran one plan: the
// same limiters in the same order, the same plan where they recorded it,
// and the same runs in the same order, each once; a segment cut short
// holds the first of them, and one that says it completed holds them
// all. Anything else (another --algorithms, another --repeat, runs
// missing from a segment that claims to be whole) is not one load, and
// merging it would add up parts of different loads.
func onePlan(segs []*Result) error {
	first := segs[0]
	for _, r := range segs[1:] {
		if !slices.Equal(r.Profile.Algorithms, first.Profile.Algorithms) {
			return fmt.Errorf("segment %d ran the limiters %s, segment %d %s: the segments of one load run the same limiters in the same order (the same --algorithms)",
				r.Segment.Index, listed(r.Profile.Algorithms), first.Segment.Index, listed(first.Profile.Algorithms))
		}
		if a, b := r.Segment.Plan, first.Segment.Plan; a != "" && b != "" && a != b {
			return fmt.Errorf("segment %d ran another plan (of %s) than segment %d (of %s): the same profile run with another --algorithms or --repeat",
				r.Segment.Index, runsOf(r.Segment.PlannedRuns), first.Segment.Index, runsOf(first.Segment.PlannedRuns))
		}
	}
	keys := make([][]string, len(segs))
	longest := 0
	planned := 0
	for i, r := range segs {
		seen := map[string]bool{}
		for j := range r.Runs {
			k := r.Runs[j].Key()
			if seen[k] {
				return fmt.Errorf("segment %d holds run %s twice", r.Segment.Index, k)
			}
			seen[k] = true
			keys[i] = append(keys[i], k)
		}
		if len(keys[i]) > len(keys[longest]) {
			longest = i
		}
		planned = max(planned, r.Segment.PlannedRuns)
	}
	all := keys[longest]
	ref := segs[longest]
	for _, r := range segs {
		for j := range r.Runs {
			run, want := &r.Runs[j], &ref.Runs[min(j, len(ref.Runs)-1)]
			if run.Key() != want.Key() {
				continue // the order is checked below
			}
			if run.Shape != want.Shape || run.Identities != want.Identities || run.Params.Rate != want.Params.Rate || run.Params.DurationS != want.Params.DurationS {
				return fmt.Errorf("segment %d ran %s as a %s scenario of %d identities at %s for %gs, segment %d as a %s one of %d at %s for %gs: not one load",
					r.Segment.Index, run.Key(), run.Shape, run.Identities, run.Params.Rate, run.Params.DurationS,
					ref.Segment.Index, want.Shape, want.Identities, want.Params.Rate, want.Params.DurationS)
			}
			if a, b := run.Params.Replay, want.Params.Replay; a != nil && b != nil && a.SHA256 != b.SHA256 {
				return fmt.Errorf("segment %d replayed %s from a trace of SHA-256 %.12s, segment %d from one of %.12s: not one load",
					r.Segment.Index, run.Key(), a.SHA256, ref.Segment.Index, b.SHA256)
			}
		}
	}
	for i, r := range segs {
		for j, k := range keys[i] {
			if k != all[j] {
				return fmt.Errorf("segment %d ran %s as its run %d, segment %d ran %s: the runs of one load come in one order",
					r.Segment.Index, k, j+1, segs[longest].Segment.Index, all[j])
			}
		}
		want := max(len(all), planned)
		if r.Complete && len(keys[i]) < want {
			missing := "the runs its plan names"
			if len(keys[i]) < len(all) {
				missing = all[len(keys[i])]
			}
			return fmt.Errorf("segment %d says it completed, but holds %d of the load's %s (first missing: %s)",
				r.Segment.Index, len(keys[i]), runsOf(want), missing)
		}
	}
	return nil
}

// listed is names joined by commas, or "none".
func listed(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// runsOf is "1 run" or "N runs".
func runsOf(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}
