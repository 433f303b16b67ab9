package arrivals

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/rlbench/rlbench/plan"
)

// A Pacer says when each request of an open-loop schedule is due. Because the
// answer depends only on the request's number, schedules are tested without
// a clock and never sleep.
type Pacer interface {
	// Due is the offset from the start at which request n (from 0) is due.
	// Callers ask for n = 0, 1, 2, ... in order; a pacer may rely on it.
	Due(n uint64) time.Duration
}

// ConstantPacer spaces requests exactly 1/PerSecond apart, the first at 0.
type ConstantPacer struct {
	PerSecond float64
}

var _ Pacer = ConstantPacer{}

// Due implements Pacer.
func (c ConstantPacer) Due(n uint64) time.Duration {
	return secondsToDuration(float64(n) / c.PerSecond)
}

// PoissonPacer draws exponentially distributed gaps with mean 1/PerSecond, so
// arrivals form a Poisson process; the same seed gives the same schedule.
type PoissonPacer struct {
	perSecond float64
	rng       *rand.Rand
	n         uint64  // the request whose due time is at
	at        float64 // seconds
}

var _ Pacer = (*PoissonPacer)(nil)

// NewPoissonPacer returns a Poisson schedule at perSecond, seeded.
func NewPoissonPacer(perSecond float64, seed int64) *PoissonPacer {
	return &PoissonPacer{perSecond: perSecond, rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
}

// Due implements Pacer. The first request is due at 0.
func (p *PoissonPacer) Due(n uint64) time.Duration {
	for p.n < n {
		p.at += p.rng.ExpFloat64() / p.perSecond
		p.n++
	}
	return secondsToDuration(p.at)
}

// secondsToDuration converts seconds to a Duration, a time too far away
// for one (or not a number) becoming the latest time one holds rather than
// wrapping around to the distant past.
func secondsToDuration(s float64) time.Duration {
	ns := s * float64(time.Second)
	if !(ns < math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// NewPacer returns the pacer for an arrival process at perSecond.
func NewPacer(a plan.Arrival, perSecond float64, seed int64) Pacer {
	if a == plan.Poisson {
		return NewPoissonPacer(perSecond, seed)
	}
	return ConstantPacer{PerSecond: perSecond}
}

// RampPacer offers a rate that moves linearly through stages: stage i
// ramps from where stage i-1 ended (the first from FromPerSecond) to
// Stages[i].PerSecond over Stages[i].Duration. Request n is due when the
// area under the rate reaches n (or, with Poisson arrivals, the n-th point
// of a unit-rate Poisson process in that area, which makes the arrivals a
// Poisson process of the ramping rate). After the last stage nothing is
// due: Due returns a time past its end.
type RampPacer struct {
	segments []rampSegment
	end      time.Duration
	rng      *rand.Rand
	n        uint64
	area     float64 // the point of the area request n falls at
}

type rampSegment struct {
	start, secs    float64 // seconds
	from, to, area float64 // rates per second; requests up to its start
}

var _ Pacer = (*RampPacer)(nil)

// NewRampPacer ramps from fromPerSecond through stages. With seed >= 0 the
// arrivals are Poisson, drawn with that seed; with seed < 0 they are
// evenly spaced in the area.
func NewRampPacer(fromPerSecond float64, stages []plan.Stage, poisson bool, seed int64) *RampPacer {
	p := &RampPacer{}
	if poisson {
		p.rng = rand.New(rand.NewPCG(uint64(seed), 0x3c6ef372fe94f82b))
	}
	at, area, prev := 0.0, 0.0, fromPerSecond
	for _, st := range stages {
		secs := st.Duration.Seconds()
		p.segments = append(p.segments, rampSegment{start: at, secs: secs, from: prev, to: st.PerSecond, area: area})
		area += (prev + st.PerSecond) / 2 * secs
		at += secs
		prev = st.PerSecond
		p.end += st.Duration
	}
	return p
}

// Due implements Pacer. Callers ask for n = 0, 1, 2, ... in order.
func (p *RampPacer) Due(n uint64) time.Duration {
	if p.rng == nil {
		return p.at(float64(n))
	}
	for p.n < n {
		p.area += p.rng.ExpFloat64()
		p.n++
	}
	return p.at(p.area)
}

// at is the instant the area under the rate reaches a.
func (p *RampPacer) at(a float64) time.Duration {
	for _, s := range p.segments {
		segArea := (s.from + s.to) / 2 * s.secs
		if a > s.area+segArea {
			continue
		}
		x := a - s.area // area into this segment
		slope := (s.to - s.from) / s.secs
		var t float64
		switch {
		case math.Abs(slope) < 1e-12:
			if s.from <= 0 {
				continue
			}
			t = x / s.from
		default:
			// from*t + slope*t^2/2 = x, the root within the segment.
			t = (-s.from + math.Sqrt(max(s.from*s.from+2*slope*x, 0))) / slope
		}
		return time.Duration((s.start + min(max(t, 0), s.secs)) * float64(time.Second))
	}
	return p.end + time.Nanosecond
}
