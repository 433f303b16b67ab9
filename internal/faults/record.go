package faults

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// The bins a run with faults is counted in: fine ones, which place each
// fault's window and recovery, and the bins the result shows (ten fine
// ones each, 100ms for a run of up to five minutes), which hold a p99 and
// decide when decisions are normal again.
const (
	faultFineWidth   = 10 * time.Millisecond
	faultShowFactor  = 10
	faultMaxFineBins = 1 << 15
	// showDigits keeps each shown bin's histogram small: p99 to within 10%.
	showDigits = 1
)

// faultCounts are one fine bin's counts, kept with atomics: every worker
// and every retry loop adds to them without a lock.
type faultCounts struct {
	allowed, denied, errors       atomic.Int64
	allowedOnError, deniedOnError atomic.Int64
	attempts, retries             atomic.Int64
	// late counts requests sent more than lateAfter after they were due.
	late atomic.Int64
}

// lateAfter is how far past its due time a request is sent late, as the
// run's requests.late counts it.
const lateAfter = time.Millisecond

// faultShowBin is one shown bin's latency histogram, made when the bin
// first gets a decision.
type faultShowBin struct {
	mu   sync.Mutex
	hist *result.Histogram
}

// faultSpan collects, for one fault, how long callers whose call failed
// waited before the error policy decided: from the fault's scheduled start
// until the next fault's.
type faultSpan struct {
	from, to time.Time
	mu       sync.Mutex
	hist     *result.Histogram
}

// recorder counts a run with faults in time: every outcome by when it was
// decided (as the run's series are), split by who decided it (Redis or the
// error policy), and every call the caller made to Redis. It also tells
// the audit of the calls that may have run unseen.
type recorder struct {
	start     time.Time
	fineWidth time.Duration
	fine      []faultCounts
	show      []faultShowBin
	spans     []faultSpan
	faults    []plan.Fault

	maxAttempts atomic.Int64
	// unseenCalls counts the calls that failed but may have run.
	unseenCalls atomic.Int64
	// unseen is told of the failed calls that may have run.
	unseen UnseenRecorder
	// offset turns the client's clock into the server's, for the audit.
	offset event.Offset
	// held is, per fault, the local span (unix nanos) in which a paused
	// server surely held every command; zero while unknown.
	held []heldSpan
	// dropped is, per fault, the local span (unix nanos) in which the
	// proxy dropped every request (a reset, a black hole); zero while
	// unknown.
	dropped []heldSpan
	// quiet says since when calls without an answer are not explained by
	// a fault (unix nanos); see Session.QuietSince.
	quiet func() int64
	// answers, once a primary switched, finds the new primary's first
	// decision.
	answers atomic.Pointer[answerWatch]
}

// newRecorder prepares the bins of a run that starts at start and lasts
// about length, with faults on its schedule.
func newRecorder(start time.Time, length time.Duration, faults []plan.Fault, unseen UnseenRecorder, offset event.Offset) *recorder {
	width := faultFineWidth
	for length/width >= faultMaxFineBins {
		width *= 2
	}
	n := int(length/width) + 1
	f := &recorder{
		start: start, fineWidth: width, faults: faults, unseen: unseen, offset: offset,
		fine: make([]faultCounts, n),
		show: make([]faultShowBin, n/faultShowFactor+1),
	}
	f.spans = make([]faultSpan, len(faults))
	f.held = make([]heldSpan, len(faults))
	f.dropped = make([]heldSpan, len(faults))
	for i, flt := range faults {
		f.spans[i].from = start.Add(flt.At)
		f.spans[i].to = start.Add(length + time.Hour)
		if i+1 < len(faults) {
			f.spans[i].to = start.Add(faults[i+1].At)
		}
	}
	return f
}

// fineIndex is the fine bin of local time t, clamped to the bins there are.
func (f *recorder) fineIndex(t time.Time) int {
	i := int(max(t.Sub(f.start), 0) / f.fineWidth)
	return min(i, len(f.fine)-1)
}

// spanAt is the index of the fault whose span holds t, or -1 before the
// first fault.
func (f *recorder) spanAt(t time.Time) int {
	for i := len(f.spans) - 1; i >= 0; i-- {
		if !t.Before(f.spans[i].from) {
			return i
		}
	}
	return -1
}

