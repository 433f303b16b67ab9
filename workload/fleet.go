package workload

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// fleetRoute is how a run's requests go out from the application
// instances of its fleet: which instance sends each one, and the clock
// each instance's requests carry to a limiter that takes its time from its
// caller — in the context of the call (which a caller around the limiter
// passes on), or, pipelined, through the limiter as the instance calls it.
// Only the limiter sees the skew: the schedule, the latency and the audit
// keep the run's own clock. A nil fleetRoute is a run without a fleet.
type fleetRoute struct {
	fleet *plan.Fleet
	seed  int64
	// clocks are the instances' clocks, and ctxs the call context with
	// each one.
	clocks []algorithms.CallerClock
	ctxs   []context.Context
	// piped is the limiter as each instance calls it in a pipeline.
	piped []algorithms.Pipelined
}

// newFleetRoute prepares the instances of fleet f (nil: none) for a run
// whose schedule started at start on clock: instance i's clock reads
// clock, off by its offset elapsed into the run; calls go out in callCtx.
func newFleetRoute(f *plan.Fleet, seed int64, callCtx context.Context, clock event.Clock, start time.Time) *fleetRoute {
	n := f.Instances()
	if n == 0 {
		return nil
	}
	r := &fleetRoute{fleet: f, seed: seed}
	for i := range n {
		c := algorithms.CallerClock{Now: clock.Now, Skew: func(now time.Time) time.Duration { return f.OffsetAt(i, now.Sub(start)) }}
		r.clocks = append(r.clocks, c)
		r.ctxs = append(r.ctxs, algorithms.WithCallerClock(callCtx, c))
	}
	return r
}

// instanceOf is the instance that sends the n-th request of a schedule,
// for identity (0 without a fleet).
func (r *fleetRoute) instanceOf(identity, n uint64) int {
	if r == nil {
		return 0
	}
	return r.fleet.InstanceOf(identity, n, r.seed)
}

// ctx is the context a call from instance goes out in: callCtx, carrying
// the instance's clock when there is a fleet.
func (r *fleetRoute) ctx(instance int, callCtx context.Context) context.Context {
	if r == nil {
		return callCtx
	}
	return r.ctxs[instance]
}

// queues is how many queues the workers take jobs from: one per instance
// (each served by its own share of the concurrency workers), one without
// a fleet, and never more than there are workers.
func (r *fleetRoute) queues(concurrency int) int {
	if r == nil {
		return 1
	}
	return max(min(len(r.clocks), concurrency), 1)
}

// pipe makes the pipelined limiter each instance calls: lim on the
// instance's clock when it takes the time from its caller, else base.
func (r *fleetRoute) pipe(lim algorithms.Limiter, base algorithms.Pipelined) {
	if r == nil {
		return
	}
	ct, ok := lim.(algorithms.CallerTimed)
	r.piped = make([]algorithms.Pipelined, len(r.clocks))
	for i, c := range r.clocks {
		r.piped[i] = base
		if ok {
			if p, ok := ct.OnClock(c).(algorithms.Pipelined); ok {
				r.piped[i] = p
			}
		}
	}
}

// pipedFor is the pipelined limiter instance calls: its own, else base.
func (r *fleetRoute) pipedFor(instance int, base algorithms.Pipelined) algorithms.Pipelined {
	if r == nil || r.piped == nil {
		return base
	}
	return r.piped[instance]
}

// queues hand jobs to the workers: one queue, or one per instance of a
// fleet, whose workers send only that instance's requests.
type queues []chan job

// newQueues makes n queues, each holding up to size jobs.
func newQueues(n, size int) queues {
	q := make(queues, n)
	for i := range q {
		q[i] = make(chan job, size)
	}
	return q
}

// of is the queue worker takes its jobs from.
func (q queues) of(worker int) chan job { return q[worker%len(q)] }

// send hands j to a worker of its instance, waiting for one to be free
// (waited: every worker was busy when it was due); sent is false when ctx
// ended first.
func (q queues) send(ctx context.Context, j job) (sent, waited bool) {
	c := q[j.instance%len(q)]
	select {
	case c <- j:
		return true, false
	default:
	}
	select {
	case c <- j:
		return true, true
	case <-ctx.Done():
		return false, true
	}
}

// close tells the workers no more jobs come.
func (q queues) close() {
	for _, c := range q {
		close(c)
	}
}

// fleetSection is what the run's fleet did, for the result: each
// instance's clock, its requests and admissions (rec), and its part in the
// windows past the bound (inExcess, from the audit); nil without a fleet.
// takesTime says the limiter's requests carried the instances' clocks.
func fleetSection(run plan.Run, rec *recorder.Recorder, inExcess []int64, takesTime bool) *result.Fleet {
	f := run.Fleet
	if f.Instances() == 0 {
		return nil
	}
	out := &result.Fleet{Instances: f.Instances(), Sticky: f.Sticky, ClockSkewMs: millis(f.Skew), Listed: f.Listed,
		DriftMsPerMin: millis(f.Drift), Sweep: run.Sweep, TakesTime: takesTime}
	sent, allowed := rec.InstanceCounts()
	for i := range f.Instances() {
		in := result.FleetInstance{OffsetMs: millis(f.Offsets[i])}
		if f.DriftPerMinute != nil {
			in.DriftMsPerMin = millis(f.DriftPerMinute[i])
		}
		if i < len(sent) {
			in.Sent, in.Allowed = sent[i], allowed[i]
		}
		if i < len(inExcess) {
			in.InExcess = inExcess[i]
		}
		out.PerInstance = append(out.PerInstance, in)
	}
	return out
}

// millis is d in milliseconds, with its fraction.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
