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

// rules is how each field of a run combines across repetitions and across
// segments, one row per field or per section that combines as a unit. The
// merged run starts as a copy of its base (the median repetition by p99, or
// the first segment), so a field whose rule is keep is the base's: within
// a section firstPresent copied, the first segment's that has one.
//
// Rows run in order: a figure derived from others (the audit's coverage,
// the mean batch, bytes per identity, the relative figures, the note) comes
// after the rows of what it is derived from. A section's row whose combiner
// is whole speaks for every field under it but those with a row of their
// own (inSection defers to it); byField and firstPresent are not whole, so
// each field of such a section has its row, both ways. TestEveryFieldHasARule checks that every
// field has a rule both ways.
var rules = []rule{
	// What ran: every part ran this algorithm in this scenario of one
	// profile.
	{"algorithm", keep, keep},         // the run's key, the same in every part
	{"scenario", keep, keep},          // likewise
	{"shape", keep, keep},             // one scenario has one shape
	{"scenario_group", keep, keep},    // the scenario's name as written, one for every part
	{"policy_group", keep, keep},      // likewise
	{"params", keep, keep},            // one profile, so the same parameters
	{"params.concurrency", keep, sum}, // each segment's process ran its own workers beside the others'
	{"identities", keep, keep},        // the scenario's identities, which every segment states alike

	// Traffic. Every repetition's and every segment's requests were made,
	// so counts add up; segments ran side by side, so rates add up too,
	// where a repetition's rate is one draw of the same figure.
	{"requests", sum, sum},                      // counts, each field of them
	{"rate.target_per_s", keep, sum},            // repetitions offered one rate; segments theirs side by side
	{"rate.achieved_per_s", median, sum},        // machine noise across repetitions
	{"elapsed_s", keep, highest},                // segments ran together: the longest window spans them all
	{"max_lag_us", keep, highest},               // the furthest behind any segment fell
	{"generator", keep, generatorWaitedLongest}, // the process starved of CPU the most speaks for the load
	{"incomplete", anyOf, anyOf},                // one part cut short leaves the merged run short

	// Latency. HDR histograms of segments merge exactly and are digested
	// again; a repetition's histogram goes with its count. Percentiles
	// move with machine noise, so repetitions report their median.
	{"latency_hdr", keep, histogram("latency_us")},                         // merged exactly; writes latency_us
	{"latency_uncorrected_hdr", keep, histogram("latency_uncorrected_us")}, // likewise, from each call's send
	{"latency_us", keep, digested},                                         // the digest of latency_hdr
	{"latency_us.p50", median, inSection},                                  // noise
	{"latency_us.p90", median, inSection},                                  // noise
	{"latency_us.p99", median, inSection},                                  // noise (the base is the median by it)
	{"latency_us.p999", median, inSection},                                 // noise
	{"latency_us.max", median, inSection},                                  // noise
	{"latency_us.mean", median, inSection},                                 // noise
	{"latency_uncorrected_us", keep, digested},                             // the digest of latency_uncorrected_hdr
	{"latency_uncorrected_us.p50", median, inSection},                      // noise
	{"latency_uncorrected_us.p90", median, inSection},                      // noise
	{"latency_uncorrected_us.p99", median, inSection},                      // noise
	{"latency_uncorrected_us.p999", median, inSection},                     // noise
	{"latency_uncorrected_us.max", median, inSection},                      // noise
	{"latency_uncorrected_us.mean", median, inSection},                     // noise
	{"latency_allowed_us", keep, highestDigest},                            // no histogram to merge: the highest percentiles, noted
	{"latency_denied_us", keep, highestDigest},                             // likewise

	// Curves. A repetition's curves go with its counts; segments started
	// together on disjoint identities, so theirs add up.
	{"series", keep, addSeconds},   // second by second
	{"timeline", keep, addBins},    // bin by bin, at the widest bin
	{"edge", keep, edgeCurves},     // the most of any, the mean by identities
	{"errors", keep, errorsByKind}, // by kind, most frequent first

	// A declared limiter's replies whose optional parts did not read:
	// counted as the errors are.
	{"reply_malformed", keep, malformedByPart}, // by part, the first example of each

	// The audit. A correctness finding in any repetition is real, not
	// noise, so repetitions report the worst; the other figures go with
	// the median repetition. Segments audited disjoint identities: counts
	// add up, a window's figures are the busiest of any.
	{"audit", byField, firstPresent},                                     // a segment without an audit adds nothing to it
	{"audit.identities", keep, sum},                                      // disjoint identities
	{"audit.sampled", keep, anyOf},                                       // one sample makes the whole a sample
	{"audit.decisions", keep, sum},                                       // the disjoint identities' decisions
	{"audit.allowed", keep, sum},                                         // likewise
	{"audit.expected_allowed", keep, sum},                                // likewise
	{"audit.model_mismatches", worst, sum},                               // a finding; each segment found its own
	{"audit.under_admitted", worst, sum},                                 // a finding; each segment found its own
	{"audit.overshoot", worst, sum},                                      // a finding, summed over identities
	{"audit.policy_excess", worst, highest},                              // a finding of one window: the busiest
	{"audit.max_window_admitted", worst, highest},                        // a finding of one window: the busiest
	{"audit.bound_window", keep, highest},                                // one promise; the highest should segments state it otherwise
	{"audit.violations", worst, sum},                                     // a finding, counted in identities
	{"audit.coverage", keep, auditCoverage},                              // the merged audit's decisions over the merged run's
	{"audit.basis", keep, keep},                                          // one limiter, judged one way
	{"audit.window_ms", keep, keep},                                      // one declared interval
	{"audit.timing", byField, firstPresent},                              // present when any segment judged on client times
	{"audit.timing.uncertainty_p50_us", keep, highest},                   // medians of parts are no median of all: the larger to stand behind
	{"audit.timing.uncertainty_max_us", keep, highest},                   // the largest of any
	{"audit.timing.max_window_admitted_possible", keep, highest},         // the busiest window of any
	{"audit.caller_clock", byField, firstPresent},                        // present when any segment judged a caller's clock
	{"audit.caller_clock.tick_us", keep, keep},                           // one limiter's arguments
	{"audit.caller_clock.max_window_admitted_own", worst, highest},       // a window's figure: the busiest
	{"audit.caller_clock.burst", mostAt("admitted"), mostAt("admitted")}, // the busiest of any, whole
	{"audit.reply", byField, firstPresent},                               // present when any segment checked replies
	{"audit.reply.remaining_checked", keep, sum},                         // replies of disjoint identities
	{"audit.reply.remaining_wrong", worst, sum},                          // a finding
	{"audit.reply.retry_after_checked", keep, sum},                       // replies of disjoint identities
	{"audit.reply.retry_after_too_early", worst, sum},                    // a finding
	{"audit.vs_exact", byField, firstPresent},                            // present when any segment compared
	{"audit.vs_exact.algorithm", keep, keep},                             // one exact algorithm to compare with
	{"audit.vs_exact.decisions", keep, sum},                              // the disjoint identities' decisions
	{"audit.vs_exact.differ", keep, sum},                                 // likewise
	{"audit.vs_exact.admitted_beyond", keep, sum},                        // likewise
	{"audit.vs_exact.denied_within", keep, sum},                          // likewise
	// Against the ideal limiter: segments compared disjoint identities, so
	// counts add up and the shares are taken again from the sums; of
	// repetitions, the one that decided most often otherwise than the
	// ideal stands whole (its counts and shares together).
	{"accuracy", mostAt("wrong_share"), firstPresent},                                                  // a segment without an audit adds nothing to it
	{"accuracy.ideal", inSection, keep},                                                                // one profile's ideal
	{"accuracy.identities", inSection, sum},                                                            // disjoint identities
	{"accuracy.sampled", inSection, anyOf},                                                             // one sample makes the whole a sample
	{"accuracy.exact_times", inSection, allOf},                                                         // exact only where every segment's were
	{"accuracy.decisions", inSection, sum},                                                             // the disjoint identities' decisions
	{"accuracy.false_admits", inSection, sum},                                                          // likewise
	{"accuracy.false_denies", inSection, sum},                                                          // likewise
	{"accuracy.false_admit_units", inSection, sum},                                                     // likewise
	{"accuracy.false_deny_units", inSection, sum},                                                      // likewise
	{"accuracy.false_admit_share", inSection, accuracyShares},                                          // from the sums above (each share row writes all three)
	{"accuracy.false_deny_share", inSection, accuracyShares},                                           // likewise
	{"accuracy.wrong_share", inSection, accuracyShares},                                                // likewise
	{"accuracy.worst_identity", inSection, mostAt("false_admit_units")},                                // the worst of any segment, whole
	{"accuracy.near_threshold_rate_diff", inSection, weightedBy("accuracy.near_threshold_identities")}, // a mean over identities
	{"accuracy.near_threshold_identities", inSection, sum},                                             // disjoint identities
	{"accuracy.below_threshold_identities", inSection, sum},                                            // likewise
	{"accuracy.limited_below_threshold", inSection, sum},                                               // likewise
	{"accuracy.above_threshold_identities", inSection, sum},                                            // likewise
	{"accuracy.unlimited_above_threshold", inSection, sum},                                             // likewise
	{"accuracy.fault_decisions", inSection, sum},                                                       // likewise
	{"accuracy.fault_wrong", inSection, sum},                                                           // likewise
	{"accuracy.unknown_outcomes", inSection, sum},                                                      // likewise

	{"audit.power", byField, firstPresent},               // what the audit could have caught
	{"audit.power.offered_max_in_window", keep, highest}, // the busiest identity of any segment
	{"audit.power.replayed", keep, allOf},                // every segment replayed, or the sum of denials is not the model's
	{"audit.power.expected_denied", keep, sum},           // the disjoint identities' denials
	{"audit.power.excess", keep, anyOf},                  // one segment that could show it is enough
	{"audit.power.shortfall", keep, anyOf},               // likewise
	{"audit.power.promise_admits", keep, keep},           // one limiter's promise
	{"audit.power.promise_within_ms", keep, keep},        // likewise

	// The pipeline: each segment wrote its own batches.
	{"pipeline", byField, firstPresent},       // a segment that sent nothing has none
	{"pipeline.depth", keep, keep},            // one profile, one depth
	{"pipeline.auto", keep, keep},             // likewise
	{"pipeline.batches", keep, sum},           // every segment's writes
	{"pipeline.mean_batch", keep, meanBatch},  // from the sums, not a mean of means
	{"pipeline.largest_batch", keep, highest}, // the largest of any
	{"pipeline.resent", keep, sum},            // every segment's
	{"pipeline.note", keep, keep},             // said of the one profile

	// Memory. Segments' keys and identities are disjoint and add up; the
	// server's used_memory is one reading of the window they shared.
	{"memory", byField, firstPresent},                                                // a segment whose probes failed has none
	{"memory.identities", keep, sum},                                                 // disjoint identities
	{"memory.keys", keep, sum},                                                       // disjoint keys
	{"memory.used_memory_delta_bytes", keep, keep},                                   // one server, one window
	{"memory.bytes_per_identity", median, bytesPerIdentity},                          // noise; over every segment's identities, noted as approximate
	{"memory.memory_usage_sampled_bytes", median, weightedBy("memory.sampled_keys")}, // noise; each sample weighs by its size
	{"memory.keys_without_ttl", worst, sum},                                          // a leak is a finding; disjoint keys
	{"memory.keys_outside_prefix", worst, sum},                                       // likewise
	{"memory.outside_prefix_examples", keep, keep},                                   // a few examples say enough
	{"memory.keys_other_databases", worst, sum},                                      // a finding; disjoint keys
	{"memory.keys_other_databases_without_ttl", worst, sum},                          // likewise
	{"memory.other_database_examples", keep, keep},                                   // a few examples say enough
	{"memory.client_buffers_delta_bytes", keep, keep},                                // one server's reading, as used_memory
	{"memory.sampled_keys", keep, sum},                                               // every segment's sample
	{"memory.encodings", keep, sumPerKey},                                            // every segment's sample
	{"memory.rlbench_peak_heap_bytes", keep, highest},                                // each segment is a process of its own: the largest
	{"memory.rlbench_peak_rss_bytes", keep, highest},                                 // likewise
	{"memory.audit_heap_bytes", keep, highest},                                       // likewise
	{"memory.notes", keep, keep},                                                     // bytes_per_identity adds its own
	{"memory.census_failed", keep, keep},                                             // said of the reading kept
	{"memory.skipped", keep, keep},                                                   // likewise
	{"memory.used_memory_unread", anyOf, anyOf},                                      // a part without the reading leaves the merged figure unread
	{"memory.expired_keys", keep, keep},                                              // one server's count over the window the parts shared
	{"memory.fill", keep, keep},                                                      // the reading kept's; every segment filled the one server alike
	{"memory.no_fill", keep, keep},                                                   // said of the reading kept

	// Memory over time: a curve of one process beside one server. A
	// repetition's goes with its counts; each segment's process sampled
	// its own memory beside the one server all of them shared, whose
	// used_memory and keys each sample covers whole: the first segment's
	// curve is kept, and rlbench's growth is that of the part that grew
	// most.
	{"memory_over_time", keep, keep},                           // the median repetition's; the first segment's
	{"memory_over_time.rlbench_rss", rssGrewMost, rssGrewMost}, // growth in any part is a finding

	// The server's figures. Segments share the server, so each reading
	// covers all of them: one is kept, with a note.
	{"server", keep, serverNoted},               // the first segment's reading, noted
	{"server.usec_per_call", median, inSection}, // noise

	// Evictions: segments read the same server's counters.
	{"eviction", byField, firstPresent},       // a segment that could not read INFO has none
	{"eviction.policy_before", keep, keep},    // one server
	{"eviction.policy_after", keep, keep},     // likewise
	{"eviction.evicted_keys", worst, highest}, // a reset limiter is a finding; the most any segment saw
	{"eviction.expired_keys", worst, highest}, // likewise
	{"eviction.restarted", anyOf, anyOf},      // a restart any part saw
	{"eviction.server_switches", keep, keep},  // the faults of one profile
	{"eviction.audited", allOf, allOf},        // the audit knew of every part's resets, or the merged run cannot say it did

	// The reference, and the figures over it: noise across repetitions.
	// Each segment measured its own beside its share of the load; the
	// first's is kept, its closed-loop throughput added up as the rates
	// are, and the merged figures are divided by it again.
	{"reference", keep, referenceOfFirst},                  // the first segment's, when it has figures over it
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
	{"relative.server_cost_low", median, inSection},        // noise, as the ratio it brackets
	{"relative.server_cost_high", median, inSection},       // likewise
	{"relative.throughput", median, inSection},             // noise

	// Faults, the cluster and the clock: what one profile did to one
	// server, or one cluster, which every segment read alike.
	{"faults", keep, keep},                           // a segmented run refuses faults: one process injects them for the whole load
	{"faults.policy_excess", worst, inSection},       // a finding of the error policy
	{"faults.state_lost_admitted", worst, inSection}, // a finding
	{"faults.max_attempts", worst, inSection},        // a retry storm is a finding
	{"faults.max_recovery_ms", worst, inSection},     // the slowest recovery is the finding
	{"faults.unjudged_mismatches", worst, inSection}, // a finding
	{"cluster", keep, clusterOfFirst},                // the first's masters; every segment's redirections
	{"cluster.busiest_node_share", worst, inSection}, // a hot node is a finding
	{"clock_offset", keep, keep},                     // one server's clock

	// How a boundary run found its windows' ends: one limiter's way;
	// segments located disjoint identities.
	{"window_location", byField, firstPresent},
	{"window_location.method", keep, keep},                   // one limiter's
	{"window_location.identities", keep, sum},                // disjoint identities
	{"window_location.by_formula", keep, sum},                // likewise
	{"window_location.by_reply", keep, sum},                  // likewise
	{"window_location.by_ttl", keep, sum},                    // likewise
	{"window_location.by_behaviour", keep, sum},              // likewise
	{"window_location.after_prime", keep, sum},               // likewise
	{"window_location.without_ttl", worst, sum},              // a finding; disjoint identities
	{"window_location.example", keep, keep},                  // one example says enough
	{"window_location.reply_refused", worst, sum},            // likewise a finding
	{"window_location.reply_refused_example", keep, keep},    // one example says enough
	{"window_location.uncertainty_max_us", highest, highest}, // the widest any part knew an end within

	// The fleet: every part ran one fleet of application instances; the
	// segments' instances served disjoint identities.
	{"fleet", byField, firstPresent},             // a segment without a fleet adds nothing to it
	{"fleet.instances", keep, keep},              // one profile's fleet
	{"fleet.sticky", keep, keep},                 // likewise
	{"fleet.clock_skew_ms", keep, keep},          // one step of a sweep
	{"fleet.listed", keep, keep},                 // one profile's fleet
	{"fleet.drift_ms_per_min", keep, keep},       // likewise
	{"fleet.sweep", keep, keep},                  // the scenario's name, one for every part
	{"fleet.takes_time", keep, keep},             // one limiter's
	{"fleet.per_instance", keep, instancesAdded}, // the median repetition's; segments' added instance by instance

	// A capacity search: each repetition searched on its own, so its
	// capacity and ceilings are draws of one figure, and the steps are the
	// median repetition's. A segment searches for no load of its own
	// (profile refuses the shape with --segment): the first's is kept.
	{"capacity", keep, keep},
	{"capacity.per_s", median, inSection},                       // noise
	{"capacity.broke_per_s", median, inSection},                 // noise
	{"capacity.generator_bound_at_per_s", median, inSection},    // noise
	{"capacity.server_usec_per_decision", median, inSection},    // noise
	{"capacity.generator_usec_per_decision", median, inSection}, // noise
	{"capacity.ceiling_per_s", median, inSection},               // follows the cost per decision
	{"capacity.share_of_ceiling", median, inSection},            // noise
	{"capacity.share_of_pipelined", median, inSection},          // noise
	{"capacity.server_cpu_at_capacity", median, inSection},      // noise
	{"capacity.bytes_per_identity", median, inSection},          // noise

	// What merging keeps of repetitions; a segment's figures are its
	// median repetition's, and the note says so.
	{"repeats", repetitionValues, dropped}, // each repetition's values; not merged across segments
	// What the server refused: one user on one server, checked alike by
	// every part.
	{"unavailable", keep, keep},
	// Last, so that it can say what the rows above could not merge
	// exactly.
	{"note", keep, segmentNotes}, // the median repetition's; every segment's, each once
}

