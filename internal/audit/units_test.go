package audit

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
)

// TestRequestsOfSeveralUnits: with a cost per request, the audit replays
// each request's units through the model and counts the bound in units.
// For every semantics, a limiter that decides as its model does with the
// costs passes; one that decides as if each request asked for one unit
// (the cost never reached the script) mismatches the model and, where its
// replies carry the server's time, overshoots the bound in units; and,
// without server time, one that admits a sixth of the promise in units is
// caught by the lower bound.
func TestRequestsOfSeveralUnits(t *testing.T) {
	const t0 = int64(1_764_000_000_000_000)
	p := algorithms.Policy{Limit: 12, Window: 600 * time.Millisecond}
	for _, sem := range algorithms.ModelSemantics() {
		for _, tc := range []struct {
			why        string
			ignoreCost bool
		}{{"deciding in units", false}, {"ignoring the cost", true}} {
			exact, err := algorithms.New(string(sem), nil, p)
			if err != nil {
				t.Fatal(err)
			}
			model := exact.(algorithms.Auditable).Model().(algorithms.CostModel)
			lim := declare(t, sem, algorithms.ReplyLayout{Allowed: 1, ServerTimeUs: 2}, algorithms.Promise{}, p)
			a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Seed: 1})
			rng := rand.New(rand.NewPCG(uint64(len(sem)), 5))
			at := t0
			for i := 0; i < 2000; i++ {
				at += rng.Int64N(40_000)
				cost := 1 + rng.Int64N(4)
				asked := cost
				if tc.ignoreCost {
					asked = 1
				}
				allowed := model.AllowN(at, asked)
				record(a, 0, decided(algorithms.Decision{Allowed: allowed, ServerNowMicros: at, Cost: cost}))
			}
			got, _ := a.result()
			bound := lim.(algorithms.Bounded).Bound(p.Window)
			switch {
			case !tc.ignoreCost && (got.ModelMismatches != 0 || got.Overshoot != 0 || got.MaxWindowAdmitted > bound):
				t.Errorf("%s, %s: %d mismatches, %d overshoot, %d units in a window against %d", sem, tc.why, got.ModelMismatches, got.Overshoot, got.MaxWindowAdmitted, bound)
			case tc.ignoreCost && got.ModelMismatches == 0:
				t.Errorf("%s, %s: no mismatch", sem, tc.why)
			case tc.ignoreCost && got.MaxWindowAdmitted <= bound:
				t.Errorf("%s, %s: %d units in a window, within the bound of %d", sem, tc.why, got.MaxWindowAdmitted, bound)
			}
			if !tc.ignoreCost && (got.Power == nil || !got.Power.Excess) {
				t.Errorf("%s, %s: power %+v, want an excess that could show", sem, tc.why, got.Power)
			}
		}
	}
}

// TestShortfallInUnits: without server time, the promise to admit counts
// units: a correct limiter of requests of 1 to 4 units is not blamed, one
// that admits a sixth of its limit in units is.
func TestShortfallInUnits(t *testing.T) {
	const t0 = int64(1_764_000_000_000_000)
	p := algorithms.Policy{Limit: 12, Window: 600 * time.Millisecond}
	for _, sem := range algorithms.ModelSemantics() {
		for _, broken := range []bool{false, true} {
			truth := p
			if broken {
				truth.Limit, truth.Burst = p.Limit/6, p.Limit/6
			}
			exact, err := algorithms.New(string(sem), nil, truth)
			if err != nil {
				t.Fatal(err)
			}
			model := exact.(algorithms.Auditable).Model().(algorithms.CostModel)
			lim := declare(t, sem, algorithms.ReplyLayout{Allowed: 1}, algorithms.Promise{}, p)
			a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Seed: 1})
			rng := rand.New(rand.NewPCG(uint64(len(sem)), 7))
			at := t0
			for i := 0; i < 3000; i++ {
				at += rng.Int64N(120_000)
				cost := 1 + rng.Int64N(2)
				before, after := rng.Int64N(15_000)+50, rng.Int64N(15_000)+50
				o := clientTimed(model.AllowN(at, cost), at-before, before+after)
				o.Decision.Cost = cost
				record(a, 0, o)
			}
			got, _ := a.result()
			switch {
			case !broken && got.UnderAdmitted != 0:
				t.Errorf("%s, correct: %d denials blamed as under-admission", sem, got.UnderAdmitted)
			case broken && got.UnderAdmitted == 0:
				t.Errorf("%s, admitting a sixth: no under-admission found", sem)
			}
		}
	}
}

// TestUnseenCallsKeepTheirUnits: a call of three units whose outcome is
// unknown, placed by the replay, takes three units: the denial right
// after it, which only a call of three explains, is no mismatch.
func TestUnseenCallsKeepTheirUnits(t *testing.T) {
	const t0 = int64(1_764_000_000_000_000)
	p := algorithms.Policy{Limit: 4, Window: time.Second}
	lim := algorithms.NewSlidingLog(nil, p)
	a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Seed: 1, Timeline: Timeline{Start: time.UnixMicro(t0)}, UnseenFromOutcomes: true})
	record(a, 0, decided(algorithms.Decision{Allowed: true, Remaining: "3", ServerNowMicros: t0 + 1000, Cost: 1}))
	// Timed out: it may have run, and asked for three.
	record(a, 0, &event.Outcome{Err: context.DeadlineExceeded, MayHaveRun: true, Decision: algorithms.Decision{Cost: 3},
		Sent: time.UnixMicro(t0 + 2000), Done: time.UnixMicro(t0 + 3000)})
	// One unit left only if it ran: a request of two is denied.
	record(a, 0, decided(algorithms.Decision{Allowed: false, Remaining: "0", ServerNowMicros: t0 + 4000, Cost: 2}))
	got, _ := a.result()
	if got.ModelMismatches != 0 {
		t.Errorf("%d mismatches: the unseen call's three units were not placed", got.ModelMismatches)
	}
}

// TestLinearBound: for every bucket, what its reference model admits under
// random traffic (bursts included) keeps capacity + rate x interval over
// every interval between two admissions; a bucket of one token more, which
// keeps its bound over a window, breaks it over its first burst.
func TestLinearBound(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Window: time.Second}
	for _, name := range []string{algorithms.TokenBucketName, algorithms.LeakyBucketName, algorithms.GCRAName} {
		for _, extra := range []int64{0, 1} {
			truth := p
			truth.Burst = p.Capacity() + extra
			lim, err := algorithms.New(name, nil, truth)
			if err != nil {
				t.Fatal(err)
			}
			model := lim.(algorithms.Auditable).Model().(algorithms.CostModel)
			rng := rand.New(rand.NewPCG(uint64(len(name)), uint64(extra)))
			var admitted tally
			at := int64(1_764_000_000_000_000)
			for i := 0; i < 20_000; i++ {
				if rng.IntN(50) == 0 {
					at += rng.Int64N(3_000_000) // silence: the bucket fills up
				} else {
					at += rng.Int64N(5_000)
				}
				units := 1 + rng.Int64N(3)
				if model.AllowN(at, units) {
					admitted.add(at, units)
				}
			}
			got := linearBeyond(&admitted, p.Capacity(), p.Limit, p.WindowMicros())
			window := admitted.maxIn(p.WindowMicros())
			switch {
			case extra == 0 && got != 0:
				t.Errorf("%s: a correct bucket is %d beyond its linear bound", name, got)
			case extra == 1 && got == 0:
				t.Errorf("%s: a bucket of one token more keeps its linear bound (%d in a window)", name, window)
			}
		}
	}
}
