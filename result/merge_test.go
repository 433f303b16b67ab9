package result_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// segments makes n segment results of one load out of the fixture.
func segments(t *testing.T, n int) []*result.Result {
	var out []*result.Result
	for i := 0; i < n; i++ {
		r := resulttest.Fixture(t)
		r.RunID = "seg" + string(rune('a'+i))
		r.Segment = &result.SegmentInfo{Index: i, Count: n, Group: "g1"}
		out = append(out, r)
	}
	return out
}

// TestMergeSegments: counts, histograms and audits of the segments add up
// in the merged result; the busiest window is the busiest of any segment.
func TestMergeSegments(t *testing.T) {
	parts := segments(t, 3)
	parts[1].Runs[0].Audit.PolicyExcess += 5
	parts[2].Complete, parts[2].IncompleteReason = false, "interrupted (Ctrl-C)"
	merged, err := result.MergeSegments([]*result.Result{parts[2], parts[0], parts[1]})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Complete || !strings.Contains(merged.IncompleteReason, "segment 2: interrupted") || len(merged.MergedSegments) != 3 || merged.Segment != nil {
		t.Errorf("envelope: complete %v (%q), merged from %v", merged.Complete, merged.IncompleteReason, merged.MergedSegments)
	}
	for i := range merged.Runs {
		m, one := merged.Runs[i], parts[0].Runs[i]
		if m.Requests.Sent != 3*one.Requests.Sent || m.Requests.Allowed != 3*one.Requests.Allowed {
			t.Errorf("%s: sent %d allowed %d, want 3 x %d, 3 x %d", m.Key(), m.Requests.Sent, m.Requests.Allowed, one.Requests.Sent, one.Requests.Allowed)
		}
		h, _, err := m.Histograms()
		oneH, _, oneErr := one.Histograms()
		if err != nil || oneErr != nil {
			t.Fatalf("%s: histograms: %v, %v", m.Key(), err, oneErr)
		}
		// Three times the same histogram has the same percentiles, but for
		// the rounding of the rank: at thrice the count the 99th can be
		// one recorded value away, so it must lie between one segment's
		// values a rank below and a rank above its 99th.
		n := float64(one.LatencyUs.Count)
		around := oneH.AtPercentiles([]float64{max(0, 99-100/n), min(100, 99+100/n)})
		if h.Count() != 3*one.LatencyUs.Count || m.LatencyUs.Count != h.Count() || m.LatencyUs.P99 < around[0] || m.LatencyUs.P99 > around[1] {
			t.Errorf("%s: merged histogram holds %d, digest %+v; want 3 x %d with a p99 within %v", m.Key(), h.Count(), m.LatencyUs, one.LatencyUs.Count, around)
		}
		if a := m.Audit; a == nil || a.Decisions != 3*one.Audit.Decisions || a.ModelMismatches != 0 || a.Identities != 3*one.Audit.Identities {
			t.Errorf("%s: audit %+v", m.Key(), a)
		}
		if m.Rate.AchievedPerS != 3*one.Rate.AchievedPerS || len(m.Series) != len(one.Series) || m.Series[0].Allowed != 3*one.Series[0].Allowed {
			t.Errorf("%s: rate %v, series %+v", m.Key(), m.Rate, m.Series)
		}
	}
	if got := merged.Runs[0].Audit.PolicyExcess; got != parts[1].Runs[0].Audit.PolicyExcess {
		t.Errorf("policy excess %d, want the busiest segment's %d", got, parts[1].Runs[0].Audit.PolicyExcess)
	}
}

