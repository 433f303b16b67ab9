package workload

import (
	"runtime"
	"sort"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rlbench/rlbench/algorithms"
)

// Histogram range: 1 us to 60 s at 3 significant digits.
const (
	histLowestMicros  = 1
	histHighestMicros = 60_000_000
	histDigits        = 3
	// Per-second histograms only feed the p99 series; 2 digits keep them small.
	seriesDigits = 2
	// maxErrorKinds bounds how many distinct error messages are kept.
	maxErrorKinds = 20
)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowestMicros, histHighestMicros, histDigits)
}

func newLatencies() Latencies {
	return Latencies{All: newHistogram(), Allowed: newHistogram(), Denied: newHistogram()}
}

// outcome is what one request did.
type outcome struct {
	identity uint64
	due      time.Time
	sent     time.Time
	done     time.Time
	decision algorithms.Decision
	err      error
}

// recorder collects outcomes from many goroutines. It is sharded so workers
// rarely wait for each other, and merged once at the end.
type recorder struct {
	start  time.Time
	shards []*recShard
	// audit keeps the decisions the run's audit replays; nil keeps none.
	audit *auditor
}

type recShard struct {
	mu          sync.Mutex
	counts      Counts
	corrected   Latencies
	uncorrected Latencies
	maxLag      time.Duration
	seconds     []second
	errors      map[string]int64
}

type second struct {
	allowed, denied, errors int64
	hist                    *hdrhistogram.Histogram
}

func newRecorder(start time.Time) *recorder {
	n := runtime.GOMAXPROCS(0)
	r := &recorder{start: start, shards: make([]*recShard, n)}
	for i := range r.shards {
		r.shards[i] = &recShard{corrected: newLatencies(), uncorrected: newLatencies(), errors: map[string]int64{}}
	}
	return r
}

func clampMicros(d time.Duration) int64 {
	us := d.Microseconds()
	if us < histLowestMicros {
		return histLowestMicros
	}
	if us > histHighestMicros {
		return histHighestMicros
	}
	return us
}

// record adds one outcome; worker picks the shard.
func (r *recorder) record(worker int, o *outcome) {
	s := r.shards[worker%len(r.shards)]
	corrected := clampMicros(o.done.Sub(o.due))
	uncorrected := clampMicros(o.done.Sub(o.sent))
	lag := o.sent.Sub(o.due)
	// A request belongs to the second it was decided in: counted by due
	// time, a backlog cleared after a stall would show more admissions in
	// one second than the limiter ever made.
	sec := int(o.done.Sub(r.start) / time.Second)
	if sec < 0 {
		sec = 0
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts.Sent++
	if lag > LateThreshold {
		s.counts.Late++
	}
	if lag > s.maxLag {
		s.maxLag = lag
	}
	for len(s.seconds) <= sec {
		s.seconds = append(s.seconds, second{})
	}
	b := &s.seconds[sec]
	if b.hist == nil {
		b.hist = hdrhistogram.New(histLowestMicros, histHighestMicros, seriesDigits)
	}
	_ = b.hist.RecordValue(corrected)
	_ = s.corrected.All.RecordValue(corrected)
	_ = s.uncorrected.All.RecordValue(uncorrected)
	switch {
	case o.err != nil:
		s.counts.Errors++
		b.errors++
		msg := o.err.Error()
		if _, ok := s.errors[msg]; ok || len(s.errors) < maxErrorKinds {
			s.errors[msg]++
		}
	case o.decision.Allowed:
		s.counts.Allowed++
		b.allowed++
		_ = s.corrected.Allowed.RecordValue(corrected)
		_ = s.uncorrected.Allowed.RecordValue(uncorrected)
	default:
		s.counts.Denied++
		b.denied++
		_ = s.corrected.Denied.RecordValue(corrected)
		_ = s.uncorrected.Denied.RecordValue(uncorrected)
	}
}

// completed is how many outcomes have been recorded so far.
func (r *recorder) completed() int64 {
	var n int64
	for _, s := range r.shards {
		s.mu.Lock()
		n += s.counts.Sent
		s.mu.Unlock()
	}
	return n
}

// fill merges the shards into res.
func (r *recorder) fill(res *RunResult) {
	res.Corrected, res.Uncorrected = newLatencies(), newLatencies()
	var secs []second
	errs := map[string]int64{}
	for _, s := range r.shards {
		s.mu.Lock()
		c := s.counts
		res.Counts.Sent += c.Sent
		res.Counts.Allowed += c.Allowed
		res.Counts.Denied += c.Denied
		res.Counts.Errors += c.Errors
		res.Counts.Late += c.Late
		mergeLatencies(res.Corrected, s.corrected)
		mergeLatencies(res.Uncorrected, s.uncorrected)
		if s.maxLag > res.MaxLag {
			res.MaxLag = s.maxLag
		}
		for i, b := range s.seconds {
			for len(secs) <= i {
				secs = append(secs, second{hist: hdrhistogram.New(histLowestMicros, histHighestMicros, seriesDigits)})
			}
			secs[i].allowed += b.allowed
			secs[i].denied += b.denied
			secs[i].errors += b.errors
			if b.hist != nil {
				secs[i].hist.Merge(b.hist)
			}
		}
		for m, n := range s.errors {
			errs[m] += n
		}
		s.mu.Unlock()
	}
	res.Series = make([]Second, len(secs))
	for i, b := range secs {
		res.Series[i] = Second{T: i, Allowed: b.allowed, Denied: b.denied, Errors: b.errors}
		if b.hist.TotalCount() > 0 {
			res.Series[i].P99Micros = b.hist.ValueAtQuantile(99)
		}
	}
	res.Errors = res.Errors[:0]
	for m, n := range errs {
		res.Errors = append(res.Errors, ErrorCount{Message: m, Count: n})
	}
	sort.Slice(res.Errors, func(i, j int) bool {
		if res.Errors[i].Count != res.Errors[j].Count {
			return res.Errors[i].Count > res.Errors[j].Count
		}
		return res.Errors[i].Message < res.Errors[j].Message
	})
}

func mergeLatencies(dst, src Latencies) {
	dst.All.Merge(src.All)
	dst.Allowed.Merge(src.Allowed)
	dst.Denied.Merge(src.Denied)
}

// lastError returns one recorded error message, for abort messages.
func (r *recorder) lastError() string {
	for _, s := range r.shards {
		s.mu.Lock()
		for m := range s.errors {
			s.mu.Unlock()
			return m
		}
		s.mu.Unlock()
	}
	return "none recorded"
}
