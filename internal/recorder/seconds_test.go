package recorder

import (
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// sharedClock is a clock every goroutine of a test reads, which moves on
// by a random step at each reading: calls overlap, finish out of order and
// straddle seconds as a busy run's do, and it never goes back. (A
// goroutine descheduled in the middle of a call holds its call open while
// the others move the clock on: calls here may span many seconds.)
type sharedClock struct {
	start time.Time
	ns    atomic.Int64
}

func (c *sharedClock) now(rng *rand.Rand) time.Time {
	return c.start.Add(time.Duration(c.ns.Add(int64(rng.Intn(40_000_000)))))
}

// TestSecondsCloseExactly: eight workers whose calls overlap and finish
// out of order across 60 seconds, recorded as the scheduler records them
// (each in its slot), give every second the p99 of all its latencies, as
// one histogram per second kept to the end would; and once the calls in
// flight are recorded, the next outcome closes every second before it.
func TestSecondsCloseExactly(t *testing.T) {
	clock := &sharedClock{start: time.Unix(1_800_000_000, 0)}
	rec := New(clock.start)
	const workers = 8
	type recorded struct {
		sec     int
		latency int64
	}
	got := make([][]recorded, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		slot := rec.calls.add()
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for {
				slot.Begin(1)
				sent := clock.now(rng)
				slot.Sent(clock.start, sent)
				if sent.Sub(clock.start) > 60*time.Second {
					slot.End()
					return
				}
				for range rng.Intn(4) { // a call's round trip: others' readings go by
					clock.now(rng)
				}
				o := &event.Outcome{Due: sent, Sent: sent, Done: clock.now(rng), Decision: algorithms.Decision{Allowed: true}}
				rec.Record(w, o)
				slot.End()
				got[w] = append(got[w], recorded{int(o.Done.Sub(clock.start) / time.Second), result.HistMicros(o.Done.Sub(o.Due))})
			}
		}(w)
	}
	wg.Wait()

	// With every call recorded, the next outcome, decided in a later
	// second, closes every second before it: however far closing fell
	// behind while calls were in flight, it catches up.
	last := clock.now(rand.New(rand.NewSource(workers))).Add(time.Second)
	end := rec.calls.add()
	end.Begin(1)
	end.Sent(clock.start, last)
	rec.Record(0, &event.Outcome{Due: last, Sent: last, Done: last, Decision: algorithms.Decision{Allowed: true}})
	end.End()
	got[0] = append(got[0], recorded{int(last.Sub(clock.start) / time.Second), 1})
	open := 0
	for _, s := range rec.shards {
		open += len(s.open)
	}
	if through := rec.closer.through.Load(); open != 1 || through != int64(last.Sub(clock.start)/time.Second) {
		t.Errorf("after the last outcome: %d seconds open, closed through %d; want 1 open, all before second %d closed", open, through, int64(last.Sub(clock.start)/time.Second))
	}

	var run result.Run
	rec.Fill(&run)
	want := map[int]*[]int64{}
	for _, rs := range got {
		for _, r := range rs {
			if want[r.sec] == nil {
				want[r.sec] = &[]int64{}
			}
			*want[r.sec] = append(*want[r.sec], r.latency)
		}
	}
	if len(run.Series) < 60 {
		t.Fatalf("%d seconds in the series, want 60 or more", len(run.Series))
	}
	for _, s := range run.Series {
		h := newSeriesHistogram()
		if vs := want[s.TS]; vs != nil {
			for _, v := range *vs {
				h.Record(v)
			}
		}
		if p := h.ValueAtQuantile(99); s.P99Us != p || s.Allowed != h.Count() {
			t.Errorf("second %d: p99 %dus of %d, want %dus of %d", s.TS, s.P99Us, s.Allowed, p, h.Count())
		}
	}
}

// TestSecondsBoundedOverAnHour: an hour of outcomes keeps two histograms
// open at most, and a p99 and counts per second.
func TestSecondsBoundedOverAnHour(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	rec := New(start)
	slot := rec.calls.add()
	for ms := 0; ms < 3600*1000; ms += 250 {
		at := start.Add(time.Duration(ms) * time.Millisecond)
		slot.Begin(1)
		slot.Sent(start, at)
		rec.Record(0, &event.Outcome{Due: at, Sent: at, Done: at.Add(7 * time.Millisecond), Decision: algorithms.Decision{Allowed: true}})
		slot.End()
		if open := len(rec.shards[0].open); open > 2 {
			t.Fatalf("at %dms: %d seconds' histograms open", ms, open)
		}
	}
	var run result.Run
	rec.Fill(&run)
	h := newSeriesHistogram()
	h.Record(7000)
	if len(run.Series) != 3600 || run.Series[3599].Allowed != 4 || run.Series[1800].P99Us != h.ValueAtQuantile(99) {
		t.Errorf("series: %d seconds, the last %+v, the middle %+v", len(run.Series), run.Series[len(run.Series)-1], run.Series[1800])
	}
}

// TestACallInFlightHoldsItsSecondOpen: while a call sent in second 1 is in
// flight, second 1 stays open however late other outcomes are decided;
// its outcome, recorded in second 3, and second 1's latencies all count.
func TestACallInFlightHoldsItsSecondOpen(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	rec := New(start)
	slow, fast := rec.calls.add(), rec.calls.add()
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	slow.Begin(1)
	slow.Sent(start, at(1500))
	for _, ms := range []int{1100, 1900, 2500, 3200} {
		fast.Begin(1)
		fast.Sent(start, at(ms-50))
		rec.Record(1, &event.Outcome{Due: at(ms - 50), Sent: at(ms - 50), Done: at(ms), Decision: algorithms.Decision{Allowed: true}})
		fast.End()
	}
	if got := rec.closer.through.Load(); got != 1 {
		t.Fatalf("seconds closed through %d with a call sent in second 1 in flight, want 1", got)
	}
	if rec.InFlight() != 1 {
		t.Errorf("in flight: %d, want 1", rec.InFlight())
	}
	rec.Record(0, &event.Outcome{Due: at(1500), Sent: at(1500), Done: at(3300), Decision: algorithms.Decision{Allowed: true}})
	slow.End()
	var run result.Run
	rec.Fill(&run)
	h := newSeriesHistogram()
	h.Record(50_000)
	if p := run.Series[1].P99Us; p != h.ValueAtQuantile(99) {
		t.Errorf("second 1's p99 %dus, want 50ms", p)
	}
	if p := run.Series[3].P99Us; p < 1_790_000 {
		t.Errorf("second 3's p99 %dus, want the slow call's 1.8s", p)
	}
}
