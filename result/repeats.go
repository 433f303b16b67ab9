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

// medianFields are the figures a repeated run reports as the median over its
// repetitions (and whose spread Repeats keeps): the ones that move with
// machine noise.
var medianFields = []string{
	"latency_us.p50", "latency_us.p90", "latency_us.p99", "latency_us.p999", "latency_us.max", "latency_us.mean",
	"latency_uncorrected_us.p50", "latency_uncorrected_us.p90", "latency_uncorrected_us.p99",
	"latency_uncorrected_us.p999", "latency_uncorrected_us.max", "latency_uncorrected_us.mean",
	"rate.achieved_per_s", "server.usec_per_call", "memory.bytes_per_identity", "memory.memory_usage_sampled_bytes",
	"reference.limiter_usec_per_call", "reference.ping_us.p50", "reference.ping_us.p99", "reference.script_us.p50",
	"reference.script_us.p99", "reference.usec_per_call", "reference.throughput_per_s", "relative.latency_p50", "relative.latency_p99", "relative.server_cost", "relative.throughput",
}

// worstFields are correctness figures: a repeated run reports the worst
// repetition, because one bad repetition is a real finding, not noise.
var worstFields = []string{
	"audit.overshoot", "audit.policy_excess", "audit.model_mismatches", "audit.violations",
	"audit.max_window_admitted", "memory.keys_without_ttl", "memory.keys_outside_prefix",
	"audit.reply.remaining_wrong", "audit.reply.retry_after_too_early", "eviction.evicted_keys", "eviction.expired_keys",
	"faults.policy_excess", "faults.state_lost_admitted",
	"faults.max_attempts", "faults.max_recovery_ms", "faults.unjudged_mismatches",
	"cluster.busiest_node_share",
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

// MergeRepeats folds the repetitions of one algorithm/scenario into one Run:
// noisy figures (latency, rate, server cost, memory per identity) are the
// median over the repetitions, correctness figures the worst repetition,
// request counts the sum; the rest (series, histograms, parameters) come from
// the median repetition by p99. Repeats keeps every repetition's values.
func MergeRepeats(reps []Run) Run {
	if len(reps) == 1 {
		return reps[0]
	}
	byP99 := slices.Clone(reps)
	slices.SortStableFunc(byP99, func(a, b Run) int { return int(a.LatencyUs.P99 - b.LatencyUs.P99) })
	out := byP99[len(byP99)/2]
	out.Audit, out.Memory, out.Server = clonePointer(out.Audit), clonePointer(out.Memory), clonePointer(out.Server)
	out.Reference, out.Relative = clonePointer(out.Reference), clonePointer(out.Relative)
	out.Eviction, out.Faults = clonePointer(out.Eviction), clonePointer(out.Faults)
	out.Cluster = clonePointer(out.Cluster)
	for _, r := range reps {
		if r.Eviction != nil && r.Eviction.Restarted && out.Eviction != nil {
			out.Eviction.Restarted = true
		}
	}
	out.Repeats = &Repeats{Count: len(reps), Values: map[string][]float64{}}
	for _, f := range append(slices.Clone(medianFields), worstFields...) {
		var vs []float64
		for i := range reps {
			if v, ok := FieldValue(&reps[i], f); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) == len(reps) {
			out.Repeats.Values[f] = vs
		}
	}
	for _, f := range medianFields {
		if vs, ok := out.Repeats.Values[f]; ok {
			setField(&out, f, Median(vs))
		}
	}
	for _, f := range worstFields {
		if vs, ok := out.Repeats.Values[f]; ok {
			setField(&out, f, slices.Max(vs))
		}
	}
	out.Requests = Requests{}
	out.Incomplete = false
	for _, r := range reps {
		out.Requests.Add(r.Requests)
		out.Incomplete = out.Incomplete || r.Incomplete
	}
	return out
}

// clonePointer copies what p points to, so that setting a merged run's
// fields leaves the repetition it came from alone.
func clonePointer[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

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

// mergeRepeatsByRules folds the repetitions by the rules.
func mergeRepeatsByRules(reps []Run) Run {
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
