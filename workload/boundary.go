package workload

import (
	"container/heap"
	"context"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// boundaryGrace is how far past its planned span a boundary run still
// sends: bursts are placed by the primes' replies, which can come late.
const boundaryGrace = time.Second

// burstDues lists the server times (microseconds) of the two bursts around
// the boundary at boundaryMicros: the first burst ends Offset before it,
// the second starts Offset after it, each spread evenly over Spread.
func burstDues(b plan.Boundary, boundaryMicros int64) []int64 {
	off, spread := b.Offset.Microseconds(), b.Spread.Microseconds()
	out := make([]int64, 0, 2*b.Burst)
	step := func(k int64) int64 {
		if b.Burst < 2 {
			return 0
		}
		return spread * k / (b.Burst - 1)
	}
	for k := int64(0); k < b.Burst; k++ {
		out = append(out, boundaryMicros-off-step(b.Burst-1-k))
	}
	for k := int64(0); k < b.Burst; k++ {
		out = append(out, boundaryMicros+off+step(k))
	}
	return out
}

// boundary runs a boundary run s: it aligns the local clock with the TIME
// of srv (the run's Redis), then primes identity after identity, finds
// where each one's window ends, and fires the bursts around it.
func (d *scheduler) boundary(ctx context.Context, srv event.ServerClock, s plan.Run) (scheduleEnd, error) {
	offset, err := event.EstimateOffset(ctx, srv, d.clock, event.DefaultOffsetSamples)
	if err != nil {
		return scheduleEnd{}, err
	}
	loc := newLocator(d.windows, offset, s.Boundary.Offset)
	out, err := d.boundaryBursts(ctx, s.Boundary, s.Identities, loc, s.Duration+boundaryGrace+loc.extraSpan())
	out.clock, out.windows = &offset, loc.located()
	return out, err
}

// boundaryBursts is the boundary shape's schedule. The pacing goroutine
// sends each prime itself, at its due time, and finds from the reply where
// that identity's window ends (see locator); where the limiter's behaviour
// must show it, it sends the requests that exhaust the window to the
// workers and each probe itself, a probe every loc.probeEvery until one is
// admitted after a denial. It places the identity's bursts, converted to
// local time through the clock offset, and they go to the workers at their
// due times, like an open loop. Requests that fall due after until are
// counted as unsent. A window's end that cannot be read ends the schedule
// with the error.
func (d *scheduler) boundaryBursts(ctx context.Context, b plan.Boundary, identities int, loc *locator, until time.Duration) (scheduleEnd, error) {
	jobs, wait := d.startWorkers()
	defer wait()
	defer func() {
		// What was held for a batch goes out before the workers stop.
		_, _ = jobs.flush(ctx)
		jobs.close()
	}()
	defer event.TuneForPacing(d.clock)()

	start := d.rec.Start
	// Primes start once the clock is aligned, so none is late for it.
	base := d.clock.Now().Sub(start)
	primer := d.newWorker(d.concurrency)
	var pending jobQueue
	next := 0
	// seq numbers the requests in the order the schedule makes them, which
	// draws the instance of a fleet that sends each.
	var seq uint64
	newJob := func(identity uint64, due time.Time, probe bool) job {
		seq++
		return job{identity: identity, due: due, probe: probe, instance: d.fleet.instanceOf(identity, seq-1)}
	}
	place := func(identity uint64, edge int64) {
		for _, s := range d.boundaries {
			s.Boundary(identity, edge)
		}
		for _, due := range burstDues(b, edge) {
			heap.Push(&pending, newJob(identity, start.Add(loc.offset.LocalTime(due).Sub(start)), false))
		}
	}
	// unsent counts what was due but will not be sent: the pending
	// bursts, the bursts of identities still being located, and every
	// request of the identities not primed yet.
	unsent := func() int64 {
		var n int64
		for _, j := range pending {
			if !j.probe {
				n++
			}
		}
		rest := d.segment.Share(identities) - d.segment.Share(next)
		return n + int64(len(loc.probing))*2*b.Burst + b.Requests(rest)
	}
	for {
		var j job
		prime := false
		primeDue := start.Add(base + time.Duration(next)*b.Stagger)
		switch {
		case next < identities && !d.segment.Owns(uint64(next)):
			// Another segment's identity: its slot in the schedule stays
			// empty here.
			next++
			continue
		case next < identities && (len(pending) == 0 || !pending[0].due.Before(primeDue)):
			j, prime = newJob(uint64(next), primeDue, false), true
			next++
		case len(pending) > 0:
			j = heap.Pop(&pending).(job)
		default:
			return scheduleEnd{elapsed: d.clock.Now().Sub(start)}, nil
		}
		if j.due.Sub(start) >= until {
			n := unsent()
			if !j.probe {
				n++
			}
			if prime {
				n += 2 * b.Burst
			}
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), unsent: n}, nil
		}
		// Nothing held waits through a sleep, nor through a prime's or a
		// probe's own call.
		if wait := j.due.Sub(d.clock.Now()); wait > 0 || prime || j.probe {
			if sent, _ := jobs.flush(ctx); !sent {
				return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}, nil
			}
		}
		// Sleep also reports a stop when nothing is left to wait, so a
		// schedule that is behind still ends when asked to.
		if d.clock.Sleep(ctx, j.due.Sub(d.clock.Now())) != nil {
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}, nil
		}
		switch {
		case prime:
			d.issued.Add(1)
			key := d.call(primer, j)
			if primer.out.Err != nil {
				continue
			}
			edge, ok, err := loc.afterPrime(ctx, &primer.out, key)
			if err != nil {
				return scheduleEnd{elapsed: d.clock.Now().Sub(start), unsent: unsent() + 2*b.Burst}, err
			}
			if ok {
				place(j.identity, edge)
				continue
			}
			// Exhaust the window the prime opened, then probe for its end.
			loc.startProbing(j.identity, &primer.out)
			now := d.clock.Now()
			for k := int64(0); k < loc.exhaustRequests(); k++ {
				heap.Push(&pending, newJob(j.identity, now, false))
			}
			heap.Push(&pending, newJob(j.identity, now.Add(loc.probeEvery), true))
			continue
		case j.probe:
			d.issued.Add(1)
			d.call(primer, j)
			if edge, done := loc.probed(j.identity, &primer.out); done {
				place(j.identity, edge)
			} else {
				heap.Push(&pending, newJob(j.identity, d.clock.Now().Add(loc.probeEvery), true))
			}
			continue
		}
		if sent, _ := jobs.add(ctx, j); !sent {
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}, nil
		}
		d.issued.Add(1)
	}
}

// jobQueue is a min-heap of jobs by due time.
type jobQueue []job

func (q jobQueue) Len() int           { return len(q) }
func (q jobQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q jobQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *jobQueue) Push(x any)        { *q = append(*q, x.(job)) }
func (q *jobQueue) Pop() any {
	old := *q
	j := old[len(old)-1]
	*q = old[:len(old)-1]
	return j
}
