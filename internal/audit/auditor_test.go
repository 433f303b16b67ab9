package audit

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

func TestMaxInWindow(t *testing.T) {
	for _, tc := range []struct {
		why    string
		stamps []int64
		window int64
		want   int64
	}{
		{"nothing admitted", nil, 100, 0},
		{"one stamp", []int64{5}, 100, 1},
		{"exactly a window apart: the interval is half-open", []int64{0, 100}, 100, 1},
		{"a microsecond less than a window apart", []int64{0, 99}, 100, 2},
		{"repeated stamps all count", []int64{7, 7, 7, 7}, 1, 4},
		{"the busiest stretch is in the middle", []int64{0, 50, 120, 121, 122, 219, 300}, 100, 4},
		{"two windows' bursts straddling a boundary", []int64{90, 91, 92, 110, 111, 112}, 100, 6},
	} {
		var one tally
		for _, s := range tc.stamps {
			one.add(s, 1)
		}
		if got := one.maxIn(tc.window); got != tc.want {
			t.Errorf("%s: maxIn(%v, %d) = %d, want %d", tc.why, tc.stamps, tc.window, got, tc.want)
		}
		// The same instants of three units each count three times as
		// much, and one of them of three, alone, counts three.
		var three tally
		for _, s := range tc.stamps {
			three.add(s, 3)
		}
		if got := three.maxIn(tc.window); got != 3*tc.want {
			t.Errorf("%s, three units each: %d, want %d", tc.why, got, 3*tc.want)
		}
	}
	var mixed tally
	for i, s := range []int64{0, 50, 99, 150} {
		mixed.add(s, int64(1+i)) // 1, 2, 3 and 4 units
	}
	if got := mixed.maxIn(100); got != 7 {
		t.Errorf("mixed units: %d, want 7 (3+4 within [99, 199))", got)
	}
}

func TestSampleIdentities(t *testing.T) {
	a := sampleIdentities(1_000_000, 1000, 7)
	b := sampleIdentities(1_000_000, 1000, 7)
	c := sampleIdentities(1_000_000, 1000, 8)
	if len(a) != 1000 {
		t.Fatalf("sampled %d identities, want 1000", len(a))
	}
	slots := make([]bool, 1000)
	same := 0
	for id, slot := range a {
		if id >= 1_000_000 || slot < 0 || slot >= 1000 || slots[slot] {
			t.Fatalf("identity %d in slot %d: out of range or slot reused", id, slot)
		}
		slots[slot] = true
		if b[id] != slot {
			t.Fatalf("the same seed drew a different sample")
		}
		if _, ok := c[id]; ok {
			same++
		}
	}
	// Two independent samples of 1000 in a million share about one.
	if same > 20 {
		t.Errorf("seeds 7 and 8 share %d of 1000 identities", same)
	}
	if all := sampleIdentities(5, 5, 1); len(all) != 5 {
		t.Errorf("a sample of everyone has %d of 5", len(all))
	}
}