// record counts one outcome; corrected is its latency from the due time.
// Record implements event.Sink: it counts one outcome in the bins of the
// time it was decided, by who decided it.
func (f *recorder) Record(o *event.Outcome) {
	i := f.fineIndex(o.Done)
	c := &f.fine[i]
	if o.Sent.Sub(o.Due) > lateAfter {
		c.late.Add(1)
	}
	var pd *event.PolicyDecision
	if w := f.answers.Load(); w != nil && o.Err == nil {
		w.saw(o.Done.UnixNano())
	}
	switch {
	case o.Err == nil && o.Decision.Allowed:
		c.allowed.Add(1)
	case o.Err == nil:
		c.denied.Add(1)
	default:
		c.errors.Add(1)
		if errors.As(o.Err, &pd) && pd.Decided {
			if pd.Allowed {
				c.allowedOnError.Add(1)
			} else {
				c.deniedOnError.Add(1)
			}
		}
		if k := f.spanAt(o.Done); k >= 0 {
			s := &f.spans[k]
			s.mu.Lock()
			if s.hist == nil {
				s.hist = result.NewHistogram()
			}
			s.hist.Record(result.HistMicros(o.Done.Sub(o.Sent)))
			s.mu.Unlock()
		}
	}
	b := &f.show[i/faultShowFactor]
	b.mu.Lock()
	if b.hist == nil {
		b.hist = result.NewCoarseHistogram(showDigits)
	}
	b.hist.Record(result.HistMicros(o.Done.Sub(o.Due)))
	b.mu.Unlock()
}

// calls counts the calls one request made to Redis, ending at done.
func (f *recorder) calls(done time.Time, n int64) {
	c := &f.fine[f.fineIndex(done)]
	c.attempts.Add(n)
	c.retries.Add(n - 1)
	for {
		m := f.maxAttempts.Load()
		if n <= m || f.maxAttempts.CompareAndSwap(m, n) {
			return
		}
	}
}

// failedCall tells the audit about a call of identity, sent at sent, that
// failed with err at done, when it may still have run on the server (and
// changed the limiter's state) after its caller gave up: a call that timed
// out may have run, and a retry then charges the caller twice. The model
// cannot know it ran. asked is what the call asked (its units, and the
// caller's time its request carried).
func (f *recorder) failedCall(identity uint64, sent, done time.Time, asked algorithms.Decision, err error) {
	if !redisenv.MayHaveRun(err) {
		return
	}
	if k := f.spanAt(done); k >= 0 {
		// A paused server holds the commands sent during the pause, and
		// drops those whose client gave up before it ended: the span the
		// server's own clock gave (the schedule says nothing of when a
		// late injection took), unknown until the pause was answered.
		if from, to := f.held[k].from.Load(), f.held[k].to.Load(); from != 0 && sent.UnixNano() >= from && done.UnixNano() < to {
			return
		}
		if from, to := f.dropped[k].from.Load(), f.dropped[k].to.Load(); from != 0 && sent.UnixNano() >= from {
			switch f.faults[k].Kind {
			case plan.FaultReset:
				// A connection reset by the proxy while it dropped every
				// request: the reset is what the request's arrival set off.
				if redisenv.ErrorKind(err) == redisenv.KindReset && done.UnixNano() < to {
					return
				}
			case plan.FaultTimeout:
				// Sent into the black hole, on a connection it closes as
				// it goes: dropped, whenever its caller gave up.
				if sent.UnixNano() < to {
					return
				}
			}
		}
	}
	f.unseenCalls.Add(1)
	if f.unseen == nil {
		return
	}
	f.unseen.RecordUnseen(identity, f.offset.ServerMicros(sent), f.offset.ServerMicros(done), asked.Units(), asked.ClientNowMicros)
}

// span sums the fine bins from the one holding a up to the one holding b
// (local times), that one left out: spans that meet share no bin.
func (f *recorder) span(a, b time.Time) result.FaultFigures {
	out := result.FaultFigures{StartMs: a.Sub(f.start).Milliseconds(), EndMs: b.Sub(f.start).Milliseconds()}
	last := f.fineIndex(b)
	if !b.Before(f.start.Add(time.Duration(len(f.fine)) * f.fineWidth)) {
		last = len(f.fine)
	}
	for i := f.fineIndex(a); i < last; i++ {
		c := &f.fine[i]
		out.Allowed += c.allowed.Load()
		out.Denied += c.denied.Load()
		out.Errors += c.errors.Load()
		out.AllowedOnError += c.allowedOnError.Load()
		out.DeniedOnError += c.deniedOnError.Load()
		out.Attempts += c.attempts.Load()
		out.Late += c.late.Load()
	}
	out.Decisions = out.Allowed + out.Denied + out.Errors
	return out
}