// Combiners that apply to any field.
var (
	// keep leaves the base's value: the median repetition's, the first
	// segment's.
	keep = combiner{name: "kept", whole: true}
	// byField leaves the base's section, each field of it to its own
	// rule.
	byField = combiner{name: "field by field"}
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
	// allOf is true when every part that has the field has it true.
	allOf = combiner{name: "all", apply: func(m *merging, path string) error {
		if dst, ok := m.at(m.out, path); ok {
			all := true
			for _, v := range m.present(path) {
				all = all && v.Bool()
			}
			dst.SetBool(all)
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

// mostAt is, whole, the section of the part whose field named field holds
// the most (the first of those that tie); nil when no part has one.
func mostAt(field string) combiner {
	return combiner{name: "the one with the most " + field, whole: true, apply: func(m *merging, path string) error {
		dst, ok := locate(m.out, path)
		if !ok {
			return nil
		}
		var best reflect.Value
		for _, p := range m.parts {
			v, ok := locate(p, path)
			if !ok || v.IsNil() {
				continue
			}
			if !best.IsValid() || greater(jsonField(v.Elem(), field), jsonField(best.Elem(), field)) {
				best = v
			}
		}
		dst.SetZero()
		if best.IsValid() {
			c := reflect.New(best.Elem().Type())
			c.Elem().Set(best.Elem())
			dst.Set(c)
		}
		return nil
	}}
}

// jsonField is the field of struct v that JSON names name.
func jsonField(v reflect.Value, name string) reflect.Value {
	for i := range v.NumField() {
		if jsonName(v.Type().Field(i)) == name {
			return v.Field(i)
		}
	}
	panic("result: no field " + name + " in " + v.Type().String())
}

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

// addCounts adds every number of src to dst, a struct of counts.
func addCounts[T any](dst, src *T) {
	addNumbers(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem())
}

// clonePointer copies what p points to.
func clonePointer[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
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
