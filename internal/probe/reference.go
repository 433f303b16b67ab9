package probe

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
)

// referenceCommand is how the trivial script is called: read-only, so
// that its statistics stay apart from a limiter's.
const referenceCommand = "evalsha_ro"

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
	ping, script *result.Histogram
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
	if t.Env.Mode == redisenv.Embedded || !t.allows(redisenv.CmdEvalShaRO) {
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
// workers need. A run too short, or a machine too busy, for the ticker to
// fire twice still gets one PING and one script call, made as the traffic
// ends: a reference of each kind, never an empty one.
func (s *Reference) sample(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(referenceInterval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			if s.ping.Count() == 0 {
				s.call(ctx, true)
			}
			if s.script.Count() == 0 {
				s.call(ctx, false)
			}
			return
		case <-tick.C:
		}
		s.call(ctx, n%2 == 0)
	}
}

// call makes one reference call, a PING or the trivial script, and
// records its latency when it succeeded.
func (s *Reference) call(ctx context.Context, ping bool) {
	cctx, cancel := context.WithTimeout(ctx, s.t.Timeout)
	defer cancel()
	rdb := s.t.Env.Client
	sent := time.Now()
	var err error
	hist := s.ping
	if ping {
		err = rdb.Ping(cctx).Err()
	} else {
		hist = s.script
		err = rdb.EvalShaRO(cctx, referenceScript.SHA1(), nil).Err()
	}
	took := time.Since(sent)
	if err == nil {
		s.calls++
		hist.Record(result.HistMicros(took))
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
// script (servercost.go), unless the run failed, and reports the
// reference, and the ratio of the limiter's server cost to the trivial
// script's (zero when it was not measured), for result.NewRelative. It
// runs after the probes, so that its own calls are in none of the run's
// figures, with the run's keys still there, so that it measures the
// keyspace the run had. Its own keys lie beside the run's, under
// CostPrefix(prefix): the caller removes them after the run's, so that
// the SCAN that finds them walks a keyspace without the run's (a million
// keys took it a second). A nil Reference reports nothing.
func (s *Reference) Finish(ctx context.Context, lim algorithms.Limiter, prefix string, runErr error) (*result.Reference, result.CostRatio) {
	if s == nil {
		return nil, result.CostRatio{}
	}
	s.Halt(ctx)
	if s.ping.Count() == 0 {
		return nil, result.CostRatio{}
	}
	ref := &result.Reference{
		PingUs:         result.Digest(s.ping),
		ScriptUs:       result.Digest(s.script),
		Calls:          s.calls,
		ThroughputPerS: result.Mean(s.throughput),
	}
	var cost result.CostRatio
	if runErr == nil && s.t.allows(redisenv.CmdInfo) {
		var m costMeasurement
		m, cost = s.t.serverCost(ctx, lim, CostPrefix(prefix))
		ref.LimiterUsecPerCall, ref.UsecPerCall, ref.CostRounds = m.limiterUsec, m.scriptUsec, m.rounds
		s.t.sweepAfterCost(ctx, lim)
	}
	return ref, cost
}

// CostPrefix is where Finish measures the server cost of a run whose keys
// lie under prefix: beside them, not under them.
func CostPrefix(prefix string) string { return strings.TrimSuffix(prefix, ":") + "~cost:" }

// CostKeys is how many identities the server cost decides, each once,
// under CostPrefix: CostKey(costPrefix, 0) to CostKey(costPrefix,
// CostKeys-1), so that they can be removed by name where SCAN is refused.
const CostKeys = costRounds * costDecisions

// CostKey is the i-th identity's key under costPrefix.
func CostKey(costPrefix string, i int) string { return costPrefix + strconv.Itoa(i) }

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
