package workload

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// phasedWindow is a fixed window whose windows are aligned at an odd
// phase of the server's clock, which neither a formula of rlbench's nor
// its replies say: a boundary run must find each window's end from its
// decisions. It admits limit requests per window (all of them when
// broken), and its replies carry the server's time unless noTime.
type phasedWindow struct {
	server        *fakeServer
	phase, window int64 // microseconds
	limit         int
	noTime, leaky bool
	calls         atomic.Int64
	mu            sync.Mutex
	counts        map[uint64]map[int64]int // identity -> window -> admitted
	stamps        map[uint64][]stamp
}

type stamp struct {
	at      int64
	allowed bool
}

var (
	_ algorithms.Limiter         = (*phasedWindow)(nil)
	_ algorithms.InstantWindowed = (*phasedWindow)(nil)
)

func (l *phasedWindow) Name() string { return "phased" }
func (l *phasedWindow) Policy() algorithms.Policy {
	return algorithms.Policy{Limit: int64(l.limit), Window: time.Duration(l.window) * time.Microsecond}
}
func (l *phasedWindow) Load(context.Context) error { return nil }
func (l *phasedWindow) NoScriptReloads() int64     { return 0 }
func (l *phasedWindow) WindowsEndAtInstants() bool { return true }

// windowOf is the index of the window holding server time us.
func (l *phasedWindow) windowOf(us int64) int64 { return (us - l.phase) / l.window }

// boundaryAfter is the first instant of the window after the one holding us.
func (l *phasedWindow) boundaryAfter(us int64) int64 { return (l.windowOf(us)+1)*l.window + l.phase }

func (l *phasedWindow) Allow(_ context.Context, key string) (algorithms.Decision, error) {
	now := l.server.clock.Now().Add(l.server.skew).UnixMicro()
	id, err := strconv.ParseUint(key[strings.LastIndexByte(key, ':')+1:], 10, 64)
	if err != nil {
		return algorithms.Decision{}, err
	}
	l.mu.Lock()
	w := l.windowOf(now)
	if l.counts[id] == nil {
		l.counts[id] = map[int64]int{}
	}
	allowed := l.leaky || l.counts[id][w] < l.limit
	if allowed {
		l.counts[id][w]++
	}
	l.stamps[id] = append(l.stamps[id], stamp{now, allowed})
	l.mu.Unlock()
	l.calls.Add(1)
	d := algorithms.Decision{Allowed: allowed, ServerNowMicros: now}
	if l.noTime {
		d.ServerNowMicros = 0
	}
	return d, nil
}

// edgeSink records where the schedule placed each identity's boundary.
type edgeSink struct {
	mu    sync.Mutex
	edges map[uint64]int64
}

func (s *edgeSink) Boundary(identity uint64, edge int64) {
	s.mu.Lock()
	s.edges[identity] = edge
	s.mu.Unlock()
}

// TestBoundaryFindsTheWindowByBehaviour: a fixed window that says nothing
// of where its windows end (they are aligned at an odd phase) is exhausted
// right after each prime and probed until admitted again; each identity's
// bursts then land on the two sides of its true boundary, a window later,
// whether its replies carry the server's time or not. One that never
// denies cannot be located: its bursts go a whole number of windows after
// its prime, and the run says so.
func TestBoundaryFindsTheWindowByBehaviour(t *testing.T) {
	for _, tc := range []struct {
		why           string
		noTime, leaky bool
	}{
		{"replies with the server's time", false, false},
		{"replies without it", true, false},
		{"a limiter that never denies", false, true},
	} {
		clock := newFakeClock()
		server := &fakeServer{clock: clock, skew: 2*time.Second + 345*time.Microsecond, rtt: 100 * time.Microsecond}
		lim := &phasedWindow{server: server, phase: 37_777, window: 200_000, limit: 4, noTime: tc.noTime, leaky: tc.leaky,
			counts: map[uint64]map[int64]int{}, stamps: map[uint64][]stamp{}}
		d := fakeScheduler(clock, lim, 4)
		sink := &edgeSink{edges: map[uint64]int64{}}
		d.boundaries = []event.BoundarySink{sink}
		// Before the clock moves, every request issued has reached the
		// limiter.
		clock.settle = func() {
			deadline := time.Now().Add(5 * time.Second)
			for lim.calls.Load() < d.issued.Load() && time.Now().Before(deadline) {
				runtime.Gosched()
			}
		}
		offset, err := event.EstimateOffset(context.Background(), server, clock, event.DefaultOffsetSamples)
		if err != nil {
			t.Fatal(err)
		}
		b := plan.Boundary{Burst: 5, Offset: 10 * time.Millisecond, Stagger: 30 * time.Millisecond}
		const identities = 6
		loc := newLocator(lim, offset, b.Offset)
		if loc.found.Method != locateByBehaviour || loc.extraSpan() != lim.Policy().Window {
			t.Fatalf("%s: method %q, extra span %s", tc.why, loc.found.Method, loc.extraSpan())
		}
		out, err := d.boundaryBursts(context.Background(), b, identities, loc, b.Span(lim.Policy(), identities)+boundaryGrace+2*loc.extraSpan())
		if err != nil || out.interrupted || out.unsent != 0 {
			t.Fatalf("%s: schedule ended early: %+v, %v", tc.why, out, err)
		}
		found := loc.located()
		if tc.leaky {
			if found.AfterPrime != identities || found.ByBehaviour != 0 {
				t.Errorf("%s: %+v, want every identity placed after its prime", tc.why, found)
			}
			continue
		}
		if found.ByBehaviour != identities || found.Identities != identities || found.UncertaintyMaxUs > b.Offset.Microseconds()/2+server.rtt.Microseconds() {
			t.Errorf("%s: %+v, want every identity located within half the offset", tc.why, found)
		}
		for id := uint64(0); id < identities; id++ {
			stamps := lim.stamps[id]
			edge, ok := sink.edges[id]
			if !ok {
				t.Errorf("%s: identity %d was never placed", tc.why, id)
				continue
			}
			truth := lim.boundaryAfter(edge - b.Offset.Microseconds())
			if edge < truth || edge-truth > found.UncertaintyMaxUs {
				t.Errorf("%s: identity %d placed at %d, its boundary is at %d (uncertainty %dus)", tc.why, id, edge, truth, found.UncertaintyMaxUs)
			}
			// The last 2 x burst requests are the bursts, one on each side.
			bursts := slices.Clone(stamps[len(stamps)-2*int(b.Burst):])
			slices.SortFunc(bursts, func(x, y stamp) int { return int(x.at - y.at) })
			for k, s := range bursts {
				if before := k < int(b.Burst); before != (s.at < truth) {
					t.Errorf("%s: identity %d: burst request %d at %+dus from the boundary, on the wrong side", tc.why, id, k, s.at-truth)
				}
			}
		}
	}
}
