package workload

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// job is one request handed from the schedule to a worker.
type job struct {
	identity uint64
	due      time.Time
	// units is what the request asks for when its arrival says (zero: the
	// run's own cost).
	units int64
	// instance is the application instance of the run's fleet that sends
	// it (0 without a fleet).
	instance int
	// probe marks a boundary run's probe for where a window ends, which
	// the schedule sends itself.
	probe bool
}

// scheduler sends one run's requests to a limiter from many goroutines, on
// the schedule of the run's shape, and records every outcome.
type scheduler struct {
	limiter algorithms.Limiter
	// windows is the limiter itself, without the caller around it: what
	// it says of its windows places a boundary run's bursts.
	windows algorithms.Limiter
	// sinks take every outcome besides the recorder; boundaries are told
	// where a boundary run found each identity's window to end.
	sinks      []event.Sink
	boundaries []event.BoundarySink
	// keys names an identity's key: its head, the identity's number, its
	// tail (a hash tag's closing brace).
	keys event.KeyScheme
	// segment is the part of the identities this process sends for: of
	// every schedule it sends only the requests of identities it owns, at
	// their due times in the whole schedule.
	segment     plan.Segment
	clock       event.Clock
	rec         *recorder.Recorder
	concurrency int
	// callCtx is detached from the run's context: stopping a run ends
	// issuing, while calls already in flight finish under their own timeout
	// and are counted.
	callCtx context.Context
	// pipelining sends requests in batches, when the run asks for it.
	pipelining
	// fleet sends each request from an instance of the run's fleet, on
	// its clock; nil without a fleet.
	fleet *fleetRoute

	lastSuccess atomic.Int64 // unix nanos of the latest decision
	lastError   atomic.Int64 // unix nanos of the latest error
	// issued counts the requests a boundary schedule sent itself or
	// handed to a worker: what has reached, or is about to reach, the
	// limiter.
	issued atomic.Int64
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
	clock *event.Offset
	// windows is how a boundary run found where each identity's window
	// ends.
	windows *result.WindowLocation
	// pipeline says how the requests went out.
	pipeline *result.Pipeline
	// generator is what the scheduler said of rlbench itself meanwhile;
	// reloads counts the scripts loaded again after NOSCRIPT, and
	// malformed the replies whose optional parts did not read.
	generator *result.Generator
	reloads   int64
	malformed []result.ReplyMalformed
	// drawn counts the whole schedule's requests an open loop drew (every
	// segment draws them all), and owned those of this segment's
	// identities: a segment offers its share of the load, owned/drawn of
	// its rate.
	drawn, owned int64
	// busy counts the requests of an open loop that found every worker
	// busy when they were due, and waited for one.
	busy int64
}

// worker is one goroutine's state: its shard, a reusable key buffer and a
// reusable outcome, so a request allocates as little as possible, and the
// slot that tells the recorder of its call in flight.
type worker struct {
	id   int
	buf  []byte
	out  event.Outcome
	slot *recorder.CallSlot
}

func (d *scheduler) newWorker(id int) *worker {
	buf := make([]byte, len(d.keys.Head), len(d.keys.Head)+24+len(d.keys.Tail))
	copy(buf, d.keys.Head)
	return &worker{id: id, buf: buf, slot: d.rec.Slot()}
}

// key is identity's key, built in the worker's buffer.
func (d *scheduler) key(w *worker, identity uint64) string {
	return string(d.keys.AppendKey(w.buf[:0], identity))
}

// call sends request j, records it, and returns its key.
func (d *scheduler) call(w *worker, j job) string {
	key := d.key(w, j.identity)
	o := &w.out
	o.Identity, o.Due, o.Instance = j.identity, j.due, j.instance
	w.slot.Begin(1)
	o.Sent = d.clock.Now()
	w.slot.Sent(d.rec.Start, o.Sent)
	o.Decision, o.Err = d.limiter.Allow(algorithms.WithUnits(d.fleet.ctx(j.instance, d.callCtx), j.units), key)
	o.Done = d.clock.Now()
	o.MayHaveRun = redisenv.MayHaveRun(o.Err)
	d.record(w.id, o)
	w.slot.End()
	return key
}

// record delivers an outcome and notes when the latest decision or error
// came.
func (d *scheduler) record(worker int, o *event.Outcome) {
	d.deliver(worker, o)
	if o.Err != nil {
		d.lastError.Store(o.Done.UnixNano())
	} else {
		d.lastSuccess.Store(o.Done.UnixNano())
	}
}

// deliver hands an outcome to the recorder and to every sink.
func (d *scheduler) deliver(worker int, o *event.Outcome) {
	d.rec.Record(worker, o)
	for _, s := range d.sinks {
		s.Record(o)
	}
}

// startWorkers starts the workers that send the jobs handed to them: a
// fleet's instances each have their share of the workers, which send only
// that instance's requests (in batches, when pipelined). The caller
// flushes and closes the queues when the schedule ends, then calls wait
// for the calls in flight.
func (d *scheduler) startWorkers() (jobs dispatch, wait func()) {
	if d.piped != nil {
		return d.startPipelines()
	}
	q := newQueues(d.fleet.queues(d.concurrency), 0)
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		wg.Add(1)
		go func(w *worker, mine chan job) {
			defer wg.Done()
			for j := range mine {
				d.call(w, j)
			}
		}(d.newWorker(i), q.of(i))
	}
	return q, wg.Wait
}

// closedLoop runs a closed loop: every worker sends its next request (or,
// pipelined, its next full batch, as redis-benchmark -P does) as soon as
// the previous one is answered, until the duration or the request count
// is reached. Latency is measured from the send, as nothing is scheduled:
// each request is due when it goes out. A fleet's instances each have
// their share of the workers, and every request a worker draws goes out
// from its instance.
func (d *scheduler) closedLoop(ctx context.Context, picker arrivals.IdentityPicker, duration time.Duration, maxRequests int64) scheduleEnd {
	start := d.rec.Start
	deadline := start.Add(duration)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		send, done, size := d.closedSender(i)
		instance := i % d.fleet.queues(d.concurrency)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer done()
			batch := make([]job, 0, size)
			for ctx.Err() == nil {
				now := d.clock.Now()
				if !now.Before(deadline) {
					return
				}
				batch = batch[:0]
				for len(batch) < size {
					n := next.Add(1) - 1
					if maxRequests > 0 && int64(n) >= maxRequests {
						break
					}
					if identity := picker.Pick(n); d.segment.Owns(identity) {
						batch = append(batch, job{identity: identity, due: now, instance: instance})
					}
				}
				if len(batch) == 0 {
					return
				}
				send(batch)
			}
		}()
	}
	wg.Wait()
	return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: ctx.Err() != nil}
}

// closedSender is worker i's way of sending a closed loop's requests: one
// at a time, or a batch of up to size in one pipeline; done hands its
// figures to the run's.
func (d *scheduler) closedSender(i int) (send func([]job), done func(), size int) {
	if d.piped != nil {
		w := d.newPipeWorker(i)
		return func(b []job) { d.sendBatch(w, b) }, func() { d.workerDone(w) }, d.maxBatch
	}
	w := d.newWorker(i)
	return func(b []job) { d.call(w, b[0]) }, func() {}, 1
}