// TestAuditorReplaysInServerOrder feeds a fixed window's decisions out of
// order, with one wrong answer and one failed call, and checks every
// figure of the audit.
func TestAuditorReplaysInServerOrder(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond}
	lim := algorithms.NewFixedWindow(nil, p)
	a := New(Config{Limiter: lim, Identities: 3, Sample: 10, Seed: 1})
	const t0 = int64(1_764_000_000_000_000)
	type dec struct {
		id      uint64
		at      int64
		allowed bool
		retry   time.Duration
	}
	decisions := []dec{
		// identity 0: two admitted at the end of its window, two at the
		// start of the next: 4 in 10ms where the bound is 2 x 2. The
		// denial's hint points just past that window's expiry millisecond.
		{0, t0 + 9_500, true, 0}, {0, t0, true, 0}, {0, t0 + 11_000, true, 0}, {0, t0 + 11_000, true, 0}, {0, t0 + 11_001, false, 11 * time.Millisecond},
		// identity 1: Redis admitted a third request the model denies.
		{1, t0 + 2, true, 0}, {1, t0 + 1, true, 0}, {1, t0 + 3, true, 0},
		// identity 2: admitted and denied in the same microsecond, the
		// denial recorded first.
		{2, t0, false, 11 * time.Millisecond}, {2, t0, true, 0}, {2, t0, true, 0},
	}
	for _, d := range decisions {
		record(a, d.id, decided(algorithms.Decision{Allowed: d.allowed, ServerNowMicros: d.at, RetryAfter: d.retry}))
	}
	record(a, 2, &event.Outcome{Err: errors.New("i/o timeout")})
	got, _ := a.result()
	want := result.Audit{
		Identities: 3, Decisions: 11, Allowed: 9, ExpectedAllowed: 8, ModelMismatches: 1,
		MaxWindowAdmitted: 3, BoundWindow: 4, Overshoot: 0, Violations: 0, PolicyExcess: 1, Basis: result.AuditByModel,
	}
	// identity 0's window of t0+9500..t0+11000 holds 3 (t0 itself is out).
	// Identity 0 offered 4 within 10ms, no more than the bound of 4, but
	// the model denied 3 of the 11: the run could have shown an excess;
	// and it admitted 8: a shortfall too.
	wantPower := result.Power{OfferedMaxInWindow: 4, Replayed: true, ExpectedDenied: 3, Excess: true, Shortfall: true, PromiseAdmits: 2, PromiseWithinMs: 11}
	if got.Power == nil || *got.Power != wantPower {
		t.Errorf("power %+v, want %+v", got.Power, wantPower)
	}
	reply := got.Reply
	got.Reply, got.Power = nil, nil
	if *got != want {
		t.Errorf("audit\n got %+v\nwant %+v", *got, want)
	}
	// Both denials' retry hints were checked, and hold.
	if reply == nil || *reply != (result.ReplyCheck{RetryAfterChecked: 2}) {
		t.Errorf("reply check %+v, want 2 retry hints checked, none early", reply)
	}
}

// TestAuditorSeesOvershoot: a limiter that admits everything in a burst
// overshoots its bound, identity by identity.
func TestAuditorSeesOvershoot(t *testing.T) {
	p := algorithms.Policy{Limit: 3, Window: time.Second}
	a := New(Config{Limiter: algorithms.NewSlidingLog(nil, p), Identities: 2, Sample: 10, Seed: 1})
	for id := uint64(0); id < 2; id++ {
		for i := int64(0); i < 5+int64(id); i++ {
			record(a, id, decided(algorithms.Decision{Allowed: true, ServerNowMicros: 1_764_000_000_000_000 + i}))
		}
	}
	got, _ := a.result()
	if got.Overshoot != 2+3 || got.Violations != 2 || got.MaxWindowAdmitted != 6 || got.BoundWindow != 3 || got.PolicyExcess != 3 {
		t.Errorf("audit %+v, want overshoot 5 over 2 identities, max 6 against a bound of 3", *got)
	}
	if got.ModelMismatches != 2+3 || got.ExpectedAllowed != 6 {
		t.Errorf("model: %d mismatches, %d expected; want 5 and 6", got.ModelMismatches, got.ExpectedAllowed)
	}
}

// TestAuditorSamples: past the audit's identity budget only a sample is
// kept, and the result says so.
func TestAuditorSamples(t *testing.T) {
	lim := algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 1, Window: time.Second})
	a := New(Config{Limiter: lim, Identities: 1000, Sample: 10, Seed: 3})
	for id := uint64(0); id < 1000; id++ {
		record(a, id, decided(algorithms.Decision{Allowed: true, ServerNowMicros: 1_764_000_000_000_000}))
	}
	got, _ := a.result()
	if !got.Sampled || got.Identities != 10 || got.Decisions != 10 {
		t.Errorf("audit %+v, want a sample of 10 identities", *got)
	}
	if New(Config{Limiter: lim, Identities: 5, Sample: 0, Seed: 1}) != nil {
		t.Errorf("an audit of zero identities is not off")
	}
}

