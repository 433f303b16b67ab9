package result

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Notes a merged result carries where a figure could not be merged exactly.
const (
	mergedServerNote = "the server's figures are one segment's reading: segments share the server, so each reading covers all of them"
	mergedMemoryNote = "used_memory is one segment's reading over the same window as the others' (they share the server): " +
		"bytes per identity divides it by every segment's identities, so it is approximate"
	mergedLatencyNote = "latency of allowed and denied requests alone: the highest of the segments' percentiles (no histogram to merge)"
)

// MergeSegments builds one result from the results of the segments of one
// load (rlbench run --segment I/N): request counts, per-second series and
// timelines are summed, latency histograms merged exactly, audit figures
// combined (each segment audited its own identities), and the server's
// memory and command figures taken from one segment with a note, since all
// segments share the server; each field of a run combines by its rule in
// the table MergeRepeats follows too. Results that do not belong together
// — another profile, seed, segment count or start, a missing or a
// duplicate segment — are an error that says which. Thresholds and the
// verdict are left for the caller to evaluate on the merged result.
func MergeSegments(results []*Result) (*Result, error) {
	if len(results) == 0 {
		return nil, errors.New("no results to merge")
	}
	bySegment, err := checkSegments(results)
	if err != nil {
		return nil, err
	}
	first := bySegment[0]
	out := *first
	out.Segment = nil
	out.RunID = first.Segment.Group
	out.Runs = nil
	out.Thresholds = []ThresholdResult{}
	out.Verdict = ""
	out.Complete = true
	var reasons []string
	for _, r := range bySegment {
		out.MergedSegments = append(out.MergedSegments, r.RunID)
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		if !r.Complete {
			out.Complete = false
			reasons = append(reasons, fmt.Sprintf("segment %d: %s", r.Segment.Index, r.IncompleteReason))
		}
	}
	out.IncompleteReason = strings.Join(reasons, "; ")
	var order []string
	runs := map[string][]*Run{}
	for _, r := range bySegment {
		for i := range r.Runs {
			k := r.Runs[i].Key()
			if _, ok := runs[k]; !ok {
				order = append(order, k)
			}
			runs[k] = append(runs[k], &r.Runs[i])
		}
	}
	for _, k := range order {
		run, err := mergeRuns(runs[k], len(bySegment))
		if err != nil {
			return nil, err
		}
		out.Runs = append(out.Runs, run)
	}
	return &out, nil
}

