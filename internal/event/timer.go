package event

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// Timer sleeps one goroutine until the instants of its own schedule: each
// connection of an open loop has one, and sleeps on it until its next
// requests are due.
type Timer interface {
	// SleepUntil waits until t on the timer's clock, or until ctx ends
	// (returning its error). It never returns before t unless ctx ended.
	SleepUntil(ctx context.Context, t time.Time) error
	// Stop releases the timer.
	Stop()
}

// TimerMaker is an optional capability of a Clock: timers for many
// goroutines that pace themselves at once, cheaper and more precise than
// the clock's Sleep (RealClock's holds a thread in nanosleep).
type TimerMaker interface {
	NewTimer() Timer
}

// NewTimer is a timer on c: c's own when it makes them, else one that
// sleeps with c.Sleep.
func NewTimer(c Clock) Timer {
	if m, ok := c.(TimerMaker); ok {
		return m.NewTimer()
	}
	return sleepTimer{c}
}

// sleepTimer is a Timer that sleeps with its clock's Sleep.
type sleepTimer struct{ c Clock }

func (s sleepTimer) SleepUntil(ctx context.Context, t time.Time) error {
	return s.c.Sleep(ctx, t.Sub(s.c.Now()))
}

func (sleepTimer) Stop() {}

var _ TimerMaker = RealClock{}

// NewTimer implements TimerMaker: a runtime timer, which the scheduler
// fires for nothing while rlbench is busy, made precise while it is idle
// by the process's alarm (see alarm), with its slack measured and
// corrected (see pacingSlack).
func (RealClock) NewTimer() Timer { return &realTimer{} }

// realTimer is RealClock's Timer.
type realTimer struct {
	t *time.Timer
}

// spinBelow is how close to its instant a sleep yields the CPU instead of
// sleeping: a wake-up is not that precise, and the scheduler runs other
// goroutines meanwhile.
const spinBelow = 20 * time.Microsecond

// SleepUntil implements Timer. It aims the wake-up the measured slack
// before t, so that it lands on t; a wake-up that lands before t (the
// slack is a low quantile, so a few do) sleeps again for what is left, or
// yields for it when it is shorter than spinBelow.
func (r *realTimer) SleepUntil(ctx context.Context, t time.Time) error {
	for {
		left := time.Until(t)
		switch {
		case left <= 0:
			return ctx.Err()
		case left <= spinBelow:
			if err := ctx.Err(); err != nil {
				return err
			}
			runtime.Gosched()
			continue
		}
		d := max(left-pacingSlack.estimate(), time.Microsecond)
		aim := time.Now().Add(d)
		if err := r.sleep(ctx, d, aim); err != nil {
			return err
		}
		pacingSlack.observe(time.Since(aim))
	}
}

// sleep waits d (which ends at aim) on the runtime timer, the alarm set
// to end the poller's wait by then.
func (r *realTimer) sleep(ctx context.Context, d time.Duration, aim time.Time) error {
	wake := processAlarm.expect(aim)
	defer processAlarm.done(wake)
	if r.t == nil {
		r.t = time.NewTimer(d)
	} else {
		r.t.Reset(d)
	}
	select {
	case <-r.t.C:
		return nil
	case <-ctx.Done():
		r.t.Stop()
		return ctx.Err()
	}
}

// Stop implements Timer.
func (r *realTimer) Stop() {
	if r.t != nil {
		r.t.Stop()
	}
}

// slack estimates how late a wake-up lands after the instant its timer
// was set for: a low quantile of what the timers of the process measured
// (an online estimate that moves up by a step on each wake-up later than
// it and down by a step on each earlier one, and so settles where
// slackPercent of them are earlier), which SleepUntil aims that much
// before its instant. Measured, not assumed: it is a few microseconds
// while the process is busy (the scheduler fires timers as it switches
// goroutines) and tens while it is idle (the kernel wakes the poller).
type slack struct {
	nanos atomic.Int64
}

const (
	// slackPercent is the share of wake-ups (in percent) the estimate
	// lands before their instant: those sleep again for what is left.
	slackPercent = 10
	// slackStep is how far one wake-up moves the estimate.
	slackStep = 2 * time.Microsecond
	// maxSlack bounds the estimate: a wake-up later than this is the
	// machine's doing (no CPU free), not the timer's.
	maxSlack = 500 * time.Microsecond
)

// slackStepUp is how far a late wake-up moves the estimate up: the steps
// balance where slackPercent of the wake-ups are early.
const slackStepUp = int64(slackStep) * slackPercent / (100 - slackPercent)

// pacingSlack is the process's estimate: every timer sleeps on the same
// poller.
var pacingSlack slack

// estimate is the slack to aim before an instant.
func (s *slack) estimate() time.Duration { return time.Duration(s.nanos.Load()) }

// observe takes one wake-up that landed late after its aim (negative:
// early).
func (s *slack) observe(late time.Duration) {
	cur := s.nanos.Load()
	next := cur
	if late > time.Duration(cur) {
		next += slackStepUp
	} else {
		next -= int64(slackStep)
	}
	s.nanos.Store(min(max(next, 0), int64(maxSlack)))
}
