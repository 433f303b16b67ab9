package arrivals

import (
	"context"
	"time"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/trace"
)

// Replay is a trace's requests as the open loop's arrivals: each
// due at the trace's time (at the replay's speed), for the identity the
// trace numbered, asking for the units its cost column says.
type Replay struct {
	rp *trace.Replay
	// requests ends the schedule after that many (0: the trace's end, or
	// the run's duration when it loops); n counts those handed out.
	requests, n int64
	// end is when the schedule ends once the trace has: one pass's
	// length, which leaves the gap the trace has after its last request.
	end, last time.Duration
	fleet     *plan.Fleet
	seed      int64
}

var _ Source = (*Replay)(nil)

// OpenReplay starts the replay of run s's trace; Close it when done.
func OpenReplay(ctx context.Context, s plan.Run, seed int64) (*Replay, error) {
	r := s.Replay
	rp, err := r.Trace.Replay(ctx, r.Speed, r.Loop)
	if err != nil {
		return nil, err
	}
	out := &Replay{rp: rp, requests: s.Requests, end: r.PassLength(), seed: seed}
	if s.Fleet.Instances() > 0 {
		out.fleet = s.Fleet
	}
	return out, nil
}

// Next implements Source.
func (r *Replay) Next(a *Arrival) bool {
	var t trace.Arrival
	if (r.requests > 0 && r.n >= r.requests) || !r.rp.Next(&t) {
		a.Due = r.last
		if r.requests == 0 || r.n < r.requests {
			a.Due = max(r.end, r.last)
		}
		return false
	}
	a.Due, a.Identity, a.Units, a.Instance = t.Due, t.Identity, t.Units, 0
	if r.fleet != nil {
		a.Instance = r.fleet.InstanceOf(a.Identity, uint64(r.n), r.seed)
	}
	r.n++
	r.last = a.Due
	return true
}

// Err is why the trace could not be read to its end (nil if it was, or if
// the replay was stopped).
func (r *Replay) Err() error { return r.rp.Err() }

// Close stops the replay's reading.
func (r *Replay) Close() { r.rp.Close() }
