package workload

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// openLoop runs an open-loop schedule: each request goes out at its due
// time, whatever happened to earlier ones, and its latency counts from the
// due time. Each connection paces itself: it claims its next requests from
// the shared schedule (the next one, and when it pipelines those due within
// batchWindow of it, up to a batch), sleeps on its own timer until the last
// of them is due, sends them, reads their replies, and claims again. While
// a reply is outstanding the connection is not asleep, and once it is read
// a request already due goes out at once: the wait for a due time and the
// wait for a reply are one. Nothing is handed from one goroutine to
// another, so an open loop costs what a closed loop costs, plus a timer
// per batch. When every connection is busy at a request's due time, the
// request waits for the first to be free, goes out late, and the lateness
// is recorded rather than hidden. The schedule ends with its arrivals or
// at duration, whichever is first.
func (d *scheduler) openLoop(ctx context.Context, arr arrivals.Source, duration time.Duration) scheduleEnd {
	queues := d.fleet.queues(d.concurrency)
	s := newShare(arr, d.segment, queues, duration)
	start := d.rec.Start
	// Every connection joins the clock before any starts: a simulated
	// clock moves only while all of them sleep.
	leave := make([]func(), d.concurrency)
	for i := range leave {
		leave[i] = event.Join(d.clock)
	}
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		send, done, size := d.closedSender(i)
		wg.Add(1)
		go func(queue int) {
			defer wg.Done()
			defer leave[i]()
			defer done()
			d.pace(ctx, s, queue, size, send)
		}(i % queues)
	}
	wg.Wait()
	return s.end(d.clock.Now().Sub(start))
}

// pace is one connection of an open loop: it claims its next requests from
// queue of s, up to size at once, sleeps until they are due, sends them,
// and again, until the schedule ends for it or ctx does.
func (d *scheduler) pace(ctx context.Context, s *share, queue, size int, send func([]job)) {
	timer := event.NewTimer(d.clock)
	defer timer.Stop()
	start := d.rec.Start
	batch := make([]job, 0, size)
	// The connection has been free since the schedule began: a request
	// due before then did not wait for a connection.
	freeSince := time.Duration(math.MinInt64)
	for {
		var ok bool
		batch, ok = s.claim(ctx, queue, batch[:0], size, d.clock.Now().Sub(start), freeSince, start)
		if !ok {
			return
		}
		if timer.SleepUntil(ctx, batch[len(batch)-1].due) != nil {
			s.interrupt()
			return
		}
		send(batch)
		freeSince = d.clock.Now().Sub(start)
	}
}

// batchWindow is how long past its due time a pipelined request may wait
// for the requests of its batch: a connection claims the next request and
// those due within this of it (up to the pipeline's depth) and sends them
// when the last is due. A wider window makes fuller batches at low rates
// (each batch costs rlbench a wake-up, a write and a read) and later sends;
// above 1/batchWindow requests a second per connection the batches fill
// and no request waits this long.
const batchWindow = 100 * time.Microsecond

// deadlineGrace is how long after the end a request that was due before it
// may still be sent, so a last request is not lost to a late wake-up.
const deadlineGrace = 50 * time.Millisecond

// share is an open loop's schedule, which its connections claim requests
// from. It reads the whole source in order (every segment does, so that
// each sees the same identities at the same due times), keeps the
// requests of the identities the segment owns, and holds each for the
// connections of its instance's queue until one claims it.
type share struct {
	mu       sync.Mutex
	arr      arrivals.Source
	segment  plan.Segment
	duration time.Duration
	// held are the requests read and not yet claimed, per queue, in due
	// order; next is where each queue's first one is.
	held [][]arrivals.Arrival
	next []int
	// ended says the source has no more requests before duration, and
	// endAt when it ended.
	ended bool
	endAt time.Duration
	// stopped says no connection claims again: the run was interrupted
	// or the deadline passed; elapsed is then set.
	stopped, interrupted, late bool
	// drawn counts the requests read, owned those of the segment, busy
	// those claimed after the claiming connection became free, unsent
	// those never sent after the deadline passed.
	drawn, owned, busy, unsent int64
}

