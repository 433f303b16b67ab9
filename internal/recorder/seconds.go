package recorder

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/result"
)

// The per-second series keeps, for each second, its counts and its p99.
// The p99 needs a histogram of the second's latencies, and a histogram
// per second kept to the end would grow a run's memory by tens of
// kilobytes a second (a soak of hours: gigabytes). So each second's
// histograms live only until no outcome can still be recorded in it:
// then the shards' histograms of that second are merged, its p99 is
// taken, and they are reused for a later second.
//
// When is that? An outcome belongs to the second its call was decided
// in (Done), and a call is decided after it went out (Sent). Every
// worker holds a CallSlot that says when its call in flight went out;
// once every call in flight went out after second s ended, and the clock
// has passed it, no outcome of second s is still to come.

// seriesDigits is the precision of the per-second histograms: their p99
// is within 1%.
const seriesDigits = 2

// Values of a CallSlot besides a send time.
const (
	// slotIdle: no call in flight.
	slotIdle = math.MaxInt64
	// slotStarting: a call is about to go out and has not read the clock
	// yet; it holds every second open.
	slotStarting = math.MinInt64
)

// CallSlot is one connection's call in flight: since when (nanoseconds from
// the start of the run), and how many requests it carries (a pipeline's
// batch carries several).
type CallSlot struct {
	sentNs   atomic.Int64
	requests atomic.Int64
}

// Begin marks a call of n requests about to go out: before the clock is
// read for its send time, so that a closer that finds the slot idle knows
// the send time is later than anything it read before.
func (c *CallSlot) Begin(n int) {
	c.requests.Store(int64(n))
	c.sentNs.Store(slotStarting)
}

// Sent records when the call went out.
func (c *CallSlot) Sent(start, at time.Time) { c.sentNs.Store(int64(at.Sub(start))) }

// End marks the call recorded: every outcome of it is in the recorder.
func (c *CallSlot) End() { c.sentNs.Store(slotIdle) }

// callSlots are every worker's slots of one run.
type callSlots struct {
	mu    sync.Mutex
	slots []*CallSlot
}

// add makes a slot for a new worker.
func (cs *callSlots) add() *CallSlot {
	c := &CallSlot{}
	c.sentNs.Store(slotIdle)
	cs.mu.Lock()
	cs.slots = append(cs.slots, c)
	cs.mu.Unlock()
	return c
}

// earliestNs is the earliest send time of a call in flight (slotIdle when
// none is; slotStarting when a call has not read its send time yet).
func (cs *callSlots) earliestNs() int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	earliest := int64(slotIdle)
	for _, c := range cs.slots {
		sent := c.sentNs.Load()
		// A call reads its send time right after it begins: wait for it
		// a little rather than close nothing this time.
		for try := 0; sent == slotStarting && try < startingRetries; try++ {
			runtime.Gosched()
			sent = c.sentNs.Load()
		}
		earliest = min(earliest, sent)
	}
	return earliest
}

// startingRetries bounds the wait for a starting call's send time.
const startingRetries = 100

// inFlight is how many requests are out and not yet recorded.
func (cs *callSlots) inFlight() int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var n int64
	for _, c := range cs.slots {
		if c.sentNs.Load() != slotIdle {
			n += c.requests.Load()
		}
	}
	return n
}

// openSecond is one second's histogram in a shard, until the second
// closes.
type openSecond struct {
	sec  int
	hist *result.Histogram
}

// secondHistograms is the pool the seconds' histograms are taken from and
// given back to.
var secondHistograms = sync.Pool{New: func() any { return newSeriesHistogram() }}

// recordSecond adds a latency to the shard's histogram of second sec,
// opening it when it is the first of that second. The shard's lock is
// held. It reports whether sec is later than every second the shard had
// open: the moment to see whether earlier seconds can close.
func (s *recShard) recordSecond(sec int, micros int64) (newest bool) {
	for i := len(s.open) - 1; i >= 0; i-- {
		if s.open[i].sec == sec {
			s.open[i].hist.Record(micros)
			return false
		}
	}
	h := secondHistograms.Get().(*result.Histogram)
	h.Record(micros)
	newest = len(s.open) == 0 || sec > s.open[len(s.open)-1].sec
	s.open = append(s.open, openSecond{sec: sec, hist: h})
	// Keep them in order: an earlier second opened late goes before the
	// later ones.
	for i := len(s.open) - 1; i > 0 && s.open[i].sec < s.open[i-1].sec; i-- {
		s.open[i], s.open[i-1] = s.open[i-1], s.open[i]
	}
	return newest
}

// takeSecond removes and returns the shard's histogram of second sec, or
// nil. The shard's lock is held.
func (s *recShard) takeSecond(sec int) *result.Histogram {
	for i, o := range s.open {
		if o.sec == sec {
			s.open = append(s.open[:i], s.open[i+1:]...)
			return o.hist
		}
	}
	return nil
}

// seriesCloser takes the p99 of each second once it is closed.
type seriesCloser struct {
	mu sync.Mutex
	// through is the first second not yet closed; p99 holds the p99 of
	// every second before it, in microseconds (0: none recorded).
	through atomic.Int64
	p99     []int64
}

// closeSeconds closes the seconds no outcome can still reach, given that
// an outcome decided nowNs after the start has just been recorded. It
// returns at once when another goroutine is closing.
func (r *Recorder) closeSeconds(nowNs int64) {
	if !r.closer.mu.TryLock() {
		return
	}
	defer r.closer.mu.Unlock()
	limit := min(nowNs, r.calls.earliestNs()) / int64(time.Second)
	r.closeBefore(int(limit))
}

// closeAll closes every second: the run's calls have all been recorded.
func (r *Recorder) closeAll() {
	r.closer.mu.Lock()
	defer r.closer.mu.Unlock()
	last := -1
	for _, s := range r.shards {
		s.mu.Lock()
		for _, o := range s.open {
			last = max(last, o.sec)
		}
		last = max(last, len(s.seconds)-1)
		s.mu.Unlock()
	}
	r.closeBefore(last + 1)
}

// closeBefore closes seconds from the first open one to limit (not
// included): merges the shards' histograms of each, keeps its p99, and
// gives the histograms back. r.closer.mu is held.
func (r *Recorder) closeBefore(limit int) {
	for sec := int(r.closer.through.Load()); sec < limit; sec++ {
		var merged *result.Histogram
		for _, s := range r.shards {
			s.mu.Lock()
			h := s.takeSecond(sec)
			s.mu.Unlock()
			switch {
			case h == nil:
			case merged == nil:
				merged = h
			default:
				merged.Merge(h)
				h.Reset()
				secondHistograms.Put(h)
			}
		}
		var p99 int64
		if merged != nil {
			if merged.Count() > 0 {
				p99 = merged.ValueAtQuantile(99)
			}
			merged.Reset()
			secondHistograms.Put(merged)
		}
		r.closer.p99 = append(r.closer.p99, p99)
		r.closer.through.Store(int64(sec + 1))
	}
}

// secondP99 is the p99 of closed second sec, in microseconds (0 when it
// recorded nothing or is not closed).
func (r *Recorder) secondP99(sec int) int64 {
	if sec < len(r.closer.p99) {
		return r.closer.p99[sec]
	}
	return 0
}
