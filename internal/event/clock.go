package event

import (
	"context"
	"time"
)

// Clock is the time source of a run, so schedules can be tested with a fake
// one that never sleeps.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

// ProcessTuner is an optional capability of a Clock: tuning the process for
// a schedule kept in real time. RealClock has it; a fake clock, which never
// really sleeps, does not, so tests of schedules leave the process alone.
// This is the one place rlbench changes process-wide settings.
type ProcessTuner interface {
	// PinForPacing tunes the calling goroutine's thread so that its sleeps
	// end on time; the returned function undoes it.
	PinForPacing() (undo func())
	// ShareCPUs leaves one CPU to a Redis on this machine; the returned
	// function undoes it.
	ShareCPUs() (undo func())
}

// TuneForPacing pins the calling goroutine for pacing when clock can.
func TuneForPacing(clock Clock) (undo func()) {
	if t, ok := clock.(ProcessTuner); ok {
		return t.PinForPacing()
	}
	return func() {}
}

// Participants is an optional capability of a Clock that simulates time
// for many goroutines at once (a test's): it moves time on only while every
// goroutine that sleeps on it is asleep, so it must know them. The engine
// joins each goroutine that paces itself on the clock before it starts it,
// and leaves when the goroutine ends.
type Participants interface {
	Join() (leave func())
}

// Join joins a goroutine about to start to clock's participants, when the
// clock keeps them; the returned function leaves.
func Join(clock Clock) (leave func()) {
	if p, ok := clock.(Participants); ok {
		return p.Join()
	}
	return func() {}
}

// RealClock is the wall clock.
type RealClock struct{}

var (
	_ Clock        = RealClock{}
	_ ProcessTuner = RealClock{}
)

// Now implements Clock.
func (RealClock) Now() time.Time { return time.Now() }

// coarseSleepMargin is the part of a wait left to preciseSleep: Go's timers
// are only good to about a millisecond here.
const coarseSleepMargin = 2 * time.Millisecond

// Sleep implements Clock. Long waits use a timer (and end early when ctx
// does); the last stretch uses preciseSleep, so a schedule's requests go out
// within tens of microseconds of their due time.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	deadline := time.Now().Add(d)
	if d > coarseSleepMargin {
		t := time.NewTimer(d - coarseSleepMargin)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if rest := time.Until(deadline); rest > 0 {
		preciseSleep(rest)
	}
	return ctx.Err()
}

// PinForPacing implements ProcessTuner.
func (RealClock) PinForPacing() (undo func()) { return pinForPacing() }

// ShareCPUs implements ProcessTuner.
func (RealClock) ShareCPUs() (undo func()) { return shareCPUs() }
