package workload

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

func TestBoundaryDues(t *testing.T) {
	const edge = int64(1_764_000_001_124_000)
	for _, tc := range []struct {
		why  string
		b    plan.Boundary
		want []int64
	}{
		{"bursts fired at once, 10ms either side",
			plan.Boundary{Burst: 3, Offset: 10 * time.Millisecond},
			[]int64{edge - 10_000, edge - 10_000, edge - 10_000, edge + 10_000, edge + 10_000, edge + 10_000}},
		{"spread: the first burst ends at -offset, the second starts at +offset",
			plan.Boundary{Burst: 3, Offset: 10 * time.Millisecond, Spread: 4 * time.Millisecond},
			[]int64{edge - 14_000, edge - 12_000, edge - 10_000, edge + 10_000, edge + 12_000, edge + 14_000}},
		{"a burst of one has nothing to spread",
			plan.Boundary{Burst: 1, Offset: time.Millisecond, Spread: 5 * time.Millisecond},
			[]int64{edge - 1_000, edge + 1_000}},
	} {
		if got := burstDues(tc.b, edge); !slices.Equal(got, tc.want) {
			t.Errorf("%s: dues %v, want %v", tc.why, got, tc.want)
		}
	}
}

// fakeServer is Redis TIME on a fake clock running skew ahead of the local
// one; each TIME takes rtt of fake time, read in the middle.
type fakeServer struct {
	clock     *fakeClock
	skew, rtt time.Duration
}

func (s *fakeServer) Time(context.Context) *redis.TimeCmd {
	s.clock.advance(s.rtt / 2)
	now := s.clock.Now().Add(s.skew)
	s.clock.advance(s.rtt - s.rtt/2)
	return redis.NewTimeCmdResult(now, nil)
}

// skewedLimiter admits everything, answering with the fake server's time,
// and records the server time of each identity's requests. Its windows end
// at an odd instant, so the test sees that the shape asks the limiter.
type skewedLimiter struct {
	server *fakeServer
	calls  atomic.Int64
	mu     sync.Mutex
	stamps map[uint64][]int64
}

var (
	_ algorithms.Limiter  = (*skewedLimiter)(nil)
	_ algorithms.Windowed = (*skewedLimiter)(nil)
)

const skewedWindowExtra = 777 // microseconds past prime + window

func (l *skewedLimiter) Name() string { return "skewed" }
func (l *skewedLimiter) Policy() algorithms.Policy {
	return algorithms.Policy{Limit: 4, Window: 200 * time.Millisecond}
}
func (l *skewedLimiter) Load(context.Context) error { return nil }
func (l *skewedLimiter) NoScriptReloads() int64     { return 0 }
func (l *skewedLimiter) WindowEnd(opened int64) int64 {
	return opened + l.Policy().WindowMicros() + skewedWindowExtra
}
func (l *skewedLimiter) Allow(_ context.Context, key string) (algorithms.Decision, error) {
	now := l.server.clock.Now().Add(l.server.skew).UnixMicro()
	id, err := strconv.ParseUint(key[strings.LastIndexByte(key, ':')+1:], 10, 64)
	if err != nil {
		return algorithms.Decision{}, err
	}
	l.mu.Lock()
	l.stamps[id] = append(l.stamps[id], now)
	l.mu.Unlock()
	l.calls.Add(1)
	return algorithms.Decision{Allowed: true, Remaining: "1", ServerNowMicros: now}, nil
}

