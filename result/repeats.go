package result

import "slices"

// Repeats records the repetitions of a repeated run.
type Repeats struct {
	Count int `json:"count"`
	// Values maps a field's JSON path (e.g. "latency_us.p99") to its value in
	// each repetition, in run order.
	Values map[string][]float64 `json:"values"`
}

// Spread is the smallest and largest value of path over the repetitions.
func (r *Repeats) Spread(path string) (lo, hi float64, ok bool) {
	if r == nil || len(r.Values[path]) == 0 {
		return 0, 0, false
	}
	vs := r.Values[path]
	lo, hi = vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, true
}

// MergeRepetitions folds the repetitions of every algorithm/scenario in
// runs into one run each (see MergeRepeats), in the order the runs first
// appear.
func MergeRepetitions(runs []Run) []Run {
	var order []string
	groups := map[string][]Run{}
	for _, run := range runs {
		k := run.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], run)
	}
	out := make([]Run, 0, len(order))
	for _, k := range order {
		out = append(out, MergeRepeats(groups[k]))
	}
	return out
}

// MergeRepeats folds the repetitions of one algorithm/scenario into one
// Run, each field by its rule in the table MergeSegments follows too: noisy
// figures (latency, rate, server cost, memory per identity) are the median
// over the repetitions, correctness figures the worst repetition, request
// counts the sum; the rest (series, histograms, parameters) come from the
// median repetition by p99. Repeats keeps every repetition's values of the
// median and worst figures. The repetitions are left as they were.
func MergeRepeats(reps []Run) Run {
	if len(reps) == 1 {
		return reps[0]
	}
	parts := make([]*Run, len(reps))
	for i := range reps {
		parts[i] = &reps[i]
	}
	byP99 := slices.Clone(parts)
	slices.SortStableFunc(byP99, func(a, b *Run) int { return int(a.LatencyUs.P99 - b.LatencyUs.P99) })
	m := newMerging(byP99[len(byP99)/2], parts)
	if err := m.run(func(r rule) combiner { return r.repeats }); err != nil {
		// Only combiners of segments read what can fail to decode.
		panic(err)
	}
	return *m.out
}

// repetitionValues keeps every repetition's value of the fields that take
// their median or their worst.
var repetitionValues = combiner{name: "every repetition's values", whole: true, apply: func(m *merging, _ string) error {
	m.out.Repeats = &Repeats{Count: len(m.parts), Values: m.values}
	return nil
}}

// Mean is the mean of vs, or 0 when there are none.
func Mean(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}

// Median is the median of vs, or 0 when there are none.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
