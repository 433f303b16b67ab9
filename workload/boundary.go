package workload

import (
	"container/heap"
	"context"
	"errors"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
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

// windowEnd says where the window a prime opened ends, in server
// microseconds: where the limiter says (by a formula, or by asking Redis
// right after the prime), else a window after the prime. A prime whose
// reply carries no server time is placed, on the server's clock, halfway
// through its round trip. What asking Redis found goes to d.probed: a key
// without a TTL there is the limiter's finding, and its identity's
// bursts go a window after the prime, as if the limiter could not be
// asked.
func (d *scheduler) windowEnd(ctx context.Context, prime *event.Outcome, key string, offset event.Offset) (int64, error) {
	at := prime.Decision.ServerNowMicros
	if at <= 0 {
		at = offset.ServerMicros(prime.Sent.Add(prime.Done.Sub(prime.Sent) / 2))
	}
	switch l := d.windows.(type) {
	case algorithms.Windowed:
		return l.WindowEnd(at), nil
	case algorithms.WindowProber:
		end, ok, err := l.ProbeWindowEnd(ctx, key)
		var noTTL *algorithms.WindowKeyWithoutTTLError
		switch {
		case errors.As(err, &noTTL):
			d.probed.add(noTTL.Key)
		case err != nil:
			return 0, err
		case ok:
			d.probed.add("")
			return end, nil
		}
	}
	return at + d.limiter.Policy().WindowMicros(), nil
}

// windowProbe tallies what asking Redis where each identity's window ends
// found; its zero value has asked nothing.
type windowProbe struct{ found *result.WindowProbe }

// add counts one identity asked, whose key had no TTL when withoutTTL
// names it.
func (p *windowProbe) add(withoutTTL string) {
	if p.found == nil {
		p.found = &result.WindowProbe{}
	}
	p.found.Identities++
	if withoutTTL != "" {
		p.found.WithoutTTL++
		if p.found.Example == "" {
			p.found.Example = withoutTTL
		}
	}
}

// boundary runs a boundary run s: it aligns the local clock with the TIME
// of srv (the run's Redis), then primes identity after identity and fires
// the bursts each prime's reply places.
func (d *scheduler) boundary(ctx context.Context, srv event.ServerClock, s plan.Run) (scheduleEnd, error) {
	offset, err := event.EstimateOffset(ctx, srv, d.clock, event.DefaultOffsetSamples)
	if err != nil {
		return scheduleEnd{}, err
	}
	out, err := d.boundaryBursts(ctx, s.Boundary, s.Identities, offset, s.Duration+boundaryGrace)
	out.clock, out.windowProbe = &offset, d.probed.found
	return out, err
}

// boundaryBursts is the boundary shape's schedule. The pacing goroutine
// sends each prime itself, at its due time, and from the reply's server
// time places that identity's bursts, converted to local time through
// offset; burst requests go to the workers at their due times, like an
// open loop. Requests that fall due after until are counted as unsent. A
// window's end that cannot be read ends the schedule with the error.
func (d *scheduler) boundaryBursts(ctx context.Context, b plan.Boundary, identities int, offset event.Offset, until time.Duration) (scheduleEnd, error) {
	jobs, wait := d.startWorkers()
	defer wait()
	defer close(jobs)
	defer event.TuneForPacing(d.clock)()

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
		case next < identities && !d.segment.Owns(uint64(next)):
			// Another segment's identity: its slot in the schedule stays
			// empty here.
			next++
			continue
		case next < identities && (len(pending) == 0 || !pending[0].due.Before(primeDue)):
			j, prime = job{identity: uint64(next), due: primeDue}, true
			next++
		case len(pending) > 0:
			j = heap.Pop(&pending).(job)
		default:
			return scheduleEnd{elapsed: d.clock.Now().Sub(start)}, nil
		}
		if j.due.Sub(start) >= until {
			rest := d.segment.Share(identities) - d.segment.Share(next)
			unsent := 1 + int64(len(pending)) + b.Requests(rest)
			if prime {
				unsent += 2 * b.Burst
			}
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), unsent: unsent}, nil
		}
		// Sleep also reports a stop when nothing is left to wait, so a
		// schedule that is behind still ends when asked to.
		if d.clock.Sleep(ctx, j.due.Sub(d.clock.Now())) != nil {
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}, nil
		}
		if prime {
			key := d.call(primer, j.identity, j.due)
			if primer.out.Err == nil {
				edge, err := d.windowEnd(ctx, &primer.out, key, offset)
				if err != nil {
					rest := d.segment.Share(identities) - d.segment.Share(next)
					return scheduleEnd{elapsed: d.clock.Now().Sub(start), unsent: int64(len(pending)) + b.Requests(rest) + 2*b.Burst}, err
				}
				for _, s := range d.boundaries {
					s.Boundary(j.identity, edge)
				}
				for _, due := range burstDues(b, edge) {
					heap.Push(&pending, job{identity: j.identity, due: start.Add(offset.LocalTime(due).Sub(start))})
				}
			}
			continue
		}
		select {
		case jobs <- j:
		case <-ctx.Done():
			return scheduleEnd{elapsed: d.clock.Now().Sub(start), interrupted: true}, nil
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
