package workload

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// job is one request handed from the schedule to a worker.
type job struct {
	identity uint64
	due      time.Time
}

// scheduler sends one run's requests to a limiter from many goroutines, on
// the schedule of the run's shape, and records every outcome.
type scheduler struct {
	limiter algorithms.Limiter
	// An identity's key is prefix, the identity's number, then tail (a
	// hash tag's closing brace): see keyScheme.
	prefix, tail string
	// segment is the part of the identities this process sends for: of
	// every schedule it sends only the requests of identities it owns, at
	// their due times in the whole schedule.
	segment     profile.Segment
	clock       Clock
	rec         *recorder
	concurrency int
	// callCtx is detached from the run's context: stopping a run ends
	// issuing, while calls already in flight finish under their own timeout
	// and are counted.
	callCtx context.Context
	// pipelining sends requests in batches, when the run asks for it.
	pipelining

	lastSuccess atomic.Int64 // unix nanos of the latest decision
	lastError   atomic.Int64 // unix nanos of the latest error
}

// scheduleEnd says how a schedule ended.
type scheduleEnd struct {
	// elapsed is the window the achieved rate is measured over.
	elapsed time.Duration
	// unsent requests were due before the end but never sent.
	unsent int64
	// interrupted is set when the context ended the schedule early.
	interrupted bool
	// clock is the local-to-server clock alignment the schedule used, if
	// it placed requests in server time.
	clock *clockOffset
	// pipeline says how the requests went out.
	pipeline *result.Pipeline
}

// worker is one goroutine's state: its shard, a reusable key buffer and a
// reusable outcome, so a request allocates as little as possible.
type worker struct {
	id  int
	buf []byte
	out outcome
}

func (d *scheduler) newWorker(id int) *worker {
	buf := make([]byte, len(d.prefix), len(d.prefix)+24+len(d.tail))
	copy(buf, d.prefix)
	return &worker{id: id, buf: buf}
}

// key is identity's key, built in the worker's buffer: prefix, the
// identity's number, tail.
func (d *scheduler) key(w *worker, identity uint64) string {
	return string(append(strconv.AppendUint(w.buf[:len(d.prefix)], identity, 10), d.tail...))
}

// call sends one request for identity, records it, and returns the key.
func (d *scheduler) call(w *worker, identity uint64, due time.Time) string {
	key := d.key(w, identity)
	o := &w.out
	o.identity, o.due = identity, due
	o.sent = d.clock.Now()
	o.decision, o.err = d.limiter.Allow(d.callCtx, key)
	o.done = d.clock.Now()
	d.rec.record(w.id, o)
	d.rec.audit.record(identity, o)
	if o.err != nil {
		d.lastError.Store(o.done.UnixNano())
	} else {
		d.lastSuccess.Store(o.done.UnixNano())
	}
	return key
}

// openLoop runs an open-loop schedule: each request is handed to a free worker
// at its due time, whatever happened to earlier ones, and its latency counts
// from the due time. When every worker is busy the hand-off waits, the
// request goes out late, and the lateness is recorded rather than hidden.
func (d *scheduler) openLoop(ctx context.Context, pacer Pacer, picker IdentityPicker, duration time.Duration, maxRequests int64) scheduleEnd {
	jobs, wait := d.startWorkers()
	defer wait()
	defer close(jobs)

	defer tuneForPacing(d.clock)()
	start := d.rec.start
	for n := uint64(0); ; n++ {
		if maxRequests > 0 && int64(n) >= maxRequests {
			return scheduleEnd{elapsed: min(pacer.Due(n), duration)}
		}
		due := pacer.Due(n)
		if due >= duration {
			return scheduleEnd{elapsed: duration}
		}
		// Every request of the whole schedule is drawn, in order, so that
		// every segment sees the same identities at the same due times.
		identity := picker.Pick(n)
		if !d.segment.Owns(identity) {
			continue
		}
		if wait := due - d.clock.Now().Sub(start); wait > 0 {
			if d.clock.Sleep(ctx, wait) != nil {
				return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}
			}
		}
		if d.clock.Now().Sub(start) >= duration+deadlineGrace {
			// The deadline passed while the generator was behind: what was
			// due but never sent is counted, not silently dropped.
			return scheduleEnd{elapsed: duration, unsent: 1 + d.countDue(pacer, picker, n+1, duration, maxRequests)}
		}
		select {
		case jobs <- job{identity: identity, due: start.Add(due)}:
		case <-ctx.Done():
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}
		}
	}
}

// startWorkers starts the workers that send the jobs handed to them. The
// caller closes jobs when the schedule ends, then calls wait for the calls
// in flight.
func (d *scheduler) startWorkers() (jobs chan job, wait func()) {
	if d.piped != nil {
		return d.startPipelines()
	}
	jobs = make(chan job)
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for j := range jobs {
				d.call(w, j.identity, j.due)
			}
		}(d.newWorker(i))
	}
	return jobs, wg.Wait
}

// deadlineGrace is how long after the end a request that was due before it
// may still be sent, so a last request is not lost to a sleep's overshoot.
const deadlineGrace = 50 * time.Millisecond

// countDue counts the requests from n on that are due before duration,
// for identities of the segment.
func (d *scheduler) countDue(p Pacer, picker IdentityPicker, n uint64, duration time.Duration, maxRequests int64) int64 {
	var c int64
	for ; p.Due(n) < duration && (maxRequests <= 0 || int64(n) < maxRequests); n++ {
		if d.segment.Owns(picker.Pick(n)) {
			c++
		}
	}
	return c
}

// closedLoop runs a closed loop: every worker sends its next request as soon as
// the previous one is answered, until the duration or the request count is
// reached. Latency is measured from the send, as nothing is scheduled.
func (d *scheduler) closedLoop(ctx context.Context, picker IdentityPicker, duration time.Duration, maxRequests int64) scheduleEnd {
	if d.piped != nil {
		return d.closedLoopPipelined(ctx, picker, duration, maxRequests)
	}
	start := d.rec.start
	deadline := start.Add(duration)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for ctx.Err() == nil {
				now := d.clock.Now()
				if !now.Before(deadline) {
					return
				}
				n := next.Add(1) - 1
				if maxRequests > 0 && int64(n) >= maxRequests {
					return
				}
				if identity := picker.Pick(n); d.segment.Owns(identity) {
					d.call(w, identity, now)
				}
			}
		}(d.newWorker(i))
	}
	wg.Wait()
	return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: ctx.Err() != nil}
}
