package probe

import (
	"context"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestReferenceOfARunTooShortForATick: a reference halted before its
// ticker ever fired (a run shorter than a tick, or a machine too busy to
// keep one) still holds one PING and one script call, not an empty
// reference the run would go without.
func TestReferenceOfARunTooShortForATick(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	if err := referenceScript.Load(ctx, rdb); err != nil {
		t.Fatal(err)
	}
	s := &Reference{
		t:    Target{Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}, Timeout: 2 * time.Second},
		stop: make(chan struct{}), done: make(chan struct{}),
		ping: result.NewHistogram(), script: result.NewHistogram(),
	}
	// Halted before it starts: the sampler finds its stop before any tick.
	s.stopOnce.Do(func() { close(s.stop) })
	s.sample(ctx)
	if s.ping.Count() < 1 || s.script.Count() < 1 || s.calls != s.ping.Count()+s.script.Count() {
		t.Errorf("%d PINGs, %d scripts, %d calls: want at least one of each, every call counted", s.ping.Count(), s.script.Count(), s.calls)
	}
}
