package workload

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
)

// TestSchedule: a pacer and a picker make the arrivals, request n due at
// Due(n) for Pick(n), each from the instance the fleet draws; a request
// bound ends them, saying when (the due time of the request that would
// have come next).
func TestSchedule(t *testing.T) {
	fleet := plan.SpreadFleet(3, 0, 0, false)
	for _, tc := range []struct {
		why      string
		s        *Schedule
		want     []Arrival
		endDueAt time.Duration
	}{
		{"three requests at 100/s over two identities, then the bound",
			&Schedule{Pacer: ConstantPacer{PerSecond: 100}, Picker: RoundRobin{Count: 2}, Requests: 3},
			[]Arrival{{Due: 0, Identity: 0}, {Due: 10 * time.Millisecond, Identity: 1}, {Due: 20 * time.Millisecond, Identity: 0}},
			30 * time.Millisecond},
		{"a fleet draws each request's instance from the identity, the number and the seed",
			&Schedule{Pacer: ConstantPacer{PerSecond: 1000}, Picker: RoundRobin{Count: 5}, Requests: 4, Fleet: fleet, Seed: 9},
			[]Arrival{
				{Due: 0, Identity: 0, Instance: fleet.InstanceOf(0, 0, 9)},
				{Due: time.Millisecond, Identity: 1, Instance: fleet.InstanceOf(1, 1, 9)},
				{Due: 2 * time.Millisecond, Identity: 2, Instance: fleet.InstanceOf(2, 2, 9)},
				{Due: 3 * time.Millisecond, Identity: 3, Instance: fleet.InstanceOf(3, 3, 9)},
			},
			4 * time.Millisecond},
	} {
		var got []Arrival
		var a Arrival
		for tc.s.Next(&a) {
			got = append(got, a)
			if len(got) > 100 {
				t.Fatalf("%s: the schedule does not end", tc.why)
			}
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d arrivals %+v, want %+v", tc.why, len(got), got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: arrival %d is %+v, want %+v", tc.why, i, got[i], tc.want[i])
			}
		}
		if a.Due != tc.endDueAt {
			t.Errorf("%s: the schedule ended at %s, want %s", tc.why, a.Due, tc.endDueAt)
		}
	}
}

// listedArrivals is a source of arrivals from a list, as a trace is.
type listedArrivals struct {
	list []Arrival
	end  time.Duration
}

func (l *listedArrivals) Next(a *Arrival) bool {
	if len(l.list) == 0 {
		a.Due = l.end
		return false
	}
	*a, l.list = l.list[0], l.list[1:]
	return true
}

// unitsLimiter records the units each call carried, by identity key.
type unitsLimiter struct {
	instantLimiter
	mu    sync.Mutex
	units map[string]int64
}

func (l *unitsLimiter) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	l.mu.Lock()
	l.units[key] = algorithms.UnitsFrom(ctx)
	l.mu.Unlock()
	return l.instantLimiter.Allow(ctx, key)
}

// TestOpenLoopSendsArrivalsOfAnySource: an open loop sends what a source
// lists, at each arrival's due time, only the identities its segment owns,
// each call carrying the units its arrival asked for; the achieved rate is
// measured over the span the source says it ended at.
func TestOpenLoopSendsArrivalsOfAnySource(t *testing.T) {
	clock := newSimClock()
	lim := &unitsLimiter{instantLimiter: instantLimiter{clock: clock}, units: map[string]int64{}}
	d := fakeScheduler(clock, lim, 1)
	d.segment = plan.Segment{Index: 0, Count: 2}
	var list []Arrival
	var mine int64
	for i := range 20 {
		a := Arrival{Due: time.Duration(i) * time.Millisecond, Identity: uint64(i), Units: int64(i % 4)}
		list = append(list, a)
		if d.segment.Owns(a.Identity) {
			mine++
		}
	}
	out := d.openLoop(context.Background(), &listedArrivals{list: list, end: 40 * time.Millisecond}, time.Second)
	if out.drawn != 20 || out.owned != mine || d.rec.Completed() != mine || out.elapsed != 40*time.Millisecond {
		t.Errorf("drew %d, owned %d, sent %d over %s; want 20, %d, %d over 40ms", out.drawn, out.owned, d.rec.Completed(), out.elapsed, mine, mine)
	}
	for _, a := range list {
		key := d.keys.Key(a.Identity)
		units, sent := lim.units[key]
		if sent != d.segment.Owns(a.Identity) || (sent && units != a.Units) {
			t.Errorf("identity %d: sent %v with %d units; owned %v, asked for %d", a.Identity, sent, units, d.segment.Owns(a.Identity), a.Units)
		}
	}
}
