package result_test

import (
	"encoding/json"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// segmentSample is segment i of a load of n made of the small sample, its
// latency in a real histogram, as JSON.
func segmentSample(t testing.TB, i, n int, change func(*result.Result)) []byte {
	t.Helper()
	r := resulttest.Sample()
	r.RunID = "seg" + string(rune('a'+i))
	r.Segment = &result.SegmentInfo{Index: i, Count: n, Group: "g", Plan: "p", PlannedRuns: 1}
	r.Profile.Algorithms = []string{"fixed_window"}
	r.Runs[0].Rate = result.RateFigures{TargetPerS: 100, AchievedPerS: 99}
	h := result.NewHistogram()
	for v := range r.Runs[0].LatencyUs.Count {
		h.Record(100 + 10*v)
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	r.Runs[0].LatencyHDR, r.Runs[0].LatencyUncorrectedHDR = enc, enc
	if change != nil {
		change(r)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzMergeSegments feeds the merge of segments up to three results
// decoded from arbitrary bytes. It must refuse them or merge them without
// panicking, and a merge it makes must hold, for every run, the sum of
// the segments' requests and offered rates, be complete only when every
// segment was, and come back through JSON as a valid result. The seed
// corpus (testdata/fuzz/FuzzMergeSegments, and the loads added here)
// runs with every `go test`.
func FuzzMergeSegments(f *testing.F) {
	f.Add(segmentSample(f, 0, 2, nil), segmentSample(f, 1, 2, nil), []byte{})
	f.Add(segmentSample(f, 0, 3, nil), segmentSample(f, 2, 3, nil), segmentSample(f, 1, 3, func(r *result.Result) {
		r.Complete, r.IncompleteReason = false, "interrupted (Ctrl-C)"
	}))
	f.Add(segmentSample(f, 0, 2, nil), segmentSample(f, 1, 2, func(r *result.Result) { r.Runs = nil }), []byte{})
	// A count that sized the merge, and one that made it panic.
	f.Add(segmentSample(f, 0, 2, func(r *result.Result) { r.Segment.Count = 10_000_000 }), segmentSample(f, 1, 2, nil), []byte{})
	f.Add(segmentSample(f, 0, 2, func(r *result.Result) { r.Segment.Count = 1_000_000_000_000_000 }), segmentSample(f, 1, 2, nil), []byte{})
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		var parts []*result.Result
		for _, data := range [][]byte{a, b, c} {
			if len(data) == 0 {
				continue
			}
			r, err := result.Decode(data)
			if err != nil {
				return
			}
			parts = append(parts, r)
		}
		if len(parts) == 0 {
			return
		}
		merged, err := result.MergeSegments(parts)
		if err != nil {
			return
		}
		complete := true
		type sums struct {
			sent, allowed, errors int64
			target                float64
		}
		want := map[string]*sums{}
		for _, p := range parts {
			complete = complete && p.Complete
			for i := range p.Runs {
				run := &p.Runs[i]
				s := want[run.Key()]
				if s == nil {
					s = &sums{}
					want[run.Key()] = s
				}
				s.sent += run.Requests.Sent
				s.allowed += run.Requests.Allowed
				s.errors += run.Requests.Errors
				s.target += run.Rate.TargetPerS
			}
		}
		if merged.Complete != complete || merged.Segment != nil || len(merged.MergedSegments) != len(parts) {
			t.Fatalf("merged complete %v (segments: %v), segment %v, from %d of %d", merged.Complete, complete, merged.Segment, len(merged.MergedSegments), len(parts))
		}
		if len(merged.Runs) != len(want) {
			t.Fatalf("%d runs merged from %d", len(merged.Runs), len(want))
		}
		for i := range merged.Runs {
			run := &merged.Runs[i]
			s := want[run.Key()]
			if s == nil || run.Requests.Sent != s.sent || run.Requests.Allowed != s.allowed || run.Requests.Errors != s.errors {
				t.Fatalf("%s: requests %+v, want the segments' sums %+v", run.Key(), run.Requests, s)
			}
			if d := run.Rate.TargetPerS - s.target; d > 1e-6*s.target || d < -1e-6*s.target {
				t.Fatalf("%s: target %v/s, want the segments' sum %v/s", run.Key(), run.Rate.TargetPerS, s.target)
			}
		}
		merged.Verdict = result.Pass
		data, err := json.Marshal(merged)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := result.Decode(data); err != nil {
			t.Fatalf("the merged result does not decode: %v", err)
		}
	})
}
