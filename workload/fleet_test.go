package workload

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/arrivals"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
)

// callerClockLimiter admits everything and answers with the time its
// caller's clock says (the clock the call's context carries), as a
// limiter that takes its time from its caller would read it.
type callerClockLimiter struct {
	clock event.Clock
}

var _ algorithms.Limiter = (*callerClockLimiter)(nil)

func (l *callerClockLimiter) Name() string { return "caller_clock" }
func (l *callerClockLimiter) Policy() algorithms.Policy {
	return algorithms.Policy{Limit: 1, Window: time.Second}
}
func (l *callerClockLimiter) Load(context.Context) error { return nil }
func (l *callerClockLimiter) NoScriptReloads() int64     { return 0 }
func (l *callerClockLimiter) Allow(ctx context.Context, _ string) (algorithms.Decision, error) {
	now := l.clock.Now()
	var skew time.Duration
	if c := algorithms.CallerClockFrom(ctx); c.Skew != nil {
		skew = c.Skew(now)
	}
	return algorithms.Decision{Allowed: true, ServerNowMicros: now.UnixMicro(), ClientNowMicros: now.Add(skew).UnixMicro(),
		ClientSkewMicros: skew.Microseconds()}, nil
}

// outcomeLog keeps a copy of every outcome.
type outcomeLog struct {
	mu  sync.Mutex
	all []event.Outcome
}

func (s *outcomeLog) Record(o *event.Outcome) {
	s.mu.Lock()
	s.all = append(s.all, *o)
	s.mu.Unlock()
}

// fleetRun sends an open loop of 1000 requests a second for a second over
// 10 identities, from fleet (nil: none), on a simulated clock (each reply
// read at the instant its request was sent), and returns every outcome and
// the scheduler.
func fleetRun(t *testing.T, fleet *plan.Fleet) ([]event.Outcome, *scheduler) {
	t.Helper()
	clock := newSimClock()
	lim := &callerClockLimiter{clock: clock}
	picker := arrivals.RoundRobin{Count: 10}
	d := fakeScheduler(clock, lim, 4)
	d.fleet = newFleetRoute(fleet, 7, d.callCtx, clock, d.rec.Start)
	d.rec.CountInstances(fleet.Instances())
	log := &outcomeLog{}
	d.sinks = []event.Sink{log}
	out := d.openLoop(context.Background(), &arrivals.Schedule{Pacer: arrivals.ConstantPacer{PerSecond: 1000}, Picker: picker, Fleet: fleet, Seed: 7}, time.Second)
	if out.unsent != 0 || out.interrupted || len(log.all) != 1000 {
		t.Fatalf("schedule: %+v, %d outcomes", out, len(log.all))
	}
	// In the schedule's order: workers record in the order they finish.
	slices.SortFunc(log.all, func(a, b event.Outcome) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Identity, b.Identity))
	})
	return log.all, d
}

// TestFleetSkewsOnlyWhatTheLimiterSees: with a fleet of two instances
// 250ms behind and ahead, drifting 60ms a minute apart, each request
// carries to the limiter its instance's clock at that instant, the skew
// exact; the schedule, the send times and the latency are those of the
// same run without a fleet. Every identity is served by both instances
// unless the fleet is sticky, when instance i serves the identities i mod
// 2; each instance's requests and admissions are counted.
func TestFleetSkewsOnlyWhatTheLimiterSees(t *testing.T) {
	plain, _ := fleetRun(t, nil)
	for _, sticky := range []bool{false, true} {
		fleet := plan.SpreadFleet(2, 250*time.Millisecond, 30*time.Millisecond, sticky)
		got, d := fleetRun(t, fleet)
		start := d.rec.Start
		served := map[uint64]map[int]bool{}
		for k, o := range got {
			p := plain[k]
			if o.Identity != p.Identity || !o.Due.Equal(p.Due) || !o.Sent.Equal(p.Sent) || !o.Done.Equal(p.Done) {
				t.Fatalf("sticky %v: request %d: identity %d due %s sent %s done %s; without a fleet %d, %s, %s, %s",
					sticky, k, o.Identity, o.Due, o.Sent, o.Done, p.Identity, p.Due, p.Sent, p.Done)
			}
			skew := fleet.OffsetAt(o.Instance, o.Sent.Sub(start))
			if o.Decision.ClientSkewMicros != skew.Microseconds() || o.Decision.ClientNowMicros != o.Sent.Add(skew).UnixMicro() ||
				o.Decision.ServerNowMicros != o.Sent.UnixMicro() {
				t.Fatalf("sticky %v: request %d from instance %d at %s carries %d skewed by %d, want skewed by %s",
					sticky, k, o.Instance, o.Sent, o.Decision.ClientNowMicros, o.Decision.ClientSkewMicros, skew)
			}
			if p.Decision.ClientSkewMicros != 0 || p.Decision.ClientNowMicros != p.Sent.UnixMicro() {
				t.Fatalf("without a fleet, request %d carries a skew: %+v", k, p.Decision)
			}
			if served[o.Identity] == nil {
				served[o.Identity] = map[int]bool{}
			}
			served[o.Identity][o.Instance] = true
			if sticky && o.Instance != int(o.Identity%2) {
				t.Fatalf("sticky: identity %d served by instance %d", o.Identity, o.Instance)
			}
		}
		for id, by := range served {
			if want := 2; !sticky && len(by) != want {
				t.Errorf("identity %d served by %d instances, want %d", id, len(by), want)
			}
		}
		sent, allowed := d.rec.InstanceCounts()
		if len(sent) != 2 || sent[0]+sent[1] != 1000 || sent[0] == 0 || sent[1] == 0 || allowed[0] != sent[0] || allowed[1] != sent[1] {
			t.Errorf("sticky %v: per instance sent %v, allowed %v", sticky, sent, allowed)
		}
	}
}