// TestMergeRefusesWhatDoesNotBelongTogether: each row breaks one thing.
func TestMergeRefusesWhatDoesNotBelongTogether(t *testing.T) {
	fixture := segments(t, 1)[0]
	for _, tc := range []struct {
		why    string
		change func(p []*result.Result) []*result.Result
		want   string
	}{
		{"a missing segment", func(p []*result.Result) []*result.Result { return p[:2] }, "segments 2 of 3 are missing"},
		{"a duplicate segment", func(p []*result.Result) []*result.Result { p[2].Segment.Index = 1; return p }, "segment 1 is given twice"},
		{"another profile", func(p []*result.Result) []*result.Result { p[1].Profile.SHA256 = "beef"; return p }, "segment 1 ran another profile"},
		{"another seed", func(p []*result.Result) []*result.Result { p[2].Profile.Seed++; return p }, "segment 2 ran with seed"},
		{"another count", func(p []*result.Result) []*result.Result { p[1].Segment.Count = 4; return p }, "segment 1 is one of 4 segments"},
		{"another load (start)", func(p []*result.Result) []*result.Result { p[1].Segment.Group = "g2"; return p }, "segment 1 belongs to load g2"},
		{"not a segment at all", func(p []*result.Result) []*result.Result { p[1].Segment = nil; return p }, "is not a segment"},
		// --algorithms with the limiters in another order.
		{"the limiters in another order", func(p []*result.Result) []*result.Result {
			slices.Reverse(p[1].Profile.Algorithms)
			return p
		}, "segment 1 ran the limiters " + strings.Join(reversed(fixture.Profile.Algorithms), ", ")},
		// --repeat or --algorithms, as the plan each segment recorded.
		{"another plan", func(p []*result.Result) []*result.Result {
			p[0].Segment.Plan, p[1].Segment.Plan, p[2].Segment.Plan = "a", "a", "b"
			return p
		}, "segment 2 ran another plan"},
		// A segment that ran nothing, yet says it completed.
		{"a complete segment without runs", func(p []*result.Result) []*result.Result { p[1].Runs = nil; return p }, "segment 1 says it completed, but holds 0 of the load's"},
		// Its plan names more runs than any segment holds.
		{"complete segments short of their plan", func(p []*result.Result) []*result.Result {
			for _, r := range p {
				r.Segment.PlannedRuns = len(r.Runs) + 1
			}
			return p
		}, "says it completed, but holds"},
		{"the runs in another order", func(p []*result.Result) []*result.Result {
			p[2].Runs[0], p[2].Runs[1] = p[2].Runs[1], p[2].Runs[0]
			return p
		}, "segment 2 ran " + fixture.Runs[1].Key() + " as its run 1"},
		{"a run of another size", func(p []*result.Result) []*result.Result { p[1].Runs[0].Identities++; return p }, "segment 1 ran " + fixture.Runs[0].Key() + " as a"},
		// Segments on many machines that read different copies of a trace.
		{"another trace", func(p []*result.Result) []*result.Result {
			for i, r := range p {
				r.Runs[0].Params.Replay = &result.ReplayParams{SHA256: []string{"aa", "aa", "bb"}[i]}
			}
			return p
		}, "segment 2 replayed " + fixture.Runs[0].Key() + " from a trace of SHA-256 bb"},
		{"a run twice", func(p []*result.Result) []*result.Result { p[0].Runs = append(p[0].Runs, p[0].Runs[0]); return p }, "segment 0 holds run"},
	} {
		_, err := result.MergeSegments(tc.change(segments(t, 3)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.why, err, tc.want)
		}
	}
}

// TestMergePipelinedSegments: the segments' batches add up, the mean batch
// follows from the sums (not an average of means), the largest is the
// largest of any; the audit's coverage is the merged share of decisions,
// and the audit's heap the largest any segment's process held.
func TestMergePipelinedSegments(t *testing.T) {
	parts := segments(t, 2)
	for i, p := range parts {
		run := &p.Runs[0]
		run.Requests.Sent, run.Requests.Allowed, run.Requests.Denied, run.Requests.Errors = 160, 100, 60, 0
		batches := []int64{10, 40}[i]
		run.Pipeline = &result.Pipeline{Depth: 16, Batches: batches, MeanBatch: 160 / float64(batches), LargestBatch: []int64{16, 9}[i], Resent: 3}
		run.Audit.Decisions = []int64{160, 40}[i] // the second segment audited a sample
		run.Memory.AuditHeapBytes = []uint64{1 << 20, 3 << 20}[i]
	}
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	m := merged.Runs[0]
	if p := m.Pipeline; p == nil || p.Batches != 50 || p.MeanBatch != 320.0/50 || p.LargestBatch != 16 || p.Resent != 6 || p.Depth != 16 {
		t.Errorf("pipeline %+v, want 50 batches of 6.4, the largest 16, 6 sent again", p)
	}
	if got := m.Audit.Coverage; got != 200.0/320 {
		t.Errorf("coverage %v, want 200 of 320 decisions", got)
	}
	if got := m.Memory.AuditHeapBytes; got != 3<<20 {
		t.Errorf("audit heap %d, want the largest segment's", got)
	}
}

// reversed is a reversed copy of names.
func reversed(names []string) []string {
	out := slices.Clone(names)
	slices.Reverse(out)
	return out
}

// TestMergeTakesASegmentCutShort: a segment interrupted before its last
// runs holds the first of them, and merges into an incomplete result with
// every run of the others.
func TestMergeTakesASegmentCutShort(t *testing.T) {
	parts := segments(t, 2)
	parts[1].Runs = parts[1].Runs[:1]
	parts[1].Complete, parts[1].IncompleteReason = false, "interrupted (Ctrl-C)"
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Complete || len(merged.Runs) != len(parts[0].Runs) {
		t.Errorf("complete %v with %d runs, want incomplete with %d", merged.Complete, len(merged.Runs), len(parts[0].Runs))
	}
}
