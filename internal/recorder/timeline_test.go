package recorder

import (
	"errors"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
)

// TestTimelineBins: outcomes land in the bin of their decision time; a run
// past timelineMaxBins bins doubles the width without losing a count; and
// two shards of different widths merge at the coarser one.
func TestTimelineBins(t *testing.T) {
	allowed := &event.Outcome{Decision: algorithms.Decision{Allowed: true}}
	denied := &event.Outcome{}
	failed := &event.Outcome{Err: errors.New("timeout")}

	short := newTimeline()
	short.add(0, allowed, 100)
	short.add(15*time.Millisecond, denied, 200)
	short.add(15*time.Millisecond, failed, 300)
	got := short.contract()
	if got.BinMs != 10 || len(got.Bins) != 2 || got.Bins[0].Allowed != 1 || got.Bins[1].Denied != 1 || got.Bins[1].Errors != 1 || got.Bins[1].TMs != 10 {
		t.Errorf("a 15ms run: %+v, want two 10ms bins", got)
	}

	long := newTimeline()
	const n = 3000
	for i := 0; i < n; i++ { // one decision every 10ms for 30s
		long.add(time.Duration(i)*10*time.Millisecond, allowed, 100)
	}
	lc := long.contract()
	var total int64
	for _, b := range lc.Bins {
		total += b.Allowed
	}
	if total != n || len(lc.Bins) > timelineMaxBins || lc.BinMs != 80 {
		t.Errorf("a 30s run: %d bins of %dms holding %d decisions, want at most %d bins of 80ms holding %d", len(lc.Bins), lc.BinMs, total, timelineMaxBins, n)
	}
	if p := lc.Bins[0].P99Us; p < 90 || p > 110 {
		t.Errorf("a bin of 100us latencies has p99 %dus", p)
	}

	short.merge(long)
	mc := short.contract()
	if mc.BinMs != 80 || mc.Bins[0].Allowed != long.bins[0].allowed+1 || mc.Bins[0].Denied != 1 || mc.Bins[0].Errors != 1 {
		t.Errorf("merged: %dms bins, first %+v", mc.BinMs, mc.Bins[0])
	}
}
