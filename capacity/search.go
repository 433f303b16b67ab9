package capacity

import (
	"math"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// StepOutcome is what one step of a capacity search found at its rate.
type StepOutcome int

const (
	// StepHeld: the limiter held the SLO over the whole step.
	StepHeld StepOutcome = iota + 1
	// StepBroke: the limiter broke it: its latency from the send, or its
	// calls without a decision, went past the SLO while rlbench kept the
	// schedule.
	StepBroke
	// StepGeneratorShort: rlbench could not keep the step's schedule, and
	// adds workers or pipelining to offer the same rate again.
	StepGeneratorShort
	// StepGeneratorBound: rlbench could not keep the step's schedule with
	// every worker and all the pipelining the search may add: the step says
	// nothing of the limiter, and the search looks no higher.
	StepGeneratorBound
)

// String names the outcome as the result records it.
func (o StepOutcome) String() string {
	switch o {
	case StepHeld:
		return result.StepHeld
	case StepBroke:
		return result.StepBroke
	case StepGeneratorShort, StepGeneratorBound:
		return result.StepGeneratorBound
	}
	return "unknown"
}

// autoFloorShare is how far below its first rate an automatic search goes
// looking for a rate that holds, as a share of that rate, before it says
// the capacity is below anything it offered.
const autoFloorShare = 1.0 / 1024

// Search chooses the rate of each step of a capacity search from the
// outcomes of the steps before it, and says when it has narrowed in on the
// capacity. It is a pure function of those outcomes: it never measures nor
// sleeps, so the search is tested with tables of outcomes.
//
// It offers FromPerSecond first. While nothing has broken the SLO it grows:
// an automatic search doubles the rate, one with a range goes to its top.
// While nothing has held it shrinks (an automatic search halves the rate).
// Once one rate has held and a higher one broken, it offers their geometric
// midpoint until they are within Precision of each other. A rate rlbench
// could not keep with all it may add is an upper edge too, of what this
// machine can measure: the search narrows in below it as below a break,
// and when the two edges meet there it ends generator-bound (the limiter
// held up to there, and may hold more) rather than converged. A rate that
// breaks, or that rlbench could not keep, is offered again until it has
// missed Confirm times in a row, so that one noisy moment is taken neither
// for the limiter's capacity nor for the machine's; it is a break only
// when every one of those steps broke, and the machine's edge otherwise. A
// rate that holds once holds.
type Search struct {
	c plan.Capacity
	// next is the rate of the next step, misses how many times in a row
	// it has missed the SLO so far, and bounded whether rlbench could not
	// keep one of those steps.
	next    float64
	misses  int
	bounded bool
	// held is the highest rate that held, broke the lowest that broke,
	// bound the lowest rlbench could not keep (zero: none yet).
	held, broke, bound float64
	steps              int
	end                string
	boundAt            float64
}

// NewSearch starts the search c describes.
func NewSearch(c plan.Capacity) *Search {
	c.Confirm = max(c.Confirm, 1)
	return &Search{c: c, next: c.FromPerSecond}
}

// Next is the rate the next step offers, in requests a second, and false
// once the search has ended.
func (s *Search) Next() (perSecond float64, ok bool) {
	if s.end != "" {
		return 0, false
	}
	return s.next, true
}

// Record takes the outcome of the step at the rate Next gave.
func (s *Search) Record(o StepOutcome) {
	if s.end != "" {
		return
	}
	s.steps++
	rate := s.next
	switch o {
	case StepHeld:
		s.misses, s.bounded = 0, false
		s.held = max(s.held, rate)
		s.next = s.choose()
	case StepBroke, StepGeneratorBound:
		s.misses++
		s.bounded = s.bounded || o == StepGeneratorBound
		if s.misses >= s.c.Confirm {
			edge := &s.broke
			if s.bounded {
				edge = &s.bound
			}
			if *edge == 0 || rate < *edge {
				*edge = rate
			}
			s.misses, s.bounded = 0, false
			s.next = s.choose()
		}
	case StepGeneratorShort:
		// The same rate again, with more of the generator.
	}
	upper := s.upper()
	switch {
	case s.held > 0 && s.held >= s.c.ToPerSecond:
		s.end = result.CapacityTopOfRange
	case s.held > 0 && upper > 0 && upper <= s.held*(1+s.c.Precision):
		s.end = s.endBelow(upper, result.CapacityConverged)
	case s.held == 0 && upper > 0 && s.next <= 0:
		s.end = s.endBelow(upper, result.CapacityBelowRange)
	case s.steps >= s.c.MaxSteps:
		s.end = result.CapacityMaxSteps
	}
}

// upper is the lowest rate known to be too high: the lowest that broke, or
// the lowest rlbench could not keep, whichever is lower (zero: neither).
func (s *Search) upper() float64 {
	switch {
	case s.broke == 0:
		return s.bound
	case s.bound == 0:
		return s.broke
	}
	return min(s.broke, s.bound)
}

// endBelow is how a search that narrowed in below upper ends: as the
// limiter's (limiter) when upper is where it broke, generator-bound when
// upper is a rate rlbench could not keep.
func (s *Search) endBelow(upper float64, limiter string) string {
	if s.broke > 0 && s.broke <= upper {
		return limiter
	}
	s.boundAt = s.bound
	return result.CapacityGeneratorBound
}

// choose is the rate after the outcomes so far: the midpoint of what held
// and what broke, or further up or down while one of them is missing (0:
// nowhere left to go). A midpoint is a whole number of requests a second
// where one lies strictly between the two.
func (s *Search) choose() float64 {
	upper := s.upper()
	switch {
	case s.held > 0 && upper > 0:
		mid := math.Sqrt(s.held * upper)
		if r := math.Round(mid); r > s.held && r < upper {
			return r
		}
		return mid
	case upper == 0 && s.c.Auto:
		return min(2*s.held, s.c.ToPerSecond)
	case upper == 0:
		return s.c.ToPerSecond
	case s.c.Auto && upper/2 >= s.c.FromPerSecond*autoFloorShare:
		return upper / 2
	}
	return 0
}

// Found is where the search stands: the highest rate that held (zero when
// none did), the lowest that broke (zero when none did), how it ended
// ("" while it goes on), the rate rlbench could not keep when it ended
// generator-bound, and how many steps it took.
func (s *Search) Found() (held, broke float64, end string, generatorBoundAt float64, steps int) {
	return s.held, s.broke, s.end, s.boundAt, s.steps
}
