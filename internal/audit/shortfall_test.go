package audit

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// TestShortfallOnClientTimes: for every semantics, a limiter whose replies
// carry no server time is held to its promise to admit, on the client's
// times. A correct one (its decisions are the reference model's) answered
// on a busy machine — round trips from 100us to 30ms — is never blamed;
// one that admits a sixth of its limit (a period declared in the wrong
// unit) is caught.
func TestShortfallOnClientTimes(t *testing.T) {
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
			model := exact.(algorithms.Auditable).Model()
			lim := declare(t, sem, algorithms.ReplyLayout{Allowed: 1}, algorithms.Promise{}, p)
			a := New(Config{Limiter: lim, Identities: 1, Sample: 1, Seed: 1})
			rng := rand.New(rand.NewPCG(uint64(len(sem)), 3))
			at := t0
			for i := 0; i < 3000; i++ {
				at += rng.Int64N(60_000) // 30 requests a second per window on average, some bursts
				before := rng.Int64N(15_000) + 50
				after := rng.Int64N(15_000) + 50
				record(a, 0, clientTimed(model.Allow(at), at-before, before+after))
			}
			got, _ := a.result()
			switch {
			case !broken && got.UnderAdmitted != 0:
				t.Errorf("%s, correct: %d denials blamed as under-admission", sem, got.UnderAdmitted)
			case broken && got.UnderAdmitted == 0:
				t.Errorf("%s, admitting a sixth: no under-admission found", sem)
			}
			if got.Power == nil || !got.Power.Shortfall || got.Power.PromiseAdmits == 0 {
				t.Errorf("%s: power %+v, want the promise stated", sem, got.Power)
			}
		}
	}
}