// BenchmarkAuditMemory audits 1,000,000 decisions over 100,000 identities,
// recorded from several goroutines as a run would, and reports the heap the
// audit held: the live heap once all decisions are in, and the peak sampled
// while recording and replaying. "every-identity" keeps all 100,000 (the
// audit's worst case); "default" keeps the default sample of 10,000. The
// budget is 200 MB.
func BenchmarkAuditMemory(b *testing.B) {
	for _, tc := range []struct {
		name string
		keep int
	}{
		{"every-identity", 100_000},
		{"default", profile.DefaultAuditIdentities},
	} {
		b.Run(tc.name, func(b *testing.B) { benchmarkAudit(b, tc.keep) })
	}
}

func benchmarkAudit(b *testing.B, keep int) {
	const identities, decisions = 100_000, 1_000_000
	lim := algorithms.NewFixedWindow(nil, algorithms.Policy{Limit: 5, Window: time.Second})
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := sampleHeap(&peak)

		a := New(Config{Limiter: lim, Identities: identities, Sample: keep, Seed: 1})
		var wg sync.WaitGroup
		const writers = 8
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 1))
				for i := w; i < decisions; i += writers {
					at := int64(1_764_000_000_000_000) + int64(i)*10 + rng.Int64N(5)
					record(a, uint64(i%identities), decided(algorithms.Decision{Allowed: rng.IntN(3) > 0, ServerNowMicros: at}))
				}
			}(w)
		}
		wg.Wait()
		runtime.GC()
		var held runtime.MemStats
		runtime.ReadMemStats(&held)
		recorded := a.heapBytes()
		res, _ := a.result()
		stop()
		if want := int64(decisions / identities * keep); res.Decisions != want || res.Identities != int64(keep) {
			b.Fatalf("audited %d decisions of %d identities, want %d of %d", res.Decisions, res.Identities, want, keep)
		}
		liveMB := float64(int64(held.HeapAlloc)-int64(base.HeapAlloc)) / 1e6
		peakMB := float64(int64(peak.Load())-int64(base.HeapAlloc)) / 1e6
		b.ReportMetric(liveMB, "live-MB")
		b.ReportMetric(peakMB, "peak-heap-MB")
		// What the result records as memory.audit_heap_bytes.
		b.ReportMetric(float64(recorded)/1e6, "recorded-MB")
		if peakMB > 200 {
			b.Fatalf("the audit's heap peaked at %.0f MB, over the 200 MB budget", peakMB)
		}
	}
}

// sampleHeap records the largest HeapAlloc seen every millisecond until
// the returned function is called (which takes a last sample).
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		for {
			old := peak.Load()
			if m.HeapAlloc <= old || peak.CompareAndSwap(old, m.HeapAlloc) {
				return
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() { close(done); wg.Wait(); sample() }
}

// TestAuditorMeasuresTheEdge: around an identity's window boundary, the
// edge curve counts its admissions in the window ending at each
// millisecond, counting each stamp in from its own microsecond and out one
// window later. An identity whose boundary is unknown (its prime failed)
// is left out.
func TestAuditorMeasuresTheEdge(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: 100 * time.Millisecond}
	a := New(Config{Limiter: algorithms.NewFixedWindow(nil, p), Identities: 3, Sample: 10, Seed: 1})
	a.watchEdges(-5, 5)
	const boundary = int64(1_764_000_000_000_000)
	a.Boundary(0, boundary)
	for _, at := range []int64{boundary - 100_000, boundary - 2_000, boundary + 2_000} {
		record(a, 0, decided(algorithms.Decision{Allowed: true, ServerNowMicros: at}))
	}
	record(a, 1, decided(algorithms.Decision{Allowed: true, ServerNowMicros: boundary})) // no boundary known
	_, edge := a.result()
	if edge == nil || edge.Identities != 1 || edge.FromMs != -5 || edge.WindowMs != 100 || len(edge.MaxInWindow) != 11 {
		t.Fatalf("edge %+v, want one identity over -5..5ms of a 100ms window", edge)
	}
	// At -5ms the prime (-100ms) is still in the window ending then; at
	// -2ms the first admission joins; the prime leaves at 0ms (the window
	// is (end-100ms, end]); at +2ms the next one joins.
	want := []int64{1, 1, 1, 2, 2, 1, 1, 2, 2, 2, 2}
	for i, w := range want {
		if edge.MaxInWindow[i] != w || edge.MeanInWindow[i] != float64(w) {
			t.Errorf("at %+dms: max %d mean %v, want %d", int64(i)+edge.FromMs, edge.MaxInWindow[i], edge.MeanInWindow[i], w)
		}
	}
}

