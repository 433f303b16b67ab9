package probe

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestTrendStaysBoundedOverADay: a day of readings, one a second, keeps at
// most MaxMemorySamples samples, evenly spaced from the first to the
// last, and the resident set's growth is taken from every reading after
// the first minute, also those thinned away.
func TestTrendStaysBoundedOverADay(t *testing.T) {
	s := newTrendSeries(time.Second)
	const day = 24 * 3600
	for sec := 0; sec <= day; sec++ {
		rss := uint64(100 << 20)
		switch {
		case sec < result.MemorySettleS:
			rss = 10 << 20 // still filling up: not growth
		case sec == 5000:
			rss = 115 << 20 // one reading that thinning drops
		}
		s.add(time.Duration(sec)*time.Second, Reading{HeapBytes: 1, RSSBytes: rss})
		if len(s.samples) > result.MaxMemorySamples {
			t.Fatalf("at %ds: %d samples", sec, len(s.samples))
		}
	}
	m := s.contract()
	if n := len(m.Samples); n < result.MaxMemorySamples/2 || n > result.MaxMemorySamples+1 {
		t.Errorf("%d samples of a day, want between %d and %d", n, result.MaxMemorySamples/2, result.MaxMemorySamples+1)
	}
	if first, last := m.Samples[0].TS, m.Samples[len(m.Samples)-1].TS; first != 0 || last != day {
		t.Errorf("samples from %gs to %gs, want 0 to %d", first, last, day)
	}
	for i := 1; i < len(m.Samples)-1; i++ {
		if gap := m.Samples[i].TS - m.Samples[i-1].TS; gap != m.IntervalS {
			t.Fatalf("samples %d and %d are %gs apart, the interval is %gs", i-1, i, gap, m.IntervalS)
		}
	}
	if g := m.RlbenchRSS; g == nil || g.SettledBytes != 100<<20 || g.PeakBytes != 115<<20 || g.Growth < 0.149 || g.Growth > 0.151 {
		t.Errorf("resident set after settling: %+v, want 100 MiB settled, a 115 MiB peak, 15%% growth", g)
	}
}

// TestTrendOfAShortRun: a run shorter than the first minute has no growth
// figure, and its last reading is its last sample.
func TestTrendOfAShortRun(t *testing.T) {
	s := newTrendSeries(time.Second)
	for _, ms := range []int{0, 1000, 2000, 2300} {
		s.add(time.Duration(ms)*time.Millisecond, Reading{RSSBytes: 1})
	}
	m := s.contract()
	if m.RlbenchRSS != nil || len(m.Samples) != 4 || m.Samples[3].TS != 2.3 {
		t.Errorf("short run: %+v", m)
	}
}

// TestTrendReadsTheServer: a trend on a real server reads its memory and
// keys, and sees the keys a run writes.
func TestTrendReadsTheServer(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	env := &redisenv.Env{Client: rdb, Mode: redisenv.External, Addr: rdb.Options().Addr}
	tr := StartTrend(ctx, Target{Env: env, Timeout: 2 * time.Second}, time.Now())
	first := tr.Latest()
	if !first.Server || first.UsedMemoryBytes <= 0 || first.CPUSeconds <= 0 {
		t.Fatalf("first reading: %+v, want the server's memory and CPU", first)
	}
	for i := range 2000 {
		if err := rdb.Set(ctx, fmt.Sprintf("trend:%d", i), "x", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	m := tr.Stop(ctx)
	last := m.Samples[len(m.Samples)-1]
	if last.RedisKeys == nil || *last.RedisKeys-*m.Samples[0].RedisKeys != 2000 || *last.RedisUsedMemoryBytes <= *m.Samples[0].RedisUsedMemoryBytes {
		t.Errorf("samples %+v: want the last to hold 2000 keys more, and more memory", m.Samples)
	}
	ts, bytes := m.BytesPerIdentity(&result.Memory{Identities: 2000, Keys: 2000})
	if len(ts) != 1 || bytes[0] < 20 || bytes[0] > 500 {
		t.Errorf("memory per identity over time: %v at %v, want one figure of tens of bytes", bytes, ts)
	}
}
