package workload

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/result"
)

// fakeClock advances only when slept on (or when a fake limiter says a call
// took time), so schedules are tested without sleeping.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
	// settle, when set, runs before time moves, so goroutines that were
	// handed work at the current instant read the clock before it changes.
	settle func()
}

var _ event.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.settle != nil {
		c.settle()
	}
	c.advance(d)
	return ctx.Err()
}

func (c *fakeClock) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// instantLimiter answers at once (or after callTime of fake time), admitting
// every other request.
type instantLimiter struct {
	clock    testClock
	callTime time.Duration
	mu       sync.Mutex
	n        int
	calls    atomic.Int64
}

var _ algorithms.Limiter = (*instantLimiter)(nil)

func (l *instantLimiter) Name() string { return "instant" }
func (l *instantLimiter) Policy() algorithms.Policy {
	return algorithms.Policy{Limit: 1, Window: time.Second}
}
func (l *instantLimiter) Load(context.Context) error { return nil }
func (l *instantLimiter) NoScriptReloads() int64     { return 0 }
func (l *instantLimiter) Allow(context.Context, string) (algorithms.Decision, error) {
	l.calls.Add(1)
	l.clock.advance(l.callTime)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return algorithms.Decision{Allowed: l.n%2 == 0, ServerNowMicros: l.clock.Now().UnixMicro()}, nil
}

// countingPicker counts the requests the schedule has handed out.
type countingPicker struct {
	arrivals.IdentityPicker
	picks atomic.Int64
}

func (p *countingPicker) Pick(n uint64) uint64 {
	p.picks.Add(1)
	return p.IdentityPicker.Pick(n)
}

// testClock is a fake clock a test limiter moves for the time its call
// takes.
type testClock interface {
	event.Clock
	advance(d time.Duration)
}

func fakeScheduler(clock event.Clock, lim algorithms.Limiter, conc int) *scheduler {
	return &scheduler{
		limiter:     lim,
		windows:     lim,
		keys:        event.KeyScheme{Head: "rlbench:test:"},
		clock:       clock,
		rec:         recorder.New(clock.Now()),
		concurrency: conc,
		callCtx:     context.Background(),
	}
}

// TestOpenLoopKeepsTheSchedule: with answers that take 2ms, four
// connections keep a uniform schedule of 1000/s exactly: every request goes
// out at its due time (none waits for a connection, none is late), rate x
// duration of them, each identity its share.
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	clock := newSimClock()
	lim := &instantLimiter{clock: clock, callTime: 2 * time.Millisecond}
	d := fakeScheduler(clock, lim, 4)
	out := d.openLoop(context.Background(), &arrivals.Schedule{Pacer: arrivals.ConstantPacer{PerSecond: 1000}, Picker: arrivals.RoundRobin{Count: 10}}, time.Second)
	var res result.Run
	d.rec.Fill(&res)
	q := res.Requests
	if q.Sent != 1000 || q.Late != 0 || res.MaxLagUs != 0 || out.unsent != 0 || out.busy != 0 || out.interrupted {
		t.Errorf("sent %d, late %d (the latest by %dus), unsent %d, busy %d, interrupted %v; want 1000, 0 (0us), 0, 0, false",
			q.Sent, q.Late, res.MaxLagUs, out.unsent, out.busy, out.interrupted)
	}
	if res.LatencyUs.Max != 2000 || res.LatencyUs.P50 != res.LatencyUncorrectedUs.P50 {
		t.Errorf("latency %+v from the due time, %+v from the send; want every request 2ms from either", res.LatencyUs, res.LatencyUncorrectedUs)
	}
	if q.Allowed+q.Denied+q.Errors != q.Sent {
		t.Errorf("counts do not add up: %+v", q)
	}
	if got := float64(q.Sent) / out.elapsed.Seconds(); got != 1000 {
		t.Errorf("achieved %v/s, want 1000", got)
	}
	// Each request is decided 2ms after its due time: the last two in
	// the second after.
	if len(res.Series) != 2 || res.Series[0].Allowed+res.Series[0].Denied != 998 || res.Series[1].Allowed+res.Series[1].Denied != 2 {
		t.Errorf("series %+v, want 998 decisions in the first second and 2 in the next", res.Series)
	}
}