func newShare(arr arrivals.Source, segment plan.Segment, queues int, duration time.Duration) *share {
	return &share{arr: arr, segment: segment, duration: duration, held: make([][]arrivals.Arrival, queues), next: make([]int, queues)}
}

// claim appends to dst the next requests of queue for a connection free
// since freeSince (from the start of the schedule, start): the next
// request, and then, up to size in all, those due by now or within
// batchWindow of it. It reports false when the schedule has ended for the
// connection: its queue has no more requests, ctx ended, or now (from the
// start) is past the deadline, when every request not yet sent is counted
// as unsent. A request claimed after freeSince found every connection of
// its queue busy when it was due, and waited for this one.
func (s *share) claim(ctx context.Context, queue int, dst []job, size int, now, freeSince time.Duration, start time.Time) ([]job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped:
		return dst, false
	case ctx.Err() != nil:
		s.stopped, s.interrupted = true, true
		return dst, false
	case now >= s.duration+deadlineGrace:
		// The deadline passed while the generator was behind: what was
		// due but never sent is counted, not silently dropped.
		s.giveUp()
		return dst, false
	}
	first, ok := s.peek(queue)
	if !ok {
		return dst, false
	}
	for len(dst) < size {
		a, ok := s.peek(queue)
		if !ok || (len(dst) > 0 && a.Due > max(first.Due+batchWindow, now)) {
			break
		}
		s.next[queue]++
		if a.Due < freeSince {
			s.busy++
		}
		dst = append(dst, job{identity: a.Identity, due: start.Add(a.Due), units: a.Units, instance: a.Instance})
	}
	return dst, true
}

// peek is the next request of queue, read from the source as far as it
// takes (holding the other queues' requests it meets); false when the
// source has none left before duration.
func (s *share) peek(queue int) (arrivals.Arrival, bool) {
	for s.next[queue] >= len(s.held[queue]) {
		s.held[queue], s.next[queue] = s.held[queue][:0], 0
		if !s.read() {
			return arrivals.Arrival{}, false
		}
	}
	return s.held[queue][s.next[queue]], true
}

// read reads the source's next request into its queue's held requests;
// false once the source has ended (or reached duration).
func (s *share) read() bool {
	if s.ended {
		return false
	}
	var a arrivals.Arrival
	for {
		if !s.arr.Next(&a) {
			s.ended, s.endAt = true, min(a.Due, s.duration)
			return false
		}
		if a.Due >= s.duration {
			s.ended, s.endAt = true, s.duration
			return false
		}
		s.drawn++
		if s.segment.Owns(a.Identity) {
			s.owned++
			q := a.Instance % len(s.held)
			s.held[q] = append(s.held[q], a)
			return true
		}
	}
}

// giveUp stops the schedule at the deadline: every request held and every
// request of the source still due before duration is unsent.
func (s *share) giveUp() {
	s.stopped, s.late = true, true
	for q := range s.held {
		s.unsent += int64(len(s.held[q]) - s.next[q])
		s.held[q], s.next[q] = nil, 0
	}
	for s.read() {
		for q := range s.held {
			s.unsent += int64(len(s.held[q]))
			s.held[q] = s.held[q][:0]
		}
	}
}

// interrupt says a connection stopped for the run's context.
func (s *share) interrupt() {
	s.mu.Lock()
	s.stopped, s.interrupted = true, true
	s.mu.Unlock()
}

// end is how the schedule ended, once every connection has, elapsed
// after its start.
func (s *share) end(elapsed time.Duration) scheduleEnd {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := scheduleEnd{elapsed: elapsed, interrupted: s.interrupted, unsent: s.unsent, drawn: s.drawn, owned: s.owned, busy: s.busy}
	switch {
	case s.interrupted:
	case s.late:
		e.elapsed = s.duration
	case s.ended:
		e.elapsed = s.endAt
	}
	return e
}
