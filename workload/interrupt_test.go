package workload_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// leakingWindow is a fixed window whose counter never expires: the key
// census is what finds it out.
const leakingWindow = `local n = redis.call('INCR', KEYS[1])
if n > tonumber(ARGV[1]) then return {0, '0', 100} end
return {1, tostring(tonumber(ARGV[1]) - n), 0}
`

// leakingProfile runs leakingWindow in steady traffic over a few
// identities, briefly.
const leakingProfile = `
policy: {limit: 5, window: 1s}
algorithms:
  - name: leaky
    script: leak.lua
    keys: ["c:{${identity}}"]
    args: ["${limit}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
concurrency: 2
scenarios:
  - name: s
    shape: steady
    rate: 200/s
    identities: 4
    duration: 300ms
`

// onCommand calls fn once, synchronously, when rdb is about to send the
// first command named name whose arguments include one containing arg:
// whatever fn does has happened before the command reaches Redis.
type onCommand struct {
	name, arg string
	once      sync.Once
	fn        func()
}

func (h *onCommand) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *onCommand) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if strings.EqualFold(cmd.Name(), h.name) {
			for _, a := range cmd.Args() {
				if s, ok := a.(string); ok && strings.Contains(s, h.arg) {
					h.once.Do(h.fn)
					break
				}
			}
		}
		return next(ctx, cmd)
	}
}

func (h *onCommand) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestAnInterruptDuringTheCensusIsIncomplete: the interrupt arrives as the
// last run's key census sends its first SCAN (certain: the hook cancels
// before the command goes out). The census still runs to its end on a
// context of its own and finds the keys left without a TTL, the run and
// the result are marked incomplete, Run reports ErrInterrupted, and no key
// of the run is left behind.
func TestAnInterruptDuringTheCensusIsIncomplete(t *testing.T) {
	rdb := redistest.Client(t)
	p := declaredProfile(t, leakingProfile, map[string]string{"leak.lua": leakingWindow})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.External}, RunID: "census1"}
	rdb.AddHook(&onCommand{name: "scan", arg: runner.RunPrefix() + "leaky:", fn: cancel})

	res, err := runner.Run(ctx)
	if !errors.Is(err, workload.ErrInterrupted) {
		t.Fatalf("Run: %v, want ErrInterrupted", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the census sent no SCAN: the interrupt never came")
	}
	if res.Complete || !strings.Contains(res.IncompleteReason, "interrupted") {
		t.Errorf("result complete %v (%q): an interrupted invocation is never complete", res.Complete, res.IncompleteReason)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs, want the one measured", len(res.Runs))
	}
	run := res.Runs[0]
	if !run.Incomplete {
		t.Errorf("the run is not marked incomplete")
	}
	if m := run.Memory; m == nil || m.CensusFailed || m.Keys != 4 || m.KeysWithoutTTL != 4 {
		t.Errorf("memory %+v: want the census finished, four keys without a TTL", m)
	}
	if n := countKeys(t, rdb, runner.RunPrefix()+"*"); n != 0 {
		t.Errorf("%d keys left under %s", n, runner.RunPrefix())
	}
}

// phaseInterrupter cancels a run's context as the run enters one phase.
type phaseInterrupter struct {
	at     workload.Phase
	cancel context.CancelFunc
	seen   []workload.Phase
	mu     sync.Mutex
}

func (o *phaseInterrupter) RunStarted(*workload.Progress)               {}
func (o *phaseInterrupter) RunFinished(*workload.Progress, *result.Run) {}
func (o *phaseInterrupter) RunPhase(_ *workload.Progress, ph workload.Phase) {
	o.mu.Lock()
	o.seen = append(o.seen, ph)
	o.mu.Unlock()
	if ph == o.at {
		o.cancel()
	}
}

// TestAnInterruptInAnyPhaseIsIncomplete: whatever phase of a run the
// interrupt comes in (the warm-up included, and the removal of the keys
// after the readings), Run says ErrInterrupted, the result is incomplete,
// later runs do not start, and no key of the invocation is left.
func TestAnInterruptInAnyPhaseIsIncomplete(t *testing.T) {
	rdb := redistest.Client(t)
	body := strings.Replace(leakingProfile, "concurrency: 2", "concurrency: 2\nwarmup: 100ms", 1) + `
  - name: later
    shape: steady
    rate: 100/s
    identities: 2
    duration: 100ms
`
	p := declaredProfile(t, body, map[string]string{"leak.lua": leakingWindow})
	for _, ph := range []workload.Phase{workload.PhasePrepare, workload.PhaseWarmUp, workload.PhaseStart,
		workload.PhaseTraffic, workload.PhaseReadings, workload.PhaseCleanup} {
		t.Run(string(ph), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			obs := &phaseInterrupter{at: ph, cancel: cancel}
			runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.External},
				RunID: "phase-" + string(ph), Observer: obs}
			res, err := runner.Run(ctx)
			if !errors.Is(err, workload.ErrInterrupted) {
				t.Errorf("Run: %v, want ErrInterrupted", err)
			}
			if res.Complete {
				t.Errorf("the result is complete")
			}
			for _, r := range res.Runs {
				if r.Scenario == "later" {
					t.Errorf("the later scenario ran after the interrupt")
				}
				if !r.Incomplete {
					t.Errorf("run %s/%s kept, not marked incomplete", r.Algorithm, r.Scenario)
				}
			}
			if !slices.Contains(obs.seen, ph) {
				t.Fatalf("phase %s never began: saw %v", ph, obs.seen)
			}
			if n := countKeys(t, rdb, runner.RunPrefix()+"*"); n != 0 {
				t.Errorf("%d keys left under %s", n, runner.RunPrefix())
			}
		})
	}
}
