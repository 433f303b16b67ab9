package workload

import (
	"container/heap"
	"context"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// ShapeBoundary primes each identity with one request, learns from the
// reply where its window ends in server time, and fires one burst just
// before that boundary and another just after: the traffic that shows a
// fixed window admitting twice its limit within one window's length.
const ShapeBoundary Shape = "boundary"

// Defaults of the boundary shape.
const (
	DefaultBoundaryOffset = 10 * time.Millisecond
	// boundaryGrace is how far past its planned span a boundary run still
	// sends: bursts are placed by the primes' replies, which can come late.
	boundaryGrace = time.Second
)

// Boundary holds the boundary shape's parameters.
type Boundary struct {
	// Burst is how many requests each of the two bursts sends.
	Burst int64
	// Offset is how far before the boundary the first burst ends, and how
	// far after it the second one starts.
	Offset time.Duration
	// Spread is how long each burst lasts: its requests are due evenly
	// over it. Zero fires each burst all at once.
	Spread time.Duration
	// Stagger is the time between two identities' priming requests.
	Stagger time.Duration

	// fields is where the profile gave the shape, until the checks that
	// need the policy have run.
	fields *fields
}

// DefaultStagger spaces identities so that the second burst of one and the
// first burst of the next are 2 x offset apart.
func DefaultStagger(offset, spread time.Duration) time.Duration {
	return 4*offset + 2*spread
}

// Requests is how many requests a boundary scenario sends for identities
// callers: a prime and two bursts each.
func (b Boundary) Requests(identities int) int64 {
	return int64(identities) * (1 + 2*b.Burst)
}

// Span is how long a boundary scenario lasts under policy p: the last
// identity is primed (identities-1) x stagger after the first, and its
// second burst ends about a window plus offset plus spread later.
func (b Boundary) Span(p algorithms.Policy, identities int) time.Duration {
	return time.Duration(identities-1)*b.Stagger + p.Window + time.Millisecond + b.Offset + b.Spread
}

// dues lists the server times (microseconds) of the two bursts around the
// boundary at boundaryMicros: the first burst ends Offset before it, the
// second starts Offset after it, each spread evenly over Spread.
func (b Boundary) dues(boundaryMicros int64) []int64 {
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

// windowEnd says where the window a prime opened ends, in server
// microseconds: where the limiter says, or a window after the prime.
func windowEnd(lim algorithms.Limiter, primeMicros int64) int64 {
	if w, ok := lim.(algorithms.Windowed); ok {
		return w.WindowEnd(primeMicros)
	}
	return primeMicros + lim.Policy().WindowMicros()
}

// driveBoundary runs a boundary scenario: it aligns the local clock with
// Redis TIME, then primes identity after identity and fires the bursts
// each prime's reply places.
func (r *Runner) driveBoundary(ctx context.Context, d *drive, s Scenario) (issued, error) {
	offset, err := estimateClockOffset(ctx, r.Client, d.clock, DefaultClockSamples)
	if err != nil {
		return issued{}, err
	}
	out := d.boundary(ctx, s.Boundary, s.Identities, offset, s.Duration+boundaryGrace)
	out.clock = &offset
	return out, nil
}

// boundary is the boundary shape's schedule. The pacing goroutine sends
// each prime itself, at its due time, and from the reply's server time
// places that identity's bursts, converted to local time through offset;
// burst requests go to the workers at their due times, like an open loop.
// Requests that fall due after until are counted as unsent.
func (d *drive) boundary(ctx context.Context, b Boundary, identities int, offset ClockOffset, until time.Duration) issued {
	jobs, wait := d.startWorkers()
	defer wait()
	defer close(jobs)
	defer pinForPacing()()

	start := d.rec.start
	// Primes start once the clock is aligned, so none is late for it.
	base := d.clock.Now().Sub(start)
	primer := d.newWorker(d.concurrency)
	var pending jobQueue
	next := 0
	for {
		var j job
		prime := false
		primeDue := start.Add(base + time.Duration(next)*b.Stagger)
		switch {
		case next < identities && (len(pending) == 0 || !pending[0].due.Before(primeDue)):
			j, prime = job{identity: uint64(next), due: primeDue}, true
			next++
		case len(pending) > 0:
			j = heap.Pop(&pending).(job)
		default:
			return issued{elapsed: d.clock.Now().Sub(start)}
		}
		if j.due.Sub(start) >= until {
			unsent := 1 + int64(len(pending)) + b.Requests(identities-next)
			if prime {
				unsent += 2 * b.Burst
			}
			return issued{elapsed: d.clock.Now().Sub(start), unsent: unsent}
		}
		// Sleep also reports a stop when nothing is left to wait, so a
		// schedule that is behind still ends when asked to.
		if d.clock.Sleep(ctx, j.due.Sub(d.clock.Now())) != nil {
			return issued{elapsed: d.clock.Now().Sub(start), interrupted: true}
		}
		d.handed.Add(1)
		if prime {
			d.call(primer, j.identity, j.due)
			if primer.out.err == nil {
				edge := windowEnd(d.limiter, primer.out.decision.ServerNowMicros)
				for _, due := range b.dues(edge) {
					heap.Push(&pending, job{identity: j.identity, due: start.Add(offset.localTime(due).Sub(start))})
				}
			}
			continue
		}
		select {
		case jobs <- j:
		case <-ctx.Done():
			return issued{elapsed: d.clock.Now().Sub(start), interrupted: true}
		}
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