// TestAuditorComparesWithTheExactWindow: the sliding counter's decisions
// are replayed through its own model and, for the comparison, through the
// sliding log's, which keeps its own state. Two admitted at the end of a
// window and two just after the next one begins: the counter weighs the
// first two by what the rolling window still covers, the log counts them
// in full and denies both; later the log admits one the counter denies.
func TestAuditorComparesWithTheExactWindow(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond}
	a := New(Config{Limiter: algorithms.NewSlidingCounter(nil, p), Identities: 1, Sample: 10, Seed: 1})
	const w1 = int64(1_764_000_000_130_000) // a window starts here
	for _, d := range []struct {
		at        int64
		allowed   bool
		remaining string
	}{
		{w1 - 2, true, "1"}, {w1 - 1, true, "0"}, // the log holds both until w1 + 9_998
		{w1 + 1, true, "0"},      // counter: 2 x 9_999/10_000 < 2; log: full
		{w1 + 5_000, false, "0"}, // both deny
		{w1 + 5_001, true, "0"},  // counter: 2 x 4_999/10_000 + 1 < 2; log: full
		{w1 + 9_998, false, "0"}, // counter: 2 in this window; log: w1-2 has left, so it admits
	} {
		var retry time.Duration
		if !d.allowed {
			retry = time.Millisecond
		}
		record(a, 0, decided(algorithms.Decision{Allowed: d.allowed, Remaining: d.remaining, RetryAfter: retry, ServerNowMicros: d.at}))
	}
	got, _ := a.result()
	want := result.ExactComparison{Algorithm: algorithms.SlidingLogName, Decisions: 6, Differ: 3, AdmittedBeyond: 2, DeniedWithin: 1}
	if got.VsExact == nil || *got.VsExact != want {
		t.Errorf("comparison %+v, want %+v", got.VsExact, want)
	}
	if got.ModelMismatches != 0 || got.MaxWindowAdmitted != 4 || got.BoundWindow != 4 {
		t.Errorf("audit %+v: want the counter's own model agreeing, 4 in one window within its bound of 4", *got)
	}
}

// TestAuditorJudgesClientTimedRepliesByBound: a limiter with a model whose
// replies carry no server time (the fixed window without Lua) is not
// replayed at client times, which would mismatch by the round trip: it is
// judged by its bound on the client's clock.
func TestAuditorJudgesClientTimedRepliesByBound(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Window: 10 * time.Millisecond}
	a := New(Config{Limiter: algorithms.NewFixedWindowNX(nil, p), Identities: 1, Sample: 10, Seed: 1})
	sent := time.UnixMicro(1_764_000_000_000_000)
	for i := 0; i < 3; i++ {
		at := sent.Add(time.Duration(i) * time.Millisecond)
		record(a, 0, &event.Outcome{Decision: algorithms.Decision{Allowed: i < 2, Remaining: "0", RetryAfter: time.Millisecond * time.Duration(i/2)},
			Sent: at, Done: at.Add(100 * time.Microsecond)})
	}
	got, _ := a.result()
	if got.Basis != result.AuditByBoundClientTime || got.HasModel() || got.ExpectedAllowed != 0 || got.ModelMismatches != 0 || got.Reply != nil {
		t.Errorf("audit %+v: want judged by the bound on client time, no replay", *got)
	}
	if got.Allowed != 2 || got.MaxWindowAdmitted != 2 || got.Overshoot != 0 {
		t.Errorf("audit %+v: want 2 admitted within the bound", *got)
	}
}
