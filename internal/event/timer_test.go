package event

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestAlarmFollowsTheEarliestSleep: the kernel's timer is set for the
// earliest instant a sleep expects (rounded up to the quantum), moved only
// when that changes, and disarmed when no sleep is left.
func TestAlarmFollowsTheEarliestSleep(t *testing.T) {
	var sets []int64
	a := newAlarm(func(at int64) { sets = append(sets, at) })
	q := int64(alarmQuantum)
	at := func(n int64) time.Time { return monoBase.Add(time.Duration(n)) }
	late := a.expect(at(5*q + 1)) // rounded up to 6q
	if want := []int64{6 * q}; !slices.Equal(sets, want) {
		t.Fatalf("one sleep: set %v, want %v", sets, want)
	}
	early := a.expect(at(2 * q))
	sameEarly := a.expect(at(2*q - 3))
	if want := []int64{6 * q, 2 * q}; !slices.Equal(sets, want) || early != sameEarly {
		t.Fatalf("an earlier sleep moves it, one of the same instant does not: set %v, want %v", sets, want)
	}
	a.done(early)
	if want := []int64{6 * q, 2 * q}; !slices.Equal(sets, want) {
		t.Fatalf("a sleep of the instant is still pending: set %v, want %v", sets, want)
	}
	a.done(sameEarly)
	if want := []int64{6 * q, 2 * q, 6 * q}; !slices.Equal(sets, want) {
		t.Fatalf("the earliest instant's sleeps ended: set %v, want %v", sets, want)
	}
	a.done(late)
	if want := []int64{6 * q, 2 * q, 6 * q, 0}; !slices.Equal(sets, want) {
		t.Fatalf("no sleep left: set %v, want %v (disarmed)", sets, want)
	}
	if len(a.waiting) != 0 || len(a.instants) != 0 {
		t.Errorf("the alarm still holds %v, %v", a.waiting, a.instants)
	}
}

// TestSlackSettlesAtALowQuantile: fed wake-ups late by 10us to 100us
// (uniformly at random, seeded), the estimate settles near the tenth percentile (19us), within
// what its steps move it.
func TestSlackSettlesAtALowQuantile(t *testing.T) {
	var s slack
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		s.observe(time.Duration(10+rng.IntN(91)) * time.Microsecond)
	}
	if got := s.estimate(); got < 15*time.Microsecond || got > 25*time.Microsecond {
		t.Errorf("estimate %s, want about 19us", got)
	}
	for range 10_000 {
		s.observe(time.Hour)
	}
	if got := s.estimate(); got != maxSlack {
		t.Errorf("after wake-ups an hour late the estimate is %s, want its bound %s", got, maxSlack)
	}
}

// TestRealTimerNeverWakesEarly: whatever the slack it aims by, a sleep
// returns at or after its instant, and at once when the context ends.
func TestRealTimerNeverWakesEarly(t *testing.T) {
	timer := RealClock{}.NewTimer()
	defer timer.Stop()
	for _, d := range []time.Duration{0, 5 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		if err := timer.SleepUntil(context.Background(), due); err != nil {
			t.Fatal(err)
		}
		if now := time.Now(); now.Before(due) {
			t.Errorf("a sleep of %s returned %s early", d, due.Sub(now))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := timer.SleepUntil(ctx, time.Now().Add(time.Hour)); err == nil {
		t.Errorf("a sleep whose context ended returned no error")
	}
}
