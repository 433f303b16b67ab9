package probe

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// The reference: what trivial calls cost on the same server, through the
// same client, around and during each run. The run's own figures are
// divided by it (result.Relative): a machine that is uniformly slower or
// busier moves both alike, so the ratios can be compared where absolute
// figures cannot.
const (
	// referenceInterval is how often a reference call goes out while a
	// run's traffic goes on; calls alternate between PING and the script.
	referenceInterval = time.Millisecond
	// referenceBurst is how long the closed-loop reference runs before and
	// after a closed-loop run.
	referenceBurst = 150 * time.Millisecond
	// costCalls is how many decisions, each followed by a call of the
	// trivial script, one round of the server-cost measurement makes, over
	// costKeys keys; costRounds how many rounds it makes.
	costCalls  = 60
	costKeys   = 10
	costRounds = 5
)

// referenceScript is the trivial script: it reads TIME, as every limiter
// does, and replies like one, touching no key. It is called with
// EVALSHA_RO, so its statistics (cmdstat_evalsha_ro) stay apart from the
// limiters' EVALSHA.
var referenceScript = algorithms.NewScript("reference", `-- reference: what a script that does nothing costs; no KEYS, no ARGV.
local t = redis.call('TIME')
return {1, '0', 0, tonumber(t[1]) * 1000000 + tonumber(t[2])}
`)

// Reference measures the reference of one run.
type Reference struct {
	t        Target
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	// closedLoop is the run's concurrency when it is a closed loop.
	closedLoop int

	// Written by the sampling goroutine, read after done is closed.
	ping, script *hdrhistogram.Histogram
	calls        int64
	// throughput are the closed-loop reference's rates, before and after
	// a closed-loop run.
	throughput []float64
}

