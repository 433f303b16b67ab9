package workload

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// The reference: while a run's traffic goes on, one more goroutine sends
// PING and a trivial script on a fixed schedule through the same client,
// and reads the server's command statistics slice by slice. What those
// calls cost at that moment, on that server, is what the run's own figures
// are divided by (result.Relative): a machine that is uniformly slower or
// busier moves both alike, so the ratios can be compared where absolute
// figures cannot.
const (
	// referenceInterval is how often a reference call goes out; calls
	// alternate between PING and the script.
	referenceInterval = time.Millisecond
	// referenceSlice is how often the server's command statistics are
	// read. The server time per call is the median over slices of the
	// mean within one: a pause that stalls the server in one slice (a busy
	// machine takes the CPU from it mid-command) inflates that slice's
	// mean and, through it, the run's, but not the median.
	referenceSlice = 100 * time.Millisecond
	// minSliceCalls is the fewest calls of a command a slice must hold to
	// give that command a mean.
	minSliceCalls = 10
)

// referenceSource is the trivial script: it reads TIME, as every limiter
// does, and replies like one, touching no key. It is called with
// EVALSHA_RO, so its statistics (cmdstat_evalsha_ro) stay apart from the
// limiters' EVALSHA.
var referenceScript = algorithms.NewScript("reference", `-- reference: what a script that does nothing costs; no KEYS, no ARGV.
local t = redis.call('TIME')
return {1, '0', 0, tonumber(t[1]) * 1000000 + tonumber(t[2])}
`)

// referenceBurst is how long the closed-loop reference runs before and
// after a closed-loop run.
const referenceBurst = 150 * time.Millisecond

// referenceSampler runs the reference alongside one run.
type referenceSampler struct {
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	// closedLoop is the run's concurrency when it is a closed loop.
	closedLoop int

	// Written by the sampling goroutine, read after done is closed.
	ping, script    *hdrhistogram.Histogram
	calls           int64
	// throughput are the closed-loop reference's rates, before and after
	// a closed-loop run.
	throughput []float64
	limiterSlices   []float64 // mean EVALSHA server time per call, per slice
	referenceSlices []float64 // mean EVALSHA_RO server time per call, per slice
	// costRatios is, per slice where both ran, the limiter's mean over the
	// reference's: paired within a slice, the ratio does not move with
	// what changes from one slice to the next (the server idle or busy, a
	// CPU taken away for a while).
	costRatios []float64
}

// startReference loads the trivial script and starts sampling; before a
// closed-loop run of concurrency goroutines, it first measures how fast
// they get through the trivial script in closed loop. It returns nil, and
// the run gets no reference, on the embedded server (its figures are not
// Redis figures) or when the script cannot be loaded.
func (r *Runner) startReference(ctx context.Context, closedLoop bool, concurrency int) *referenceSampler {
	if r.Env.Mode == redisenv.Embedded {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout)
	defer cancel()
	if err := referenceScript.Load(lctx, r.Env.Client); err != nil {
		return nil
	}
	s := &referenceSampler{
		stop: make(chan struct{}), done: make(chan struct{}),
		ping: result.NewHistogram(), script: result.NewHistogram(),
	}
	if closedLoop {
		s.throughput = append(s.throughput, r.referenceThroughput(ctx, concurrency))
		s.closedLoop = concurrency
	}
	go s.sample(context.WithoutCancel(ctx), r)
	return s
}

// referenceThroughput is how many trivial scripts a second concurrency
// goroutines get through in closed loop for referenceBurst.
func (r *Runner) referenceThroughput(ctx context.Context, concurrency int) float64 {
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(referenceBurst)
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				cctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout)
				if r.Env.Client.EvalShaRO(cctx, referenceScript.SHA1(), nil).Err() == nil {
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
func (s *referenceSampler) sample(ctx context.Context, r *Runner) {
	defer close(s.done)
	rdb := r.Env.Client
	readStats := func() ([]redisenv.CommandStat, error) {
		sctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout)
		defer cancel()
		return redisenv.ReadCommandStats(sctx, rdb, "evalsha", "evalsha_ro")
	}
	prev, statsErr := readStats()
	slice := func() {
		if statsErr != nil {
			return
		}
		cur, err := readStats()
		if err != nil {
			statsErr = err
			return
		}
		lim, ref := cur[0].Sub(prev[0]), cur[1].Sub(prev[1])
		if lim.Calls >= minSliceCalls {
			s.limiterSlices = append(s.limiterSlices, lim.UsecPerCall())
		}
		if ref.Calls >= minSliceCalls {
			s.referenceSlices = append(s.referenceSlices, ref.UsecPerCall())
		}
		if lim.Calls >= minSliceCalls && ref.Calls >= minSliceCalls && ref.Usec > 0 {
			s.costRatios = append(s.costRatios, lim.UsecPerCall()/ref.UsecPerCall())
		}
		prev = cur
	}
	tick := time.NewTicker(referenceInterval)
	defer tick.Stop()
	nextSlice := time.Now().Add(referenceSlice)
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			slice()
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout)
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
			_ = hist.RecordValue(clampMicros(took))
		}
		if now := time.Now(); !now.Before(nextSlice) {
			slice()
			nextSlice = now.Add(referenceSlice)
		}
	}
}

// halt stops sampling, as the run's traffic ends, and waits for the
// sampling goroutine; after a closed-loop run it measures the closed-loop
// reference again. Calling it again does nothing. A nil sampler has
// nothing to stop.
func (s *referenceSampler) halt(ctx context.Context, r *Runner) {
	if s == nil {
		return
	}
	s.stopOnce.Do(func() {
		close(s.stop)
		<-s.done
		if s.closedLoop > 0 {
			s.throughput = append(s.throughput, r.referenceThroughput(context.WithoutCancel(ctx), s.closedLoop))
		}
	})
}

// finish records the reference in run, with the run's figures relative to
// it. It runs after the probes, which set the run's server figures. A nil
// sampler records nothing.
func (s *referenceSampler) finish(run *result.Run) {
	if s == nil {
		return
	}
	<-s.done
	if s.ping.TotalCount() == 0 {
		return
	}
	run.Reference = &result.Reference{
		PingUs:         result.Digest(s.ping),
		ScriptUs:       result.Digest(s.script),
		UsecPerCall:    result.Median(s.referenceSlices),
		Calls:          s.calls,
		Slices:         len(s.referenceSlices),
		ThroughputPerS: result.Mean(s.throughput),
	}
	if run.Server != nil {
		run.Server.UsecPerCallMedian = result.Median(s.limiterSlices)
	}
	run.Relative = result.NewRelative(run, result.Median(s.costRatios))
}
