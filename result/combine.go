package result

import (
	"reflect"
	"slices"
	"strings"
)

// A rule says how the field or section of a run at path combines across
// the repetitions of the run (MergeRepeats) and across the segments of one
// load (MergeSegments).
type rule struct {
	path     string
	repeats  combiner
	segments combiner
}

// A combiner makes the merged run's value at a path out of the parts' (the
// repetitions or the segments). The merged run starts as a copy of one
// part, its base: the median repetition by p99, or the first segment; a
// combiner with no apply leaves the base's value.
type combiner struct {
	// name says what the combiner does, for messages.
	name string
	// whole says the combiner speaks for everything under its path, so the
	// fields of its section need no rule of their own.
	whole bool
	apply func(m *merging, path string) error
}

// merging is one merge in progress: the parts, the merged run, and what
// the rules gather for it on the way.
type merging struct {
	out   *Run
	parts []*Run
	// segments is how many segments the load had; zero when merging
	// repetitions.
	segments int
	// values holds each repetition's value of the fields that take their
	// median or their worst (Repeats.Values).
	values map[string][]float64
	// notes say what merging the segments could not do exactly.
	notes []string
}

// newMerging starts merging parts into a copy of base.
func newMerging(base *Run, parts []*Run) *merging {
	return &merging{out: cloneRun(base), parts: parts, values: map[string][]float64{}}
}

