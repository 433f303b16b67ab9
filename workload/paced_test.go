package workload

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/plan"
)

// TestShareClaims: what a connection claims from an open loop's schedule,
// claim after claim, and what the schedule counted.
func TestShareClaims(t *testing.T) {
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	never := time.Duration(math.MinInt64)
	// every100us lists n arrivals 100us apart from 0, identity k for the
	// k-th, instance k%instances.
	every100us := func(n, instances int) []arrivals.Arrival {
		var out []arrivals.Arrival
		for k := range n {
			out = append(out, arrivals.Arrival{Due: us(100 * k), Identity: uint64(k), Instance: k % instances})
		}
		return out
	}
	type claim struct {
		queue, size int
		now, free   time.Duration
		want        []uint64 // identities claimed
		wantMore    bool
	}
	for _, tc := range []struct {
		why      string
		list     []arrivals.Arrival
		queues   int
		segment  plan.Segment
		duration time.Duration
		claims   []claim
		drawn    int64
		owned    int64
		busy     int64
		unsent   int64
	}{
		{why: "one at a time: the next request, whenever it is due; then the end",
			list: every100us(2, 1), queues: 1, duration: time.Second,
			claims: []claim{{0, 1, 0, never, []uint64{0}, true}, {0, 1, 0, never, []uint64{1}, true}, {0, 1, 0, never, nil, false}},
			drawn:  2, owned: 2},
		{why: "a batch takes the requests due within the window of its first, up to its size",
			list: every100us(6, 1), queues: 1, duration: time.Second,
			claims: []claim{{0, 16, 0, never, []uint64{0, 1}, true}, {0, 2, 0, never, []uint64{2, 3}, true}, {0, 16, 0, never, []uint64{4, 5}, true}},
			drawn:  6, owned: 6},
		{why: "behind the schedule, a batch takes what is due by now, up to its size; what fell due while the connection was busy waited",
			list: every100us(10, 1), queues: 1, duration: time.Second,
			claims: []claim{{0, 4, us(850), us(250), []uint64{0, 1, 2, 3}, true}, {0, 16, us(850), us(850), []uint64{4, 5, 6, 7, 8}, true}},
			drawn:  10, owned: 10, busy: 3 + 5},
		{why: "a connection claims its instance's requests, the others are held for theirs",
			list: every100us(6, 2), queues: 2, duration: time.Second,
			claims: []claim{{1, 1, 0, never, []uint64{1}, true}, {1, 16, 0, never, []uint64{3}, true}, {0, 16, 0, never, []uint64{0}, true}, {0, 16, 0, never, []uint64{2}, true}},
			drawn:  6, owned: 6},
		{why: "a segment claims its own identities, and reads every request",
			list: every100us(6, 1), queues: 1, segment: plan.Segment{Index: 1, Count: 3}, duration: time.Second,
			claims: []claim{{0, 1, 0, never, []uint64{1}, true}, {0, 1, 0, never, []uint64{4}, true}, {0, 1, 0, never, nil, false}},
			drawn:  6, owned: 2},
		{why: "the run's duration ends the schedule before the source does",
			list: every100us(10, 1), queues: 1, duration: us(250),
			claims: []claim{{0, 16, 0, never, []uint64{0, 1}, true}, {0, 16, 0, never, []uint64{2}, true}, {0, 16, 0, never, nil, false}},
			drawn:  3, owned: 3},
		{why: "past the deadline nothing is claimed, and what is left before the end is unsent",
			list: every100us(10, 2), queues: 2, duration: us(850),
			claims: []claim{{0, 1, 0, never, []uint64{0}, true}, {1, 1, 0, never, []uint64{1}, true}, {0, 1, us(850) + deadlineGrace, us(200), nil, false}, {1, 1, 0, never, nil, false}},
			drawn:  9, owned: 9, unsent: 7},
	} {
		s := newShare(&listedArrivals{list: tc.list, end: time.Hour}, tc.segment, tc.queues, tc.duration)
		start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		for i, c := range tc.claims {
			got, more := s.claim(context.Background(), c.queue, nil, c.size, c.now, c.free, start)
			var ids []uint64
			for _, j := range got {
				ids = append(ids, j.identity)
				if want := tc.list[j.identity].Due; !j.due.Equal(start.Add(want)) {
					t.Errorf("%s: claim %d: identity %d due %s, want %s", tc.why, i, j.identity, j.due.Sub(start), want)
				}
			}
			if more != c.wantMore || len(ids) != len(c.want) || (len(ids) > 0 && !slices.Equal(ids, c.want)) {
				t.Errorf("%s: claim %d: %v (more %v), want %v (more %v)", tc.why, i, ids, more, c.want, c.wantMore)
			}
		}
		e := s.end(time.Minute)
		if e.drawn != tc.drawn || e.owned != tc.owned || e.busy != tc.busy || e.unsent != tc.unsent {
			t.Errorf("%s: drawn %d, owned %d, busy %d, unsent %d; want %d, %d, %d, %d",
				tc.why, e.drawn, e.owned, e.busy, e.unsent, tc.drawn, tc.owned, tc.busy, tc.unsent)
		}
	}
}

// TestShareEnds: how long a schedule ran, by how it ended.
func TestShareEnds(t *testing.T) {
	list := []arrivals.Arrival{{Due: 0}, {Due: time.Millisecond}}
	drain := func(s *share) {
		for {
			if _, more := s.claim(context.Background(), 0, nil, 16, 0, math.MinInt64, time.Time{}); !more {
				return
			}
		}
	}
	s := newShare(&listedArrivals{list: list, end: 5 * time.Millisecond}, plan.Segment{}, 1, time.Second)
	drain(s)
	if e := s.end(time.Minute); e.elapsed != 5*time.Millisecond || e.interrupted {
		t.Errorf("a source that ended: %+v, want 5ms, the end it gave", e)
	}
	s = newShare(&listedArrivals{list: list, end: time.Hour}, plan.Segment{}, 1, 2*time.Millisecond)
	drain(s)
	if e := s.end(time.Minute); e.elapsed != 2*time.Millisecond {
		t.Errorf("a source that goes on past the duration: %+v, want the duration", e)
	}
	s = newShare(&listedArrivals{list: list, end: time.Hour}, plan.Segment{}, 1, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, more := s.claim(ctx, 0, nil, 1, 0, math.MinInt64, time.Time{}); more {
		t.Errorf("claimed after the run was stopped")
	}
	if e := s.end(time.Minute); e.elapsed != time.Minute || !e.interrupted {
		t.Errorf("a stopped run: %+v, want interrupted after the time it ran", e)
	}
}