// TestBoundaryScheduleOnAFakeClock: with a server clock 3s ahead, every
// identity's bursts land exactly where the schedule puts them in server
// time, on each side of the boundary its prime's reply implies, and the
// primes are staggered.
func TestBoundaryScheduleOnAFakeClock(t *testing.T) {
	clock := newFakeClock()
	server := &fakeServer{clock: clock, skew: 3*time.Second + 123*time.Microsecond, rtt: 100 * time.Microsecond}
	lim := &skewedLimiter{server: server, stamps: map[uint64][]int64{}}
	d := fakeScheduler(clock, lim, 4)
	b := plan.Boundary{Burst: 5, Offset: 10 * time.Millisecond, Spread: 2 * time.Millisecond, Stagger: 30 * time.Millisecond}
	// Before the clock moves, every request due by now has reached the
	// limiter: each prime (sent by the schedule itself) and the bursts it
	// placed, due at their server time less the skew.
	clock.settle = func() {
		now := clock.Now().Add(server.skew).UnixMicro()
		due := int64(0)
		lim.mu.Lock()
		for _, stamps := range lim.stamps {
			edge := stamps[0] + lim.Policy().WindowMicros() + skewedWindowExtra
			due++
			for _, s := range burstDues(b, edge) {
				if s <= now {
					due++
				}
			}
		}
		lim.mu.Unlock()
		deadline := time.Now().Add(5 * time.Second)
		for lim.calls.Load() < due && time.Now().Before(deadline) {
			runtime.Gosched()
		}
	}
	offset, err := event.EstimateOffset(context.Background(), server, clock, event.DefaultOffsetSamples)
	if err != nil {
		t.Fatal(err)
	}
	if offset.Offset != server.skew || offset.Uncertainty != 51*time.Microsecond || offset.RTT != server.rtt {
		t.Fatalf("clock offset %+v, want %s give or take 51us", offset, server.skew)
	}
	const identities = 6
	out, err := d.boundaryBursts(context.Background(), b, identities, newLocator(lim, offset, b.Offset), b.Span(lim.Policy(), identities)+boundaryGrace)
	if err != nil {
		t.Fatal(err)
	}
	if out.interrupted || out.unsent != 0 {
		t.Fatalf("schedule ended early: %+v", out)
	}
	var res result.Run
	d.rec.Fill(&res)
	if res.Requests.Sent != b.Requests(identities) || res.Requests.Late != 0 {
		t.Errorf("sent %d (late %d), want %d, none late", res.Requests.Sent, res.Requests.Late, b.Requests(identities))
	}
	var primes []int64
	for id := uint64(0); id < identities; id++ {
		got := lim.stamps[id]
		if len(got) != int(1+2*b.Burst) {
			t.Errorf("identity %d: %d requests, want %d", id, len(got), 1+2*b.Burst)
			continue
		}
		slices.Sort(got)
		primes = append(primes, got[0])
		edge := got[0] + lim.Policy().WindowMicros() + skewedWindowExtra
		if want := burstDues(b, edge); !slices.Equal(got[1:], want) {
			t.Errorf("identity %d: bursts at %v, want %v", id, offsets(got[1:], edge), offsets(want, edge))
		}
		for k, s := range got[1:] {
			if before := k < int(b.Burst); before != (s < edge) {
				t.Errorf("identity %d: request %d of the bursts on the wrong side of the boundary", id, k)
			}
		}
	}
	for i := 1; i < len(primes); i++ {
		if gap := primes[i] - primes[i-1]; gap != b.Stagger.Microseconds() {
			t.Errorf("primes %d and %d are %dus apart, want %s", i-1, i, gap, b.Stagger)
		}
	}
}

// offsets renders server times relative to the boundary, for messages.
func offsets(stamps []int64, edge int64) string {
	parts := make([]string, len(stamps))
	for i, s := range stamps {
		parts[i] = fmt.Sprintf("%+dus", s-edge)
	}
	return strings.Join(parts, " ")
}

// TestBoundaryCountsWhatRunsPastTheEnd: a schedule cut short by its end
// counts the prime and bursts it never sent.
func TestBoundaryCountsWhatRunsPastTheEnd(t *testing.T) {
	clock := newFakeClock()
	server := &fakeServer{clock: clock}
	lim := &skewedLimiter{server: server, stamps: map[uint64][]int64{}}
	d := fakeScheduler(clock, lim, 2)
	b := plan.Boundary{Burst: 3, Offset: 10 * time.Millisecond, Stagger: time.Second}
	// Three identities primed 1s apart, each with bursts about a 200ms
	// window later: an end at 1.1s sends the first identity's prime and
	// bursts and the second one's prime, and nothing after.
	out, err := d.boundaryBursts(context.Background(), b, 3, newLocator(lim, event.Offset{}, b.Offset), 1100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	sent := d.rec.Completed()
	if sent != 1+2*3+1 {
		t.Errorf("sent %d, want the first identity's 7 and the second prime", sent)
	}
	if sent+out.unsent != b.Requests(3) {
		t.Errorf("sent %d + unsent %d != %d planned", sent, out.unsent, b.Requests(3))
	}
}

// TestBoundaryStopsOnCancel: a cancelled context ends the schedule before
// the next request, even one already due.
func TestBoundaryStopsOnCancel(t *testing.T) {
	clock := newFakeClock()
	lim := &skewedLimiter{server: &fakeServer{clock: clock}, stamps: map[uint64][]int64{}}
	d := fakeScheduler(clock, lim, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := d.boundaryBursts(ctx, plan.Boundary{Burst: 3, Offset: 10 * time.Millisecond}, 5, newLocator(lim, event.Offset{}, 10*time.Millisecond), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !out.interrupted || lim.calls.Load() != 0 {
		t.Errorf("interrupted %v after %d calls; want a stop before the first", out.interrupted, lim.calls.Load())
	}
}
