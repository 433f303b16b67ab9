package workload

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/plan"
)

// listedArrivals is a source of arrivals from a list, as a trace is.
type listedArrivals struct {
	list []arrivals.Arrival
	end  time.Duration
}

func (l *listedArrivals) Next(a *arrivals.Arrival) bool {
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
	var list []arrivals.Arrival
	var mine int64
	for i := range 20 {
		a := arrivals.Arrival{Due: time.Duration(i) * time.Millisecond, Identity: uint64(i), Units: int64(i % 4)}
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