// checkSegments checks the results are the segments of one load, each
// once, of one plan (see onePlan), and returns them in segment order.
func checkSegments(results []*Result) ([]*Result, error) {
	first := results[0]
	if first.Segment == nil {
		return nil, fmt.Errorf("result %s is not a segment (run with --segment I/N)", first.RunID)
	}
	count := first.Segment.Count
	bySegment := make([]*Result, count)
	for _, r := range results {
		s := r.Segment
		switch {
		case s == nil:
			return nil, fmt.Errorf("result %s is not a segment (run with --segment I/N)", r.RunID)
		case r.Profile.SHA256 != first.Profile.SHA256:
			return nil, fmt.Errorf("segment %d ran another profile (%s %.12s, not %s %.12s)", s.Index, r.Profile.Name, r.Profile.SHA256, first.Profile.Name, first.Profile.SHA256)
		case r.Profile.Seed != first.Profile.Seed:
			return nil, fmt.Errorf("segment %d ran with seed %d, segment %d with %d", s.Index, r.Profile.Seed, first.Segment.Index, first.Profile.Seed)
		case s.Count != count:
			return nil, fmt.Errorf("segment %d is one of %d segments, segment %d one of %d", s.Index, s.Count, first.Segment.Index, count)
		case s.Group != first.Segment.Group:
			return nil, fmt.Errorf("segment %d belongs to load %s, segment %d to %s (another start or another run)", s.Index, s.Group, first.Segment.Index, first.Segment.Group)
		case s.Index < 0 || s.Index >= count:
			return nil, fmt.Errorf("segment index %d out of 0..%d", s.Index, count-1)
		case bySegment[s.Index] != nil:
			return nil, fmt.Errorf("segment %d is given twice (runs %s and %s)", s.Index, bySegment[s.Index].RunID, r.RunID)
		}
		bySegment[s.Index] = r
	}
	var missing []string
	for i, r := range bySegment {
		if r == nil {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("segments %s of %d are missing", strings.Join(missing, ", "), count)
	}
	if err := onePlan(bySegment); err != nil {
		return nil, err
	}
	return bySegment, nil
}

// mergeRuns merges one algorithm/scenario's runs of the segments, each field
// by its rule.
func mergeRuns(parts []*Run, segments int) (Run, error) {
	m := newMerging(parts[0], parts)
	m.segments = segments
	if err := m.run(func(r rule) combiner { return r.segments }); err != nil {
		return Run{}, err
	}
	return *m.out, nil
}

// histogram merges the segments' HDR histograms at path exactly, and puts
// the merged histogram's digest at digest.
func histogram(digest string) combiner {
	return combiner{name: "histograms merged", apply: func(m *merging, path string) error {
		merged := NewHistogram()
		for _, p := range m.parts {
			v, _ := locate(p, path)
			if v.String() == "" {
				continue
			}
			d, err := hdrhistogram.Decode([]byte(v.String()))
			if err != nil {
				return &HistogramError{Run: p.Key(), Field: path, Err: err}
			}
			merged.h.Merge(d)
		}
		enc, err := EncodeHistogram(merged)
		if err != nil {
			return err
		}
		h, _ := locate(m.out, path)
		h.SetString(enc)
		d, _ := locate(m.out, digest)
		d.Set(reflect.ValueOf(Digest(merged)))
		return nil
	}}
}

// Combiners of segments for one section each.
var (
	// digested is the digest the section's histogram row writes.
	digested = combiner{name: "the merged histogram's digest", whole: true}
	// highestDigest combines digests that have no histogram: counts add
	// up, the mean is weighted by them, each percentile is the highest of
	// any segment's.
	highestDigest = combiner{name: "the highest percentiles", whole: true, apply: func(m *merging, path string) error {
		v, _ := locate(m.out, path)
		v.Set(reflect.ValueOf(highestLatency(m.parts, func(r *Run) Latency {
			l, _ := locate(r, path)
			return l.Interface().(Latency)
		})))
		if len(m.parts) > 1 {
			m.notes = append(m.notes, mergedLatencyNote)
		}
		return nil
	}}
	addSeconds = combiner{name: "seconds added", whole: true, apply: func(m *merging, _ string) error {
		m.out.Series = mergeSeries(m.parts)
		return nil
	}}
	addBins = combiner{name: "bins added", whole: true, apply: func(m *merging, _ string) error {
		m.out.Timeline = mergeTimelines(m.parts)
		return nil
	}}
	edgeCurves = combiner{name: "edge curves combined", whole: true, apply: func(m *merging, _ string) error {
		m.out.Edge = mergeEdges(m.parts)
		return nil
	}}
	errorsByKind = combiner{name: "added by kind", whole: true, apply: func(m *merging, _ string) error {
		m.out.Errors = mergeErrors(m.parts)
		return nil
	}}
	malformedByPart = combiner{name: "added by part", whole: true, apply: func(m *merging, _ string) error {
		m.out.ReplyMalformed = mergeMalformed(m.parts)
		return nil
	}}
	clusterOfFirst = combiner{name: "the first's, redirections added", whole: true, apply: func(m *merging, _ string) error {
		m.out.Cluster = mergeClusters(m.parts)
		return nil
	}}
	// generatorWaitedLongest keeps the figures of the segment whose process
	// waited longest for a CPU.
	generatorWaitedLongest = combiner{name: "the segment that waited longest", whole: true, apply: func(m *merging, _ string) error {
		m.out.Generator = nil
		for _, p := range m.parts {
			if p.Generator != nil && (m.out.Generator == nil || p.Generator.CPUWaitShare > m.out.Generator.CPUWaitShare) {
				m.out.Generator = clonePointer(p.Generator)
			}
		}
		return nil
	}}
	// rssGrewMost keeps the resident set's figures of the part (the
	// repetition, or the segment's process) in which it grew most.
	rssGrewMost = combiner{name: "the part whose resident set grew most", whole: true, apply: func(m *merging, _ string) error {
		out := m.out.MemoryOverTime
		if out == nil {
			return nil
		}
		out.RlbenchRSS = nil
		for _, p := range m.parts {
			if t := p.MemoryOverTime; t != nil && t.RlbenchRSS != nil && (out.RlbenchRSS == nil || t.RlbenchRSS.Growth > out.RlbenchRSS.Growth) {
				out.RlbenchRSS = clonePointer(t.RlbenchRSS)
			}
		}
		return nil
	}}
	// auditCoverage is the share of the merged run's decisions the merged
	// audit replayed.
	auditCoverage = combiner{name: "audited decisions over decisions", apply: func(m *merging, _ string) error {
		if a := m.out.Audit; a != nil {
			a.Coverage = 0
			if d := m.out.Requests.Decisions(); d > 0 {
				a.Coverage = min(float64(a.Decisions)/float64(d), 1)
			}
		}
		return nil
	}}
	// accuracyShares takes the shares of the merged comparison with the
	// ideal from its summed counts.
	accuracyShares = combiner{name: "counts over decisions", apply: func(m *merging, _ string) error {
		if a := m.out.Accuracy; a != nil {
			a.SetShares()
		}
		return nil
	}}
	// meanBatch is every pipelined segment's requests over their batches.
	meanBatch = combiner{name: "requests over batches", apply: func(m *merging, _ string) error {
		out := m.out.Pipeline
		if out == nil || out.Batches <= 0 {
			return nil
		}
		var sent int64
		for _, p := range m.parts {
			if p.Pipeline != nil {
				sent += p.Requests.Sent
			}
		}
		out.MeanBatch = float64(sent) / float64(out.Batches)
		return nil
	}}
	// bytesPerIdentity divides the one reading of used_memory by every
	// segment's identities, with a note.
	bytesPerIdentity = combiner{name: "used memory over every identity", apply: func(m *merging, _ string) error {
		if out := m.out.Memory; out != nil && out.Fill != nil {
			// Measured apart from the traffic, by one segment as by any.
			out.BytesPerIdentity = out.Fill.BytesPerIdentity
		} else if out != nil && out.Identities > 0 && out.UsedMemoryDeltaBytes != 0 {
			out.BytesPerIdentity = float64(out.UsedMemoryDeltaBytes-out.ClientBuffersDeltaBytes) / float64(out.Identities)
			out.Notes = append(slices.Clone(out.Notes), mergedMemoryNote)
		}
		return nil
	}}
	// serverNoted keeps the first segment's server figures, with a note.
	serverNoted = combiner{name: "the first's, noted", whole: true, apply: func(m *merging, _ string) error {
		if s := m.out.Server; s != nil {
			s.Note = strings.TrimPrefix(strings.Join([]string{s.Note, mergedServerNote}, "; "), "; ")
		}
		return nil
	}}
	// referenceOfFirst keeps the first segment's reference, when it has
	// figures relative to it.
	referenceOfFirst = combiner{name: "the first's", whole: true, apply: func(m *merging, _ string) error {
		if first := m.parts[0]; first.Reference == nil || first.Relative == nil {
			m.out.Reference = nil
		}
		return nil
	}}
	// relativeToReference divides the merged figures by the merged
	// reference, with the first segment's server cost ratio.
	relativeToReference = combiner{name: "over the merged reference", whole: true, apply: func(m *merging, _ string) error {
		m.out.Relative = nil
		if m.out.Reference != nil && m.parts[0].Relative != nil {
			first := m.parts[0].Relative
			m.out.Relative = NewRelative(m.out, CostRatio{Median: first.ServerCost, Low: first.ServerCostLow, High: first.ServerCostHigh})
		}
		return nil
	}}
	// segmentNotes are the first segment's note, then each other
	// segment's and what merging could not do exactly, each once.
	segmentNotes = combiner{name: "every segment's, each once", apply: func(m *merging, _ string) error {
		var notes []string
		if len(m.parts) < m.segments {
			notes = append(notes, fmt.Sprintf("only %d of %d segments have this run", len(m.parts), m.segments))
		}
		for _, p := range m.parts {
			if p.Note != "" && p != m.parts[0] {
				notes = append(notes, p.Note)
			}
			if p.Repeats != nil {
				notes = append(notes, "repetitions are not merged across segments: each segment's figures are its median repetition")
			}
		}
		var kept []string
		for _, n := range append(append([]string{m.parts[0].Note}, notes...), m.notes...) {
			if n != "" && !slices.Contains(kept, n) {
				kept = append(kept, n)
			}
		}
		m.out.Note = strings.Join(kept, "; ")
		return nil
	}}
	// dropped leaves the section out of a merged run.
	dropped = combiner{name: "dropped", whole: true, apply: func(m *merging, path string) error {
		v, _ := locate(m.out, path)
		v.SetZero()
		return nil
	}}
)

// highestLatency combines digests with no histogram: counts add up, the
// mean is weighted by them, each percentile is the highest of any.
func highestLatency(parts []*Run, of func(*Run) Latency) Latency {
	var out Latency
	var sum float64
	for _, p := range parts {
		l := of(p)
		out.Count += l.Count
		sum += l.Mean * float64(l.Count)
		out.P50, out.P90, out.P99 = max(out.P50, l.P50), max(out.P90, l.P90), max(out.P99, l.P99)
		out.P999, out.Max = max(out.P999, l.P999), max(out.Max, l.Max)
	}
	if out.Count > 0 {
		out.Mean = sum / float64(out.Count)
	}
	return out
}

func mergeErrors(parts []*Run) []ErrorCount {
	var out []ErrorCount
	for _, p := range parts {
		for _, e := range p.Errors {
			// Errors are grouped by kind (one example message each); a
			// result from before kinds groups them by message.
			i := slices.IndexFunc(out, func(o ErrorCount) bool {
				if e.Kind != "" || o.Kind != "" {
					return o.Kind == e.Kind
				}
				return o.Message == e.Message
			})
			if i < 0 {
				out = append(out, e)
				continue
			}
			out[i].Count += e.Count
		}
	}
	slices.SortStableFunc(out, func(a, b ErrorCount) int { return int(b.Count - a.Count) })
	return out
}

// mergeMalformed adds the segments' counts part by part, keeping the first
// example of each.
func mergeMalformed(parts []*Run) []ReplyMalformed {
	var out []ReplyMalformed
	for _, p := range parts {
		for _, m := range p.ReplyMalformed {
			i := slices.IndexFunc(out, func(o ReplyMalformed) bool { return o.Part == m.Part && o.Position == m.Position })
			if i < 0 {
				out = append(out, m)
				continue
			}
			out[i].Count += m.Count
		}
	}
	return out
}

// mergeSeries adds the segments' seconds: they started together.
func mergeSeries(parts []*Run) []Second {
	var out []Second
	for _, p := range parts {
		for _, s := range p.Series {
			for len(out) <= s.TS {
				out = append(out, Second{TS: len(out)})
			}
			o := &out[s.TS]
			o.Allowed += s.Allowed
			o.Denied += s.Denied
			o.Errors += s.Errors
			o.P99Us = max(o.P99Us, s.P99Us)
		}
	}
	return out
}

// mergeTimelines adds the segments' bins at the widest bin of any of them
// (bins widen by doubling, so a narrower one divides it); a bin's p99 is
// the highest of the segments'.
func mergeTimelines(parts []*Run) *Timeline {
	width := int64(0)
	for _, p := range parts {
		if p.Timeline != nil {
			width = max(width, p.Timeline.BinMs)
		}
	}
	if width == 0 {
		return nil
	}
	out := &Timeline{BinMs: width}
	for _, p := range parts {
		if p.Timeline == nil || p.Timeline.BinMs <= 0 {
			continue
		}
		for _, b := range p.Timeline.Bins {
			i := int(b.TMs / width)
			for len(out.Bins) <= i {
				out.Bins = append(out.Bins, Bin{TMs: int64(len(out.Bins)) * width})
			}
			o := &out.Bins[i]
			o.Allowed += b.Allowed
			o.Denied += b.Denied
			o.Errors += b.Errors
			o.P99Us = max(o.P99Us, b.P99Us)
		}
	}
	return out
}

// mergeEdges combines edge curves of disjoint identities: the most of any,
// the mean weighted by identities.
func mergeEdges(parts []*Run) *Edge {
	var out *Edge
	for _, p := range parts {
		e := p.Edge
		if e == nil {
			continue
		}
		if out == nil {
			out = &Edge{WindowMs: e.WindowMs, FromMs: e.FromMs, MaxInWindow: make([]int64, len(e.MaxInWindow)), MeanInWindow: make([]float64, len(e.MeanInWindow))}
		}
		if e.FromMs != out.FromMs || len(e.MaxInWindow) != len(out.MaxInWindow) || len(e.MeanInWindow) != len(out.MeanInWindow) {
			continue
		}
		total := out.Identities + e.Identities
		for i := range out.MaxInWindow {
			out.MaxInWindow[i] = max(out.MaxInWindow[i], e.MaxInWindow[i])
		}
		for i := range out.MeanInWindow {
			out.MeanInWindow[i] = (out.MeanInWindow[i]*float64(out.Identities) + e.MeanInWindow[i]*float64(e.Identities)) / float64(total)
		}
		out.Identities = total
	}
	return out
}