// TestOpenLoopPoissonCount: a Poisson schedule sends about rate x duration.
func TestOpenLoopPoissonCount(t *testing.T) {
	clock := newSimClock()
	d := fakeScheduler(clock, &instantLimiter{clock: clock}, 4)
	d.openLoop(context.Background(), &arrivals.Schedule{Pacer: arrivals.NewPoissonPacer(5000, 11), Picker: arrivals.NewRandomPicker(100, 11)}, 4*time.Second)
	sent := d.rec.Completed()
	if math.Abs(float64(sent)-20000) > 5*math.Sqrt(20000) {
		t.Errorf("sent %d, want about 20000", sent)
	}
}

// TestOpenLoopRecordsASlippedSchedule: when calls take longer than the gap
// and there is one connection, requests wait for it and go out late, the
// lateness shows in the corrected latency, and what could not be sent by
// the deadline is counted: one call every 5ms for the 150ms until the
// deadline (the 100ms of the schedule and its grace) sends 30 of the 100.
func TestOpenLoopRecordsASlippedSchedule(t *testing.T) {
	clock := newSimClock()
	d := fakeScheduler(clock, &instantLimiter{clock: clock, callTime: 5 * time.Millisecond}, 1)
	out := d.openLoop(context.Background(), &arrivals.Schedule{Pacer: arrivals.ConstantPacer{PerSecond: 1000}, Picker: arrivals.RoundRobin{Count: 1}}, 100*time.Millisecond)
	var res result.Run
	d.rec.Fill(&res)
	if res.Requests.Late == 0 {
		t.Errorf("no late sends recorded")
	}
	if res.Requests.Sent != 30 || out.unsent != 70 || out.busy != 29 || out.elapsed != 100*time.Millisecond {
		t.Errorf("sent %d, unsent %d, %d waited for the connection, over %s; want 30, 70, 29 (all but the first) over 100ms",
			res.Requests.Sent, out.unsent, out.busy, out.elapsed)
	}
	c, u := res.LatencyUs, res.LatencyUncorrectedUs
	if c.P50 <= u.P50 || u.P50 < 4900 {
		t.Errorf("corrected p50 %dus should exceed uncorrected p50 %dus (about 5000us)", c.P50, u.P50)
	}
	if res.MaxLagUs <= event.LateThreshold.Microseconds() {
		t.Errorf("max lag %dus", res.MaxLagUs)
	}
}

// TestOpenLoopStopsOnCount: a request bound ends the schedule early.
func TestOpenLoopStopsOnCount(t *testing.T) {
	clock := newSimClock()
	d := fakeScheduler(clock, &instantLimiter{clock: clock}, 2)
	out := d.openLoop(context.Background(), &arrivals.Schedule{Pacer: arrivals.ConstantPacer{PerSecond: 100}, Picker: arrivals.RoundRobin{Count: 3}, Requests: 25}, time.Hour)
	if n := d.rec.Completed(); n != 25 {
		t.Errorf("sent %d, want 25", n)
	}
	if out.elapsed != 250*time.Millisecond {
		t.Errorf("elapsed %s, want 250ms (25 requests at 100/s)", out.elapsed)
	}
}

// TestOpenLoopStopsOnCancel: cancelling ends issuing promptly and says so.
func TestOpenLoopStopsOnCancel(t *testing.T) {
	clock := newSimClock()
	d := fakeScheduler(clock, &instantLimiter{clock: clock}, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := d.openLoop(ctx, &arrivals.Schedule{Pacer: arrivals.ConstantPacer{PerSecond: 100}, Picker: arrivals.RoundRobin{Count: 3}}, time.Hour)
	if !out.interrupted {
		t.Errorf("not marked interrupted")
	}
	if n := d.rec.Completed(); n > 1 {
		t.Errorf("sent %d requests after cancel", n)
	}
}
