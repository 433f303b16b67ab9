package workload

import (
	"math/rand/v2"
	"time"

	"github.com/rlbench/rlbench/profile"
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
	return time.Duration(float64(n) * float64(time.Second) / c.PerSecond)
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
	return time.Duration(p.at * float64(time.Second))
}

// NewPacer returns the pacer for an arrival process at perSecond.
func NewPacer(a profile.Arrival, perSecond float64, seed int64) Pacer {
	if a == profile.Poisson {
		return NewPoissonPacer(perSecond, seed)
	}
	return ConstantPacer{PerSecond: perSecond}
}
