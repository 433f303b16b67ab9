package arrivals

import (
	"time"

	"github.com/rlbench/rlbench/plan"
)

// Arrival is one request of an open-loop schedule: when it is due, whom it
// is for, what it asks for and which application instance sends it.
type Arrival struct {
	// Due is when the request is due, from the start of the run's
	// traffic. Its latency counts from this instant, however late it goes
	// out (coordinated omission is corrected here).
	Due time.Duration
	// Identity is the caller the request is made for (its key is built
	// from it).
	Identity uint64
	// Units is what the request asks for, when its source says (a trace
	// that records each request's weight); zero is the run's own cost.
	// It reaches the limiter call (algorithms.WithUnits, and beside the
	// key in a pipeline), and a limiter not told its cost ignores it.
	Units int64
	// Instance is the application instance of the run's fleet that sends
	// the request (0 without a fleet).
	Instance int
}

// Source is the source of an open loop's requests: the whole schedule,
// in due order. The open loop sends each request at its due time from
// whichever of its connections is free for it, however late the earlier
// ones were answered, and stops at the run's duration if the schedule
// goes on past it.
//
// Every segment of a load (plan.Segment) reads the same schedule, all of
// it, and sends only the requests of the identities it owns, at their due
// times in the whole schedule: a source must give the same arrivals in
// every process for the same plan and seed.
//
// A source is read by one goroutine at a time (the open loop holds a lock
// around it), so it need not be safe for concurrent use. Schedule (a
// pacer and an identity picker) is the one the shapes use; a source that
// reads arrivals from elsewhere (a trace) is another.
type Source interface {
	// Next fills a with the next request and reports true; its Due is no
	// earlier than the one before. At the end of the schedule it reports
	// false and sets a.Due to when the schedule ended (no earlier than
	// its last request's due time): the achieved rate of a schedule that
	// ends before the run's duration is measured over that span.
	Next(a *Arrival) bool
}

// Schedule is the arrivals of a pacer and an identity picker: request n
// (from 0) is due at Pacer.Due(n), for the identity Picker.Pick(n), sent
// by the instance of Fleet that InstanceOf(identity, n, Seed) names. It
// is pure given its parts: the same pacer, picker and fleet give the same
// arrivals in every process.
type Schedule struct {
	Pacer  Pacer
	Picker IdentityPicker
	// Requests ends the schedule after that many requests; zero is no
	// end but the pacer's (a ramp's last stage) and the run's duration.
	Requests int64
	// Fleet draws each request's instance, with Seed; nil without a
	// fleet.
	Fleet *plan.Fleet
	Seed  int64
	// n is the number of the next request.
	n uint64
}

var _ Source = (*Schedule)(nil)

// Next implements Source.
func (s *Schedule) Next(a *Arrival) bool {
	n := s.n
	a.Due = s.Pacer.Due(n)
	if s.Requests > 0 && int64(n) >= s.Requests {
		return false
	}
	s.n++
	a.Identity = s.Picker.Pick(n)
	a.Units, a.Instance = 0, 0
	if s.Fleet != nil {
		a.Instance = s.Fleet.InstanceOf(a.Identity, n, s.Seed)
	}
	return true
}

// For is the open-loop schedule of run s, a ramp through its stages or a
// constant or Poisson rate, for the identities picker draws.
func For(s plan.Run, picker IdentityPicker, seed int64) Source {
	var p Pacer
	if s.Shape == plan.ShapeRamp {
		p = NewRampPacer(s.FromPerSecond, s.Stages, s.Arrival == plan.Poisson, seed)
	} else {
		p = NewPacer(s.Arrival, s.TargetPerSecond, seed)
	}
	out := &Schedule{Pacer: p, Picker: picker, Requests: s.Requests, Seed: seed}
	if s.Fleet.Instances() > 0 {
		out.Fleet = s.Fleet
	}
	return out
}
