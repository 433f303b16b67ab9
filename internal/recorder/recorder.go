package recorder

import (
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

const (
	// maxErrorKinds bounds how many kinds of error are kept apart; the
	// rest count as other.
	maxErrorKinds = 20
)

// latencies are HDR histograms of one latency measure, in microseconds.
type latencies struct {
	all, allowed, denied *result.Histogram
}

func newLatencies() latencies {
	return latencies{all: result.NewHistogram(), allowed: result.NewHistogram(), denied: result.NewHistogram()}
}

func newSeriesHistogram() *result.Histogram {
	return result.NewCoarseHistogram(seriesDigits)
}

// Recorder collects outcomes from many goroutines. It is sharded so workers
// rarely wait for each other, and merged once at the end. What it holds is
// bounded per second of the run, not per request: counts, a p99, and the
// histograms of the few seconds still open (see seconds.go).
type Recorder struct {
	// Start is when the run's traffic started.
	Start  time.Time
	shards []*recShard
	// calls says which calls are in flight, and since when; closer
	// closes the seconds they can no longer reach.
	calls  callSlots
	closer seriesCloser
}

type recShard struct {
	mu          sync.Mutex
	counts      result.Requests
	corrected   latencies
	uncorrected latencies
	maxLag      time.Duration
	// lag is each request's send after its due time, in microseconds.
	lag     *result.Histogram
	seconds []second
	// open are the histograms of this shard's seconds not yet closed.
	open     []openSecond
	timeline timeline
	errors   map[string]*result.ErrorCount
	// instances counts, per instance of the run's fleet, its requests
	// and admissions; nil without a fleet.
	instances []instanceCount
}

// instanceCount is what one application instance sent and had admitted.
type instanceCount struct{ sent, allowed int64 }

// second is what one second of a run decided.
type second struct {
	allowed, denied, errors int64
}

// New is a recorder of a run whose traffic starts at start: the instant
// the per-second series and the timeline count from.
func New(start time.Time) *Recorder {
	n := runtime.GOMAXPROCS(0)
	r := &Recorder{Start: start, shards: make([]*recShard, n)}
	for i := range r.shards {
		r.shards[i] = &recShard{corrected: newLatencies(), uncorrected: newLatencies(), lag: newSeriesHistogram(), timeline: newTimeline(), errors: map[string]*result.ErrorCount{}}
	}
	return r
}

// Record adds one outcome; shard (a connection's number) picks the
// shard it is added to.
func (r *Recorder) Record(shard int, o *event.Outcome) {
	s := r.shards[shard%len(r.shards)]
	corrected := result.HistMicros(o.Done.Sub(o.Due))
	uncorrected := result.HistMicros(o.Done.Sub(o.Sent))
	lag := o.Sent.Sub(o.Due)
	// A request belongs to the second it was decided in: counted by due
	// time, a backlog cleared after a stall would show more admissions in
	// one second than the limiter ever made.
	decided := o.Done.Sub(r.Start)
	sec := int(max(decided, 0) / time.Second)

	s.mu.Lock()
	newest := false
	defer func() {
		s.mu.Unlock()
		if newest {
			r.closeSeconds(int64(decided))
		}
	}()
	s.counts.Sent++
	if o.Instance < len(s.instances) {
		c := &s.instances[o.Instance]
		c.sent++
		if o.Err == nil && o.Decision.Allowed {
			c.allowed++
		}
	}
	if lag > event.LateThreshold {
		s.counts.Late++
	}
	if lag > s.maxLag {
		s.maxLag = lag
	}
	s.lag.Record(result.HistMicros(lag))
	for len(s.seconds) <= sec {
		s.seconds = append(s.seconds, second{})
	}
	b := &s.seconds[sec]
	// A closed second no outcome can reach (see seconds.go); should one
	// come all the same, it is counted, and left out of its p99 rather
	// than reopen a second whose p99 was taken.
	if int64(sec) >= r.closer.through.Load() {
		newest = s.recordSecond(sec, corrected)
	}
	s.timeline.add(decided, o, corrected)
	s.corrected.all.Record(corrected)
	s.uncorrected.all.Record(uncorrected)
	switch {
	case o.Err != nil:
		s.counts.Errors++
		b.errors++
		s.countError(o.Err)
	case o.Decision.Allowed:
		s.counts.Allowed++
		b.allowed++
		s.corrected.allowed.Record(corrected)
		s.uncorrected.allowed.Record(uncorrected)
	default:
		s.counts.Denied++
		b.denied++
		s.corrected.denied.Record(corrected)
		s.uncorrected.denied.Record(uncorrected)
	}
}

// countError counts err under its kind, keeping the first message of each
// kind as its example.
func (s *recShard) countError(err error) {
	kind := redisenv.ErrorKind(err)
	if _, ok := s.errors[kind]; !ok && len(s.errors) >= maxErrorKinds {
		kind = redisenv.KindOther
	}
	e, ok := s.errors[kind]
	if !ok {
		e = &result.ErrorCount{Kind: kind, Message: result.ClipText(err.Error())}
		s.errors[kind] = e
	}
	e.Count++
}

// CountInstances makes the recorder count what each of n application
// instances sent and had admitted; call it before anything is recorded.
func (r *Recorder) CountInstances(n int) {
	for _, s := range r.shards {
		s.instances = make([]instanceCount, n)
	}
}

// InstanceCounts is, per application instance, the requests recorded
// and their admissions; nil unless CountInstances was called.
func (r *Recorder) InstanceCounts() (sent, allowed []int64) {
	for _, s := range r.shards {
		s.mu.Lock()
		if sent == nil && s.instances != nil {
			sent, allowed = make([]int64, len(s.instances)), make([]int64, len(s.instances))
		}
		for i, c := range s.instances {
			sent[i] += c.sent
			allowed[i] += c.allowed
		}
		s.mu.Unlock()
	}
	return sent, allowed
}

// LagQuantile is the q-th percentile of the recorded requests' sends
// after their due times, to the series histograms' precision.
func (r *Recorder) LagQuantile(q float64) time.Duration {
	all := newSeriesHistogram()
	for _, s := range r.shards {
		s.mu.Lock()
		all.Merge(s.lag)
		s.mu.Unlock()
	}
	return time.Duration(all.ValueAtQuantile(q)) * time.Microsecond
}

// Counts is how many outcomes have been recorded so far, and how many of
// them were errors.
func (r *Recorder) Counts() (sent, errors int64) {
	for _, s := range r.shards {
		s.mu.Lock()
		sent += s.counts.Sent
		errors += s.counts.Errors
		s.mu.Unlock()
	}
	return sent, errors
}

// Slot is a new connection's slot, which tells the recorder of its call
// in flight (see CallSlot): each connection of a run takes one.
func (r *Recorder) Slot() *CallSlot { return r.calls.add() }

// InFlight is how many requests have gone out and not yet been recorded.
func (r *Recorder) InFlight() int64 { return r.calls.inFlight() }

// Completed is how many outcomes have been recorded so far.
func (r *Recorder) Completed() int64 {
	var n int64
	for _, s := range r.shards {
		s.mu.Lock()
		n += s.counts.Sent
		s.mu.Unlock()
	}
	return n
}

// Fill merges the shards into run: the request counts, the latency
// digests and histograms, the furthest lag, the per-second series and the
// errors by message.
func (r *Recorder) Fill(run *result.Run) {
	r.closeAll()
	corrected, uncorrected := newLatencies(), newLatencies()
	var maxLag time.Duration
	var secs []second
	tl := newTimeline()
	for _, s := range r.shards {
		s.mu.Lock()
		run.Requests.Add(s.counts)
		corrected.merge(s.corrected)
		uncorrected.merge(s.uncorrected)
		maxLag = max(maxLag, s.maxLag)
		for i, b := range s.seconds {
			for len(secs) <= i {
				secs = append(secs, second{})
			}
			secs[i].allowed += b.allowed
			secs[i].denied += b.denied
			secs[i].errors += b.errors
		}
		tl.merge(s.timeline)
		s.mu.Unlock()
	}
	run.Timeline = tl.contract()
	run.LatencyUs = result.Digest(corrected.all)
	run.LatencyUncorrectedUs = result.Digest(uncorrected.all)
	run.LatencyAllowedUs = result.Digest(corrected.allowed)
	run.LatencyDeniedUs = result.Digest(corrected.denied)
	// Encoding a histogram of the contract's own range cannot fail.
	run.LatencyHDR, _ = result.EncodeHistogram(corrected.all)
	run.LatencyUncorrectedHDR, _ = result.EncodeHistogram(uncorrected.all)
	run.MaxLagUs = maxLag.Microseconds()
	run.Series = make([]result.Second, len(secs))
	for i, b := range secs {
		run.Series[i] = result.Second{TS: i, Allowed: b.allowed, Denied: b.denied, Errors: b.errors, P99Us: r.secondP99(i)}
	}
	run.Errors = r.ErrorCounts()
}

// ErrorCounts is the failed calls by kind, every shard's added up, most
// frequent first; nil without one.
func (r *Recorder) ErrorCounts() []result.ErrorCount {
	errs := map[string]*result.ErrorCount{}
	for _, s := range r.shards {
		s.mu.Lock()
		for kind, e := range s.errors {
			if all, ok := errs[kind]; ok {
				all.Count += e.Count
			} else {
				c := *e
				errs[kind] = &c
			}
		}
		s.mu.Unlock()
	}
	var out []result.ErrorCount
	for _, e := range errs {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

func (dst latencies) merge(src latencies) {
	dst.all.Merge(src.all)
	dst.allowed.Merge(src.allowed)
	dst.denied.Merge(src.denied)
}

// LastError returns one recorded error message, for abort messages.
func (r *Recorder) LastError() string {
	for _, s := range r.shards {
		s.mu.Lock()
		for _, e := range s.errors {
			s.mu.Unlock()
			return e.Message
		}
		s.mu.Unlock()
	}
	return "none recorded"
}