// TestFleetWorkersPerInstance: each instance's requests go to its own
// share of the workers, so an instance whose workers are all busy holds up
// only its own requests; without enough workers for every instance, the
// queues are as many as the workers, and each request still carries its
// own instance's clock.
func TestFleetWorkersPerInstance(t *testing.T) {
	f := plan.SpreadFleet(3, time.Second, 0, false)
	r := newFleetRoute(f, 1, context.Background(), newFakeClock(), time.Now())
	for _, tc := range []struct{ concurrency, queues int }{{6, 3}, {3, 3}, {2, 2}} {
		if got := r.queues(tc.concurrency); got != tc.queues {
			t.Errorf("%d workers for 3 instances: %d queues, want %d", tc.concurrency, got, tc.queues)
		}
	}
	var none *fleetRoute
	if none.queues(8) != 1 || none.instanceOf(5, 9) != 0 || none.ctx(0, context.Background()) != context.Background() {
		t.Error("a run without a fleet has more than one queue, or an instance")
	}
	q := newQueues(2, 1)
	for _, j := range []job{{instance: 0}, {instance: 1}} {
		if sent, waited := q.send(context.Background(), j); !sent || waited {
			t.Fatalf("send: sent %v, waited %v, into an empty queue", sent, waited)
		}
	}
	// A full queue: the job waits for its worker, and says so; here the
	// run ends first.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if sent, waited := q.send(ended, job{instance: 0}); sent || !waited {
		t.Errorf("send into a full queue of an ended run: sent %v, waited %v", sent, waited)
	}
	if got := (<-q.of(1)).instance; got != 1 {
		t.Errorf("worker 1 took instance %d's job", got)
	}
	if got := (<-q.of(2)).instance; got != 0 {
		t.Errorf("worker 2 took instance %d's job", got)
	}
}

// TestFleetPipelinedBatchCarriesEachInstancesClock: in a pipelined run,
// each request of a batch goes out through the limiter as its instance
// calls it, and carries that instance's clock: a client-time built-in on
// a real redis-server.
func TestFleetPipelinedBatchCarriesEachInstancesClock(t *testing.T) {
	rdb := redistest.Client(t)
	lim, err := algorithms.New(algorithms.TokenBucketClientTimeName, rdb, algorithms.Policy{Limit: 10, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := lim.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock := event.RealClock{}
	d := &scheduler{limiter: lim, windows: lim, keys: event.KeyScheme{Head: "rlbench:test:fleetpipe:"}, clock: clock,
		rec: recorder.New(clock.Now()), concurrency: 1, callCtx: context.Background()}
	fleet := plan.SpreadFleet(3, 400*time.Millisecond, 0, false)
	d.fleet = newFleetRoute(fleet, 1, d.callCtx, clock, d.rec.Start)
	d.rec.CountInstances(3)
	if note := d.setPipeline(plan.Pipeline{Depth: 8}, rdb); note != "" || d.piped == nil {
		t.Fatalf("not pipelined: %q", note)
	}
	d.fleet.pipe(lim, d.piped)
	log := &outcomeLog{}
	d.sinks = []event.Sink{log}
	w := d.newPipeWorker(0)
	var batch []job
	for i := range 6 {
		batch = append(batch, job{identity: uint64(i % 2), due: clock.Now(), instance: i % 3})
	}
	d.sendBatch(w, batch)
	if len(log.all) != 6 {
		t.Fatalf("%d outcomes of 6", len(log.all))
	}
	for _, o := range log.all {
		want := fleet.Offsets[o.Instance].Microseconds()
		if o.Err != nil || o.Decision.ClientSkewMicros != want || o.Decision.ServerNowMicros <= 0 {
			t.Errorf("instance %d: %+v, %v; want the skew %dus", o.Instance, o.Decision, o.Err, want)
		}
	}
	if sent, _ := d.rec.InstanceCounts(); len(sent) != 3 || sent[0] != 2 || sent[1] != 2 || sent[2] != 2 {
		t.Errorf("per instance sent %v, want 2 each", sent)
	}
}
