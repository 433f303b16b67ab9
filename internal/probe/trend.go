package probe

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// TrendInterval is how often a Trend reads rlbench's and the server's
// memory: the live metrics' freshest figures are this old at most.
const TrendInterval = time.Second

// trendReadTimeout bounds one reading of the server: a server that has
// not answered by then (paused by a fault, say) gives a sample without
// its figures rather than hold up the next.
const trendReadTimeout = 500 * time.Millisecond

// Reading is one reading of rlbench's and the server's memory, and the
// server's CPU time, at At.
type Reading struct {
	At time.Time
	// HeapBytes and RSSBytes are rlbench's Go heap and resident set.
	HeapBytes, RSSBytes uint64
	// ServerReading is the server's: its memory, keys and CPU time,
	// when it answered.
	event.ServerReading
}

// Trend samples rlbench's and the server's memory through a run's traffic,
// every TrendInterval, for the result's memory over time and for the live
// metrics. What it keeps is bounded whatever the run's length: at most
// result.MaxMemorySamples samples, thinned by half (and the interval
// doubled) when full, and the resident set's peak since it settled.
type Trend struct {
	start  time.Time
	read   func(ctx context.Context) Reading
	close  func()
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	series trendSeries
	latest Reading
}

// StartTrend starts sampling t's server (none for an embedded one) and
// rlbench itself, from start, the start of the traffic. Stop ends it.
func StartTrend(ctx context.Context, t Target, start time.Time) *Trend {
	tr := &Trend{start: start, stop: make(chan struct{}), done: make(chan struct{}), close: func() {}}
	var srv *servers
	if t.Env.Mode != redisenv.Embedded && t.allows(redisenv.CmdInfo) {
		open, cancel := context.WithTimeout(ctx, t.Timeout)
		srv, _ = t.openServers(open)
		cancel()
	}
	tr.read = func(ctx context.Context) Reading { return readTrend(ctx, srv) }
	if srv != nil {
		tr.close = srv.close
	}
	tr.series = newTrendSeries(TrendInterval)
	tr.take(context.WithoutCancel(ctx))
	go tr.run(context.WithoutCancel(ctx))
	return tr
}

func (tr *Trend) run(ctx context.Context) {
	defer close(tr.done)
	tick := time.NewTicker(TrendInterval)
	defer tick.Stop()
	for {
		select {
		case <-tr.stop:
			return
		case <-tick.C:
			tr.take(ctx)
		}
	}
}

// take reads once and adds the reading.
func (tr *Trend) take(ctx context.Context) {
	r := tr.read(ctx)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.latest = r
	tr.series.add(r.At.Sub(tr.start), r)
}

// Latest is the most recent reading (the zero Reading on a nil Trend).
func (tr *Trend) Latest() Reading {
	if tr == nil {
		return Reading{}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.latest
}

// Stop ends the sampling with a last reading and reports the run's memory
// over time. A nil Trend reports nil.
func (tr *Trend) Stop(ctx context.Context) *result.MemoryOverTime {
	if tr == nil {
		return nil
	}
	close(tr.stop)
	<-tr.done
	tr.take(context.WithoutCancel(ctx))
	tr.close()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.series.contract()
}

// readTrend reads rlbench's memory, then the servers' (none when srv is
// nil or a reading fails: the reading then says so).
func readTrend(ctx context.Context, srv *servers) Reading {
	heap, rss := readSelf()
	r := Reading{At: time.Now(), HeapBytes: heap, RSSBytes: rss}
	if srv == nil {
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, trendReadTimeout)
	defer cancel()
	used := make([]int64, len(srv.addrs))
	keys := make([]int64, len(srv.addrs))
	cpu := make([]float64, len(srv.addrs))
	err := srv.each(ctx, func(i int, c redis.Cmdable) error {
		// Not a MULTI: a decision of MULTI and EXEC counts those commands
		// as its own in the server's statistics.
		pipe := c.Pipeline()
		info := pipe.Info(ctx, "memory", "cpu")
		size := pipe.DBSize(ctx)
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
		fields := redisenv.ParseInfo(info.Val())
		var err error
		if used[i], err = strconv.ParseInt(fields["used_memory"], 10, 64); err != nil {
			return err
		}
		sys, _ := strconv.ParseFloat(fields["used_cpu_sys"], 64)
		user, _ := strconv.ParseFloat(fields["used_cpu_user"], 64)
		keys[i], cpu[i] = size.Val(), sys+user
		return nil
	})
	if err != nil {
		return r
	}
	r.Server = true
	for i := range used {
		r.UsedMemoryBytes += used[i]
		r.Keys += keys[i]
		r.CPUSeconds += cpu[i]
	}
	return r
}

// trendSeries is what a Trend keeps: the samples at its interval, thinned
// when full, the latest reading (the run's last, when the traffic ends
// between two samples), and the resident set from the first reading
// after it settled and its highest since.
type trendSeries struct {
	interval   time.Duration
	maxSamples int
	samples    []result.MemorySample
	// next is when the next sample is due; latest is the latest reading
	// when it was not due.
	next   time.Duration
	latest *result.MemorySample

	settleAfter      time.Duration
	settled, peakRSS uint64
	settledSeen      bool
}

func newTrendSeries(interval time.Duration) trendSeries {
	return trendSeries{interval: interval, settleAfter: result.MemorySettleS * time.Second, maxSamples: result.MaxMemorySamples}
}

// add takes reading r made at (from the start of the traffic): as a sample
// when one is due, and into the resident set's figures always.
func (s *trendSeries) add(at time.Duration, r Reading) {
	if r.RSSBytes > 0 && at >= s.settleAfter {
		if !s.settledSeen {
			s.settled, s.settledSeen = r.RSSBytes, true
		}
		s.peakRSS = max(s.peakRSS, r.RSSBytes)
	}
	sample := result.MemorySample{TS: max(at, 0).Seconds(), RlbenchHeapBytes: r.HeapBytes, RlbenchRSSBytes: r.RSSBytes}
	if r.Server {
		used, keys := r.UsedMemoryBytes, r.Keys
		sample.RedisUsedMemoryBytes, sample.RedisKeys = &used, &keys
	}
	if len(s.samples) > 0 && at < s.next {
		s.latest = &sample
		return
	}
	s.samples = append(s.samples, sample)
	s.latest = nil
	s.next = at + s.interval
	if len(s.samples) >= s.maxSamples {
		s.thin()
	}
}

// thin drops every other sample (keeping the first) and doubles the
// interval.
func (s *trendSeries) thin() {
	kept := s.samples[:0]
	for i, smp := range s.samples {
		if i%2 == 0 {
			kept = append(kept, smp)
		}
	}
	clear(s.samples[len(kept):])
	s.samples = kept
	s.interval *= 2
	s.next = time.Duration(kept[len(kept)-1].TS*float64(time.Second)) + s.interval
}

// contract is the series as the result records it, the latest reading
// last.
func (s *trendSeries) contract() *result.MemoryOverTime {
	out := &result.MemoryOverTime{IntervalS: s.interval.Seconds(), Samples: append([]result.MemorySample(nil), s.samples...)}
	if s.latest != nil {
		out.Samples = append(out.Samples, *s.latest)
	}
	if s.settledSeen && s.settled > 0 {
		out.RlbenchRSS = &result.RSSAfterSettle{SettledBytes: s.settled, PeakBytes: s.peakRSS,
			Growth: float64(s.peakRSS)/float64(s.settled) - 1}
	}
	return out
}