// totals sums every bin: the run's counts by who decided, and its calls.
func (f *recorder) totals() (allowedOnError, deniedOnError, attempts, retries int64) {
	for i := range f.fine {
		c := &f.fine[i]
		allowedOnError += c.allowedOnError.Load()
		deniedOnError += c.deniedOnError.Load()
		attempts += c.attempts.Load()
		retries += c.retries.Load()
	}
	return
}

// timeline is the shown bins, up to the end of the run's traffic.
func (f *recorder) timeline(elapsed time.Duration) *result.FaultTimeline {
	width := f.fineWidth * faultShowFactor
	n := min(len(f.show), int((elapsed+width-1)/width))
	tl := &result.FaultTimeline{BinMs: width.Milliseconds(), Bins: make([]result.FaultBin, n)}
	for j := range tl.Bins {
		from := f.start.Add(time.Duration(j) * width)
		s := f.span(from, from.Add(width))
		b := result.FaultBin{TMs: s.StartMs, Allowed: s.Allowed, Denied: s.Denied, Errors: s.Errors,
			AllowedOnError: s.AllowedOnError, DeniedOnError: s.DeniedOnError}
		if h := f.show[j].hist; h != nil && h.Count() > 0 {
			b.P99Us = h.ValueAtQuantile(99)
		}
		tl.Bins[j] = b
	}
	return tl
}

// baselineP99 is the p99 of the decisions before the first fault, from
// the shown bins that lie wholly before it; ok is false when there were
// too few to tell.
func (f *recorder) baselineP99() (p99 int64, ok bool) {
	if len(f.faults) == 0 {
		return 0, false
	}
	width := f.fineWidth * faultShowFactor
	h := result.NewCoarseHistogram(showDigits)
	for j := range f.show {
		if time.Duration(j+1)*width > f.faults[0].At {
			break
		}
		if b := f.show[j].hist; b != nil {
			h.Merge(b)
		}
	}
	if h.Count() < minBaselineDecisions {
		return 0, false
	}
	return h.ValueAtQuantile(99), true
}

// minBaselineDecisions is how many decisions before the first fault a
// baseline p99 needs.
const minBaselineDecisions = 50

// normalP99 is the highest p99 a shown bin may have and count as normal:
// twice the baseline, and at least 2ms above it.
func normalP99(base int64) int64 { return max(2*base, base+2000) }

// recovered finds, from local time from on and before limit, the start of
// the first shown bin whose decisions are normal again: some decisions,
// no call without one, and (when the run had a baseline) a p99 near it.
func (f *recorder) recovered(from, limit time.Time) (time.Time, bool) {
	width := f.fineWidth * faultShowFactor
	base, haveBase := f.baselineP99()
	j := int((max(from.Sub(f.start), 0) + width - 1) / width)
	for ; j < len(f.show); j++ {
		at := f.start.Add(time.Duration(j) * width)
		if !at.Add(width).Before(limit) && !at.Add(width).Equal(limit) {
			break
		}
		s := f.span(at, at.Add(width))
		if s.Decisions == 0 || s.Errors > 0 {
			continue
		}
		if h := f.show[j].hist; haveBase && (h == nil || h.ValueAtQuantile(99) > normalP99(base)) {
			continue
		}
		return at, true
	}
	return limit, false
}

// errorLatency digests how long the callers of fault k's failed calls
// waited before the error policy decided.
func (f *recorder) errorLatency(k int) result.Latency {
	s := &f.spans[k]
	s.mu.Lock()
	defer s.mu.Unlock()
	return result.Digest(s.hist)
}

// heldSpan is a span of local time, in unix nanos, set once.
type heldSpan struct{ from, to atomic.Int64 }

// requestsDropped records that from from on, until requestsPass, network
// fault k drops every request that arrives (resetting its connection, or
// into a black hole). A nil recorder (no faults) ignores it.
func (f *recorder) requestsDropped(k int, from time.Time) {
	if f == nil || k >= len(f.dropped) {
		return
	}
	f.dropped[k].to.Store(math.MaxInt64)
	f.dropped[k].from.Store(from.UnixNano())
}

// requestsPass records that network fault k lets requests through again
// from to on (after requestsDropped).
func (f *recorder) requestsPass(k int, to time.Time) {
	if f == nil || k >= len(f.dropped) || f.dropped[k].from.Load() == 0 {
		return
	}
	f.dropped[k].to.Store(to.UnixNano())
}

// pauseHeld records that pause fault k held every command sent from from
// on until to. A nil recorder (no faults) ignores it.
func (f *recorder) pauseHeld(k int, from, to time.Time) {
	if f == nil || k >= len(f.held) || !to.After(from) {
		return
	}
	f.held[k].to.Store(to.UnixNano())
	f.held[k].from.Store(from.UnixNano())
}
