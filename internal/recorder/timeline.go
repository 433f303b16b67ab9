package recorder

import (
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// Timeline bins: they start at timelineStartWidth and double whenever a run
// outlasts timelineMaxBins of them, so a half-second run gets 10ms bins, a
// 20-second one 40ms bins, and an hour no more than timelineMaxBins bins.
const (
	timelineStartWidth = 10 * time.Millisecond
	timelineMaxBins    = 512
	// timelineDigits keeps each bin's histogram small: p99 to within 10%.
	timelineDigits = 1
)

// timeline counts one shard's outcomes by when they were decided, in bins
// finer than the per-second series, each with a small histogram for its
// p99. Its memory is bounded: past timelineMaxBins bins, neighbouring bins
// merge and the width doubles.
type timeline struct {
	width time.Duration
	bins  []timelineBin
}

type timelineBin struct {
	allowed, denied, errors int64
	hist                    *result.Histogram
}

func newTimeline() timeline { return timeline{width: timelineStartWidth} }

// add counts one outcome decided at (from the start of the run), with its
// corrected latency in microseconds.
func (t *timeline) add(at time.Duration, o *event.Outcome, latencyMicros int64) {
	at = max(at, 0)
	for at/t.width >= timelineMaxBins {
		t.coarsen()
	}
	i := int(at / t.width)
	for len(t.bins) <= i {
		t.bins = append(t.bins, timelineBin{})
	}
	b := &t.bins[i]
	if b.hist == nil {
		b.hist = result.NewCoarseHistogram(timelineDigits)
	}
	b.hist.Record(latencyMicros)
	switch {
	case o.Err != nil:
		b.errors++
	case o.Decision.Allowed:
		b.allowed++
	default:
		b.denied++
	}
}

// coarsen doubles the bin width, merging bins pairwise.
func (t *timeline) coarsen() {
	merged := make([]timelineBin, (len(t.bins)+1)/2)
	for i, b := range t.bins {
		merged[i/2].addBin(b)
	}
	t.bins = merged
	t.width *= 2
}

func (b *timelineBin) addBin(o timelineBin) {
	b.allowed += o.allowed
	b.denied += o.denied
	b.errors += o.errors
	if o.hist == nil {
		return
	}
	if b.hist == nil {
		b.hist = result.NewCoarseHistogram(timelineDigits)
	}
	b.hist.Merge(o.hist)
}

// merge adds o's bins into t, coarsening whichever is finer so both share
// one width.
func (t *timeline) merge(o timeline) {
	for t.width < o.width {
		t.coarsen()
	}
	for o.width < t.width {
		o.coarsen()
	}
	for len(t.bins) < len(o.bins) {
		t.bins = append(t.bins, timelineBin{})
	}
	for i, b := range o.bins {
		t.bins[i].addBin(b)
	}
}

// contract is the timeline as the result records it.
func (t *timeline) contract() *result.Timeline {
	out := &result.Timeline{BinMs: t.width.Milliseconds(), Bins: make([]result.Bin, len(t.bins))}
	for i, b := range t.bins {
		out.Bins[i] = result.Bin{TMs: int64(i) * t.width.Milliseconds(), Allowed: b.allowed, Denied: b.denied, Errors: b.errors}
		if b.hist != nil && b.hist.Count() > 0 {
			out.Bins[i].P99Us = b.hist.ValueAtQuantile(99)
		}
	}
	return out
}