// StartReference loads the trivial script and starts sampling it and PING
// while the run's traffic goes on; before a closed-loop run of concurrency
// goroutines, it first measures how fast they get through the trivial
// script in closed loop. It returns nil, and the run gets no reference, on
// the embedded server (its figures are not Redis figures) or when the
// script cannot be loaded.
func StartReference(ctx context.Context, t Target, closedLoop bool, concurrency int) *Reference {
	if t.Env.Mode == redisenv.Embedded {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	if err := referenceScript.Load(lctx, t.Env.Client); err != nil {
		return nil
	}
	s := &Reference{
		t:    t,
		stop: make(chan struct{}), done: make(chan struct{}),
		ping: result.NewHistogram(), script: result.NewHistogram(),
	}
	if closedLoop {
		s.closedLoop = concurrency
		s.throughput = append(s.throughput, t.referenceThroughput(ctx, concurrency))
	}
	go s.sample(context.WithoutCancel(ctx))
	return s
}

// referenceThroughput is how many trivial scripts a second concurrency
// goroutines get through in closed loop for referenceBurst.
func (t Target) referenceThroughput(ctx context.Context, concurrency int) float64 {
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(referenceBurst)
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				cctx, cancel := context.WithTimeout(ctx, t.Timeout)
				if t.Env.Client.EvalShaRO(cctx, referenceScript.SHA1(), nil).Err() == nil {
					done.Add(1)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// sample is the sampling goroutine. Reference calls are timed from their
// send, like the run's uncorrected latency, on a plain ticker (which skips
// the ticks it could not keep), so the sampler never holds a CPU the run's
// workers need.
func (s *Reference) sample(ctx context.Context) {
	defer close(s.done)
	rdb := s.t.Env.Client
	tick := time.NewTicker(referenceInterval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, s.t.Timeout)
		sent := time.Now()
		var err error
		hist := s.ping
		if n%2 == 0 {
			err = rdb.Ping(cctx).Err()
		} else {
			hist = s.script
			err = rdb.EvalShaRO(cctx, referenceScript.SHA1(), nil).Err()
		}
		took := time.Since(sent)
		cancel()
		if err == nil {
			s.calls++
			_ = hist.RecordValue(result.HistMicros(took))
		}
	}
}

// Halt stops sampling, as the run's traffic ends, and waits for the
// sampling goroutine; after a closed-loop run it measures the closed-loop
// reference again. Calling it again does nothing. A nil sampler has
// nothing to stop.
func (s *Reference) Halt(ctx context.Context) {
	if s == nil {
		return
	}
	s.stopOnce.Do(func() {
		close(s.stop)
		<-s.done
		if s.closedLoop > 0 {
			s.throughput = append(s.throughput, s.t.referenceThroughput(context.WithoutCancel(ctx), s.closedLoop))
		}
	})
}

// Finish measures the server cost of lim's decisions against the trivial
// script, unless the run failed, and reports the reference, and the
// ratio of the limiter's server cost to the trivial script's (0 when it
// was not measured), for result.NewRelative. It runs after the probes, so
// that its own calls are in none of the run's figures, and uses keys of
// its own beside the run's (prefix~cost:N), which it removes. A nil
// Reference reports nothing.
func (s *Reference) Finish(ctx context.Context, lim algorithms.Limiter, prefix string, runErr error) (*result.Reference, float64) {
	if s == nil {
		return nil, 0
	}
	s.Halt(ctx)
	if s.ping.TotalCount() == 0 {
		return nil, 0
	}
	ref := &result.Reference{
		PingUs:         result.Digest(s.ping),
		ScriptUs:       result.Digest(s.script),
		Calls:          s.calls,
		ThroughputPerS: result.Mean(s.throughput),
	}
	var cost float64
	if runErr == nil {
		costPrefix := strings.TrimSuffix(prefix, ":") + "~cost:"
		ref.LimiterUsecPerCall, ref.UsecPerCall, cost = s.t.serverCost(ctx, lim, costPrefix)
		_ = s.t.Env.RemoveKeys(costPrefix)
		s.t.sweepAfterCost(ctx, lim)
	}
	return ref, cost
}

// serverCost interleaves, costRounds times, costCalls decisions of lim
// (over costKeys keys under prefix) with as many calls of the trivial
// script, each call of one followed by a call of the other, and reads the
// server time each took from INFO commandstats around every round. Side by
// side, both meet the same server: idle or busy, its CPU taken away or
// not. It returns the limiter's and the trivial script's time per call and
// the ratio of the two, each the median over the rounds; all zero when the
// limiter does not say which commands its decisions run (the naive
// counter), or when a call failed. A decision of several commands (the
// fixed window without Lua) costs their times per call together.
func (t Target) serverCost(ctx context.Context, lim algorithms.Limiter, prefix string) (limUsec, refUsec, ratio float64) {
	command := algorithms.CommandOf(lim)
	if command == "evalsha_ro" {
		return 0, 0, 0
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Timeout+5*time.Second)
	defer cancel()
	rdb := t.Env.Client
	// A decision of several commands ("multi+exec") costs their times
	// per call together (CommandStats.PerDecision).
	names := append(strings.Split(command, "+"), "evalsha_ro")
	n := len(names) - 1
	var lims, refs, ratios []float64
	for range costRounds {
		before, err := redisenv.ReadCommandStats(ctx, rdb, names...)
		if err != nil {
			return 0, 0, 0
		}
		for i := range costCalls {
			if _, err := lim.Allow(ctx, prefix+strconv.Itoa(i%costKeys)); err != nil {
				return 0, 0, 0
			}
			if err := rdb.EvalShaRO(ctx, referenceScript.SHA1(), nil).Err(); err != nil {
				return 0, 0, 0
			}
		}
		after, err := redisenv.ReadCommandStats(ctx, rdb, names...)
		if err != nil {
			return 0, 0, 0
		}
		l, f := after[:n].Sub(before[:n]).PerDecision(), after[n].Sub(before[n])
		if l.Calls != costCalls || f.Calls < costCalls || f.Usec <= 0 {
			return 0, 0, 0
		}
		lims, refs = append(lims, l.UsecPerCall()), append(refs, f.UsecPerCall())
		ratios = append(ratios, l.UsecPerCall()/f.UsecPerCall())
	}
	return result.Median(lims), result.Median(refs), result.Median(ratios)
}

// sweepAfterCost removes, on a server rlbench started, the keys a declared
// limiter's script wrote outside its prefix while its server cost was
// measured: the run's own were counted and removed already, and these are
// none of the next run's doing.
func (t Target) sweepAfterCost(ctx context.Context, lim algorithms.Limiter) {
	if _, declared := lim.(keyOwner); !declared || t.Env.Mode != redisenv.Private {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Timeout+5*time.Second)
	defer cancel()
	_, _ = redisenv.SweepOutside(ctx, t.Env.Client, t.Env.Mode, t.RunPrefix, 0)
}