// run applies, in table order, the combiner each rule gives for this kind
// of merge.
func (m *merging) run(which func(rule) combiner) error {
	for _, r := range rules {
		if c := which(r); c.apply != nil {
			if err := c.apply(m, r.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// rules is how each field of a run combines. The merged run keeps the
// base's value (the median repetition's, the first segment's) of every
// field whose rule says kept.
//
// Rows run in order, so a figure derived from others (coverage, the mean
// batch, bytes per identity, the relative figures, the note) comes after
// the rows of what it is derived from. A row on a section (a struct) whose
// combiner is whole covers every field under it but those with a row of
// their own; inSection defers to it. Every field has a rule, both ways:
// TestEveryFieldHasARule checks it.
var rules = []rule{
	// What ran: every repetition and segment ran this algorithm in this
	// scenario.
	{"algorithm", keep, keep},
	{"scenario", keep, keep},                                               // the same scenario, by the run's key
	{"shape", keep, keep},                                                  // one scenario has one shape
	{"scenario_group", keep, keep},                                         // the scenario's name as written, shared
	{"policy_group", keep, keep},                                           // likewise
	{"params", keep, keep},                                                 // one profile, one scenario: the same parameters
	{"params.concurrency", keep, sum},                                      // each segment ran its own workers side by side
	{"identities", keep, keep},                                             // the scenario's identities, which every segment names alike
	{"requests", sum, sum},                                                 // every repetition's and segment's requests were made: counts add up
	{"rate.target_per_s", keep, sum},                                       // a repetition offered the same rate; segments offered theirs side by side
	{"rate.achieved_per_s", median, sum},                                   // machine noise across repetitions; segments sent side by side
	{"elapsed_s", keep, highest},                                           // segments ran together: the longest issuing window spans them all
	{"max_lag_us", keep, highest},                                          // the furthest behind any segment fell
	{"generator", keep, generatorWaitedLongest},                            // the process starved of CPU the most speaks for the load
	{"incomplete", anyOf, anyOf},                                           // one repetition or segment cut short leaves the merged run short
	{"latency_hdr", keep, histogram("latency_us")},                         // HDR histograms merge exactly, and are digested again
	{"latency_uncorrected_hdr", keep, histogram("latency_uncorrected_us")}, // likewise, from each call's send
	// The digests: percentiles move with machine noise, so repetitions
	// report the median (the count is the median repetition's, with its
	// histogram); segments digest the merged histogram.
	{"latency_us", keep, digested},
	{"latency_us.p50", median, inSection},  // noise: the median repetition's figure would be one draw
	{"latency_us.p90", median, inSection},  // likewise
	{"latency_us.p99", median, inSection},  // likewise; the base is already the median by it
	{"latency_us.p999", median, inSection}, // likewise
	{"latency_us.max", median, inSection},  // likewise
	{"latency_us.mean", median, inSection}, // likewise
	{"latency_uncorrected_us", keep, digested},
	{"latency_uncorrected_us.p50", median, inSection},  // noise, as latency_us
	{"latency_uncorrected_us.p90", median, inSection},  // likewise
	{"latency_uncorrected_us.p99", median, inSection},  // likewise
	{"latency_uncorrected_us.p999", median, inSection}, // likewise
	{"latency_uncorrected_us.max", median, inSection},  // likewise
	{"latency_uncorrected_us.mean", median, inSection}, // likewise
	{"latency_allowed_us", keep, highestDigest},        // no histogram to merge: the highest percentiles, with a note
	{"latency_denied_us", keep, highestDigest},         // likewise
	{"series", keep, addSeconds},                       // one repetition's seconds are a curve; segments started together, so their seconds add
	{"timeline", keep, addBins},                        // likewise, bin by bin at the widest bin
	{"edge", keep, edgeCurves},                         // one repetition's curve; segments' identities are disjoint: the most of any, the mean by identities
	{"errors", keep, errorsByKind},                     // one repetition's errors go with its requests; segments' add up by kind

	// The audit. Repetitions: a correctness finding in any repetition is
	// real, not noise, so those figures are the worst; the rest go with
	// the median repetition. Segments audited disjoint identities: counts
	// add up, the busiest window is the busiest of any.
	{"audit", keep, firstPresent},
	{"audit.identities", keep, sum},               // disjoint identities
	{"audit.sampled", keep, anyOf},                // one sampled segment makes the audit a sample
	{"audit.decisions", keep, sum},                // disjoint identities' decisions
	{"audit.allowed", keep, sum},                  // likewise
	{"audit.expected_allowed", keep, sum},         // likewise
	{"audit.model_mismatches", worst, sum},        // a correctness finding; each segment's are its own
	{"audit.overshoot", worst, sum},               // a correctness finding, summed over identities
	{"audit.policy_excess", worst, highest},       // the largest excess of any one window
	{"audit.max_window_admitted", worst, highest}, // the busiest window of any
	{"audit.bound_window", keep, highest},         // one promise; the highest if segments read it otherwise
	{"audit.violations", worst, sum},              // identities over the bound, disjoint across segments
	{"audit.coverage", keep, auditCoverage},       // the merged decisions over the merged requests'
	{"audit.basis", keep, keep},                   // one limiter, judged one way
	{"audit.window_ms", keep, keep},               // one declared interval
	{"audit.timing", keep, firstPresent},
	{"audit.timing.uncertainty_p50_us", keep, highest},           // the segments' medians are no median of all: the larger to stand behind
	{"audit.timing.uncertainty_max_us", keep, highest},           // the largest of any
	{"audit.timing.max_window_admitted_possible", keep, highest}, // the busiest possible window of any
	{"audit.reply", keep, firstPresent},
	{"audit.reply.remaining_checked", keep, sum},      // checked replies of disjoint identities
	{"audit.reply.remaining_wrong", worst, sum},       // a correctness finding
	{"audit.reply.retry_after_checked", keep, sum},    // as remaining_checked
	{"audit.reply.retry_after_too_early", worst, sum}, // a correctness finding
	{"audit.vs_exact", keep, firstPresent},
	{"audit.vs_exact.algorithm", keep, keep},      // one exact algorithm compared with
	{"audit.vs_exact.decisions", keep, sum},       // disjoint identities' decisions
	{"audit.vs_exact.differ", keep, sum},          // likewise
	{"audit.vs_exact.admitted_beyond", keep, sum}, // likewise
	{"audit.vs_exact.denied_within", keep, sum},   // likewise

	// How the requests went out: each segment's batches are its own.
	{"pipeline", keep, firstPresent},
	{"pipeline.depth", keep, keep},            // one profile, one depth
	{"pipeline.auto", keep, keep},             // likewise
	{"pipeline.batches", keep, sum},           // every segment's writes
	{"pipeline.mean_batch", keep, meanBatch},  // from the sums, not a mean of means
	{"pipeline.largest_batch", keep, highest}, // the largest of any
	{"pipeline.resent", keep, sum},            // every segment's
	{"pipeline.note", keep, keep},             // said of the one profile

	// Memory. Keys and identities of segments are disjoint and add up; the
	// server's used_memory is one reading over the same window, shared.
	{"memory", keep, firstPresent},
	{"memory.identities", keep, sum},                                                 // disjoint identities
	{"memory.keys", keep, sum},                                                       // disjoint keys
	{"memory.used_memory_delta_bytes", keep, keep},                                   // one server, one window: every segment read the same
	{"memory.bytes_per_identity", median, bytesPerIdentity},                          // noise across repetitions; over every segment's identities, noted as approximate
	{"memory.memory_usage_sampled_bytes", median, weightedBy("memory.sampled_keys")}, // noise; segments' samples weigh by their size
	{"memory.keys_without_ttl", worst, sum},                                          // a leak is a finding; disjoint keys
	{"memory.keys_outside_prefix", worst, sum},                                       // likewise
	{"memory.outside_prefix_examples", keep, keep},                                   // a few examples are enough
	{"memory.client_buffers_delta_bytes", keep, keep},                                // one server's reading, as used_memory
	{"memory.sampled_keys", keep, sum},                                               // every segment's sample
	{"memory.encodings", keep, sumPerKey},                                            // every segment's sample
	{"memory.rlbench_peak_heap_bytes", keep, highest},                                // each segment is its own process: the largest
	{"memory.rlbench_peak_rss_bytes", keep, highest},                                 // likewise
	{"memory.audit_heap_bytes", keep, highest},                                       // likewise
	{"memory.notes", keep, keep},                                                     // bytes_per_identity adds its own
	{"memory.census_failed", keep, keep},                                             // the first reading's census
	{"memory.skipped", keep, keep},                                                   // likewise

	// The server's figures: segments share the server, so each reading
	// covers all of them; one is kept, with a note.
	{"server", keep, serverNoted},
	{"server.usec_per_call", median, inSection}, // noise across repetitions

	{"eviction", keep, firstPresent},
	{"eviction.policy_before", keep, keep},    // one server
	{"eviction.policy_after", keep, keep},     // likewise
	{"eviction.evicted_keys", worst, highest}, // a reset limiter is a finding; segments read the same server's counter
	{"eviction.expired_keys", worst, highest}, // likewise
	{"eviction.restarted", anyOf, anyOf},      // a restart any of them saw
	{"eviction.server_switches", keep, keep},  // the faults one profile scheduled

	// The reference: noise across repetitions. Each segment measured its
	// own beside its share of the load; the first's is kept, its
	// closed-loop throughput added up as the runs' rates are.
	{"reference", keep, referenceOfFirst},
	{"reference.ping_us.p50", median, inSection},           // noise
	{"reference.ping_us.p99", median, inSection},           // noise
	{"reference.script_us.p50", median, inSection},         // noise
	{"reference.script_us.p99", median, inSection},         // noise
	{"reference.usec_per_call", median, inSection},         // noise
	{"reference.limiter_usec_per_call", median, inSection}, // noise
	{"reference.throughput_per_s", median, sum},            // noise; segments' goroutines ran side by side
	{"relative", keep, relativeToReference},                // the merged figures over the merged reference
	{"relative.latency_p50", median, inSection},            // noise
	{"relative.latency_p99", median, inSection},            // noise
	{"relative.server_cost", median, inSection},            // noise
	{"relative.throughput", median, inSection},             // noise

	// Faults: one schedule on one server; the first segment's reading.
	{"faults", keep, keep},
	{"faults.policy_excess", worst, inSection},       // a finding of the error policy
	{"faults.state_lost_admitted", worst, inSection}, // a finding
	{"faults.max_attempts", worst, inSection},        // a retry storm is a finding
	{"faults.max_recovery_ms", worst, inSection},     // the slowest recovery
	{"faults.unjudged_mismatches", worst, inSection}, // a finding
	{"cluster", keep, clusterOfFirst},                // one cluster's masters, read alike by every segment; redirections add up
	{"cluster.busiest_node_share", worst, inSection}, // a hot node is a finding
	{"clock_offset", keep, keep},                     // one server's clock

	// Repeats is what merging repetitions keeps of them; a segment's
	// figures are its median repetition's (the note says so).
	{"repeats", repetitionValues, dropped},
	// The note, last, so that it can say what the rows above could not
	// merge exactly.
	{"note", keep, segmentNotes},
}

// Combiners that apply to any field.
var (
	// keep leaves the base's value: the median repetition's, the first
	// segment's.
	keep = combiner{name: "kept", whole: true}
	// inSection defers to the combiner of the field's section.
	inSection = combiner{name: "as its section"}
	// median is the median over the repetitions; Repeats keeps every
	// repetition's value.
	median = combiner{name: "median", apply: func(m *merging, path string) error {
		if vs, ok := m.gather(path); ok {
			setField(m.out, path, Median(vs))
		}
		return nil
	}}
	// worst is the highest over the repetitions; Repeats keeps every
	// repetition's value.
	worst = combiner{name: "worst", apply: func(m *merging, path string) error {
		if vs, ok := m.gather(path); ok {
			setField(m.out, path, slices.Max(vs))
		}
		return nil
	}}
	// sum adds up every number under the path over the parts that have it.
	sum = combiner{name: "sum", whole: true, apply: func(m *merging, path string) error {
		if dst, ok := m.at(m.out, path); ok {
			zeroNumbers(dst)
			for _, v := range m.present(path) {
				addNumbers(dst, v)
			}
		}
		return nil
	}}
	// highest is the highest of the parts that have the field.
	highest = combiner{name: "highest", apply: func(m *merging, path string) error {
		dst, ok := m.at(m.out, path)
		vs := m.present(path)
		if !ok || len(vs) == 0 {
			return nil
		}
		dst.Set(vs[0])
		for _, v := range vs[1:] {
			if greater(v, dst) {
				dst.Set(v)
			}
		}
		return nil
	}}
	// anyOf is true when it is true in any part that has the field.
	anyOf = combiner{name: "any", apply: func(m *merging, path string) error {
		if dst, ok := m.at(m.out, path); ok {
			seen := false
			for _, v := range m.present(path) {
				seen = seen || v.Bool()
			}
			dst.SetBool(seen)
		}
		return nil
	}}
	// firstPresent makes the section a copy of the first part's that has
	// one (nil when none has): each field under it has its own rule.
	firstPresent = combiner{name: "the first that has one", apply: func(m *merging, path string) error {
		dst, ok := locate(m.out, path)
		if !ok {
			return nil
		}
		dst.SetZero()
		for _, p := range m.parts {
			if v, ok := locate(p, path); ok && !v.IsNil() {
				c := reflect.New(v.Elem().Type())
				c.Elem().Set(v.Elem())
				cloneStructs(c.Elem())
				dst.Set(c)
				return nil
			}
		}
		return nil
	}}
	// sumPerKey adds up a map's counts key by key.
	sumPerKey = combiner{name: "sum per key", whole: true, apply: func(m *merging, path string) error {
		dst, ok := m.at(m.out, path)
		if !ok {
			return nil
		}
		out := reflect.MakeMap(dst.Type())
		for _, v := range m.present(path) {
			for it := v.MapRange(); it.Next(); {
				total := reflect.New(dst.Type().Elem()).Elem()
				if prev := out.MapIndex(it.Key()); prev.IsValid() {
					total.Set(prev)
				}
				addNumbers(total, it.Value())
				out.SetMapIndex(it.Key(), total)
			}
		}
		dst.Set(out)
		return nil
	}}
)

// weightedBy is the mean over the parts weighted by the field at weight in
// each; the base's value when the weights add up to nothing.
func weightedBy(weight string) combiner {
	return combiner{name: "mean weighted by " + weight, apply: func(m *merging, path string) error {
		dst, ok := m.at(m.out, path)
		if !ok {
			return nil
		}
		var sum, total float64
		for _, p := range m.parts {
			v, okV := m.at(p, path)
			w, okW := m.at(p, weight)
			if okV && okW {
				sum += number(v) * number(w)
				total += number(w)
			}
		}
		if total > 0 {
			dst.SetFloat(sum / total)
		}
		return nil
	}}
}

// repetitionValues gathers every repetition's value of the field at path
// into Repeats.Values, and reports false unless each has one.
func (m *merging) gather(path string) ([]float64, bool) {
	var vs []float64
	for _, p := range m.parts {
		if v, ok := FieldValue(p, path); ok {
			vs = append(vs, v)
		}
	}
	if len(vs) != len(m.parts) {
		return nil, false
	}
	m.values[path] = vs
	return vs, true
}

// at is the value at path in run, through every pointer; false when a nil
// pointer leaves it out.
func (m *merging) at(run *Run, path string) (reflect.Value, bool) {
	v, ok := locate(run, path)
	for ok && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	return v, ok
}

// present is the value at path of each part that has one, in order.
func (m *merging) present(path string) []reflect.Value {
	var out []reflect.Value
	for _, p := range m.parts {
		if v, ok := m.at(p, path); ok {
			out = append(out, v)
		}
	}
	return out
}

// locate is the field at path in run, itself (a pointer stays a pointer);
// false when a nil pointer on the way leaves it out.
func locate(run *Run, path string) (reflect.Value, bool) {
	v := reflect.ValueOf(run).Elem()
	for _, name := range strings.Split(path, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		f, ok := fieldByJSONName(v.Type(), name)
		if !ok {
			return reflect.Value{}, false
		}
		v = v.FieldByIndex(f.Index)
	}
	return v, true
}

// number reads an integer or a float as a float.
func number(v reflect.Value) float64 {
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanUint():
		return float64(v.Uint())
	case v.CanFloat():
		return v.Float()
	}
	return 0
}

// greater reports whether the number a is greater than b, of one kind.
func greater(a, b reflect.Value) bool {
	switch {
	case a.CanInt():
		return a.Int() > b.Int()
	case a.CanUint():
		return a.Uint() > b.Uint()
	case a.CanFloat():
		return a.Float() > b.Float()
	}
	return false
}

// zeroNumbers sets every number in v (a number or a struct of them) to 0.
func zeroNumbers(v reflect.Value) {
	switch {
	case v.Kind() == reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				zeroNumbers(v.Field(i))
			}
		}
	case v.CanInt(), v.CanUint(), v.CanFloat():
		v.SetZero()
	}
}

// addNumbers adds every number in src to dst's (a number or a struct of
// them).
func addNumbers(dst, src reflect.Value) {
	switch {
	case dst.Kind() == reflect.Struct:
		for i := 0; i < dst.NumField(); i++ {
			if dst.Type().Field(i).IsExported() {
				addNumbers(dst.Field(i), src.Field(i))
			}
		}
	case dst.CanInt():
		dst.SetInt(dst.Int() + src.Int())
	case dst.CanUint():
		dst.SetUint(dst.Uint() + src.Uint())
	case dst.CanFloat():
		dst.SetFloat(dst.Float() + src.Float())
	}
}

// cloneRun copies run and every struct it points to, so that merging
// into the copy leaves the parts alone. Slices and maps are shared: no
// combiner writes into them.
func cloneRun(run *Run) *Run {
	c := *run
	cloneStructs(reflect.ValueOf(&c).Elem())
	return &c
}

func cloneStructs(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case !v.Type().Field(i).IsExported():
		case f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.Struct:
			c := reflect.New(f.Elem().Type())
			c.Elem().Set(f.Elem())
			cloneStructs(c.Elem())
			f.Set(c)
		case f.Kind() == reflect.Struct:
			cloneStructs(f)
		}
	}
}
