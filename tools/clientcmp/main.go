// Command clientcmp measures, side by side on one private redis-server,
// what a pipelined decision costs rlbench's client, alternated round by
// round, closed loop, fixed_window EVALSHA, 50 connections with batches of
// 16 over 1,000 keys:
//
//   - rlbench: its whole pipelined request path (runner, go-redis batches
//     whose commands, arguments and keys are reused from batch to batch,
//     each reply stamped as go-redis reads it, recorder, audit);
//   - go-redis batches: the same client alone, commands reused and each
//     reply stamped as it is read, every decision read from its reply;
//   - rueidis batches: rueidis's explicit batches (DoMulti on a pooled
//     connection, auto-pipelining off) of commands built once per key
//     (pinned), every decision read from its reply. DoMulti hands back the
//     batch's replies together: a request's completion is its batch's,
//     which rlbench's latency from each request's own reply cannot use.
//
// It prints each one's decisions a second, CPU seconds per million
// decisions (this process's, from getrusage; rlbench's from its run's
// generator figures) and heap allocations per decision, and their medians.
// It is a module of its own so that rlbench itself depends on one Redis
// client only.
//
//	cd tools/clientcmp && go run . [-rounds 3] [-seconds 3] [-connections 50] [-depth 16]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating rounds of each way")
	seconds := flag.Float64("seconds", 3, "length of each measurement")
	conns := flag.Int("connections", 50, "connections to Redis")
	depth := flag.Int("depth", 16, "requests per batch")
	identities := flag.Int("identities", 1000, "keys the requests are spread over")
	flag.Parse()
	if err := run(*rounds, time.Duration(*seconds*float64(time.Second)), *conns, *depth, *identities); err != nil {
		fmt.Fprintln(os.Stderr, "clientcmp:", err)
		os.Exit(1)
	}
}

// figures are what one measurement found: decisions a second, CPU
// seconds per million decisions, heap allocations per decision.
type figures struct{ rate, cpu, allocs float64 }

// way is one way of sending the batches, measured for span.
type way struct {
	name    string
	measure func(ctx context.Context, span time.Duration) (figures, error)
}

func run(rounds int, span time.Duration, conns, depth, identities int) error {
	ctx := context.Background()
	redisenv.QuietClientLogs()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return fmt.Errorf("redis-server not on PATH: %w", err)
	}
	srv, err := redisenv.StartServer(ctx, path)
	if err != nil {
		return err
	}
	defer srv.Stop()
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: srv.Addr, PoolSize: conns + 4})
	if err != nil {
		return err
	}
	defer env.Close()
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	lim := algorithms.NewFixedWindow(env.Client, policy)
	if err := lim.Load(ctx); err != nil {
		return err
	}
	rue, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true, AlwaysRESP2: true,
		DisableAutoPipelining: true, BlockingPoolSize: conns})
	if err != nil {
		return err
	}
	defer rue.Close()
	fmt.Printf("redis %s on %s; fixed_window closed loop, %d connections, batches of %d, %d keys, %s per measurement, %d CPUs\n",
		env.Version, srv.Addr, conns, depth, identities, span, runtime.NumCPU())

	ways := []way{
		{"rlbench (go-redis, commands reused)", func(ctx context.Context, span time.Duration) (figures, error) {
			return rlbenchPath(ctx, env, policy, span, conns, depth, identities)
		}},
		{"go-redis batches, commands reused", func(ctx context.Context, span time.Duration) (figures, error) {
			return loop(span, conns, goredisBatches(ctx, env.Client, lim, depth, identities))
		}},
		{"rueidis DoMulti, commands pre-built", func(ctx context.Context, span time.Duration) (figures, error) {
			return loop(span, conns, rueidisBatches(ctx, rue, lim, depth, identities))
		}},
	}
	all := make([][]figures, len(ways))
	for i := range rounds {
		for k, w := range ways {
			f, err := w.measure(ctx, span)
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			all[k] = append(all[k], f)
			fmt.Printf("round %d: %-38s %8.0f/s  %5.2f s CPU per million decisions  %5.2f allocs/decision\n", i+1, w.name, f.rate, f.cpu, f.allocs)
			if err := env.Client.FlushDB(ctx).Err(); err != nil { // a server started for this measurement
				return err
			}
			if err := lim.Load(ctx); err != nil {
				return err
			}
		}
	}
	for k, w := range ways {
		var rate, cpu, allocs []float64
		for _, f := range all[k] {
			rate, cpu, allocs = append(rate, f.rate), append(cpu, f.cpu), append(allocs, f.allocs)
		}
		fmt.Printf("median: %-38s %8.0f/s  %5.2f s CPU per million decisions  %5.2f allocs/decision\n", w.name, median(rate), median(cpu), median(allocs))
	}
	fmt.Println("per-request timing: rlbench and go-redis stamp each reply as it is read; rueidis's DoMulti returns a batch's replies together")
	return nil
}

// rlbenchPath runs rlbench's closed loop, pipelined, through its whole
// request path, and returns its rate, its CPU per decision (its
// generator figures) and the heap allocations per decision while the
// traffic ran.
func rlbenchPath(ctx context.Context, env *redisenv.Env, pol algorithms.Policy, span time.Duration, conns, depth, identities int) (figures, error) {
	p := &profile.Profile{
		Name:        "clientcmp",
		Policy:      pol,
		Algorithms:  []string{algorithms.FixedWindowName},
		Concurrency: conns,
		Pipeline:    plan.Pipeline{Depth: depth},
		Seed:        1,
		Timeout:     2 * time.Second,
		Audit:       profile.AuditSpec{Identities: profile.DefaultAuditIdentities},
		Scenarios: []profile.Scenario{{
			Name: "closed", Shape: plan.ShapeSteady, Rate: profile.Rate{Max: true}, Identities: identities, Duration: span,
		}},
	}
	watch := &allocWatch{span: span}
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: env, ShareCPUs: true, Observer: watch}).Run(ctx)
	if err != nil {
		return figures{}, err
	}
	r := res.Runs[0]
	if r.Requests.Errors > 0 {
		return figures{}, fmt.Errorf("%d errors: %v", r.Requests.Errors, r.Errors)
	}
	f := figures{rate: r.Rate.AchievedPerS, allocs: watch.perRequest()}
	if g := r.Generator; g != nil {
		f.cpu = g.UsecPerDecision // µs per decision is s per million
	}
	return f, nil
}

// batcher sends one batch on the calling goroutine's connection and
// reads every decision of it; it reports how many were decided.
type batcher func(next func() int) (int, error)

// loop runs conns goroutines, each sending batches with a batcher of its
// own (newBatcher, once per goroutine) for span, and returns the decisions
// a second, this process's CPU per million of them and its allocations
// per decision.
func loop(span time.Duration, conns int, newBatcher func() batcher) (figures, error) {
	var ids atomic.Uint64
	next := func() int { return int(ids.Add(1) - 1) }
	var decided atomic.Int64
	var firstErr atomic.Value
	batchers := make([]batcher, conns)
	for i := range batchers {
		batchers[i] = newBatcher()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore, start := cpuTime(), time.Now()
	deadline := start.Add(span)
	var wg sync.WaitGroup
	for _, b := range batchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				n, err := b(next)
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				decided.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	wall, cpu := time.Since(start), cpuTime()-cpuBefore
	runtime.ReadMemStats(&after)
	if err, _ := firstErr.Load().(error); err != nil {
		return figures{}, err
	}
	n := float64(decided.Load())
	if n == 0 {
		return figures{}, errors.New("nothing decided")
	}
	return figures{rate: n / wall.Seconds(), cpu: cpu.Seconds() / n * 1e6, allocs: float64(after.Mallocs-before.Mallocs) / n}, nil
}

// stampedCmd is a go-redis command that notes when its reply was read,
// as rlbench's batches do.
type stampedCmd struct {
	*redis.Cmd
	done time.Time
}

func (c *stampedCmd) SetErr(err error) {
	if c.done.IsZero() {
		c.done = time.Now()
	}
	c.Cmd.SetErr(err)
}

// goredisBatches sends batches of depth through a go-redis pipeline whose
// commands and arguments are kept from batch to batch; the keys are built
// once.
func goredisBatches(ctx context.Context, rdb redis.UniversalClient, lim *algorithms.FixedWindow, depth, identities int) func() batcher {
	keys := make([]string, identities)
	for i := range keys {
		keys[i] = "rlbench:clientcmp:goredis:" + strconv.Itoa(i)
	}
	return func() batcher {
		pipe := rdb.Pipeline()
		calls := make([]stampedCmd, depth)
		cmds := make([]redis.Cmder, depth)
		args := make([][]any, depth)
		for i := range calls {
			args[i], _ = lim.AppendCommand(nil, &keys[0], 0)
			calls[i].Cmd = redis.NewCmd(ctx, args[i]...)
			cmds[i] = &calls[i]
		}
		return func(next func() int) (int, error) {
			for i := range calls {
				// The key is the fourth argument: EVALSHA sha 1 key.
				args[i][3] = &keys[next()%identities]
				calls[i].Cmd.SetErr(nil)
				calls[i].Cmd.SetVal(nil)
				calls[i].done = time.Time{}
			}
			_ = pipe.BatchProcess(ctx, cmds...)
			_, _ = pipe.Exec(ctx)
			for i := range calls {
				reply, err := calls[i].Cmd.Result()
				if _, err := lim.Decide(algorithms.Request{}, reply, err); err != nil {
					return 0, err
				}
			}
			return depth, nil
		}
	}
}

// rueidisBatches sends batches of depth with rueidis's DoMulti, of
// commands built once per key and pinned (rueidis keeps them).
func rueidisBatches(ctx context.Context, c rueidis.Client, lim *algorithms.FixedWindow, depth, identities int) func() batcher {
	sha := lim.Script().SHA1()
	var argv []string
	for _, a := range lim.ScriptArgs() {
		argv = append(argv, fmt.Sprint(a))
	}
	built := make([]rueidis.Completed, identities)
	for i := range built {
		built[i] = c.B().Evalsha().Sha1(sha).Numkeys(1).Key("rlbench:clientcmp:rueidis:" + strconv.Itoa(i)).Arg(argv...).Build().Pin()
	}
	return func() batcher {
		batch := make([]rueidis.Completed, depth)
		return func(next func() int) (int, error) {
			for i := range batch {
				batch[i] = built[next()%identities]
			}
			for _, r := range c.DoMulti(ctx, batch...) {
				reply, err := r.ToArray()
				if err != nil {
					return 0, err
				}
				if _, err := decide(reply); err != nil {
					return 0, err
				}
			}
			return depth, nil
		}
	}
}

// decide reads the uniform reply {allowed, remaining, retry_after_ms,
// server_now_us} from rueidis's messages.
func decide(reply []rueidis.RedisMessage) (algorithms.Decision, error) {
	if len(reply) != 4 {
		return algorithms.Decision{}, fmt.Errorf("reply of %d elements, want 4", len(reply))
	}
	allowed, err1 := reply[0].AsInt64()
	remaining, err2 := reply[1].ToString()
	retry, err3 := reply[2].AsInt64()
	now, err4 := reply[3].AsInt64()
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return algorithms.Decision{}, err
	}
	return algorithms.Decision{Allowed: allowed == 1, Remaining: remaining, RetryAfter: time.Duration(retry) * time.Millisecond, ServerNowMicros: now}, nil
}

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// allocWatch reads the heap's allocation count when a run's traffic starts
// and span later, when a closed loop of that length ends, with the
// requests decided in between.
type allocWatch struct {
	span   time.Duration
	mu     sync.Mutex
	before runtime.MemStats
	after  runtime.MemStats
	done   [2]int64
}

var _ workload.Observer = (*allocWatch)(nil)

func (w *allocWatch) RunStarted(p *workload.Progress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	runtime.ReadMemStats(&w.before)
	w.done[0] = p.Done()
	time.AfterFunc(w.span, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		runtime.ReadMemStats(&w.after)
		w.done[1] = p.Done()
	})
}

func (w *allocWatch) RunFinished(*workload.Progress, *result.Run) {}

func (w *allocWatch) perRequest() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.done[1] - w.done[0]
	if n <= 0 {
		return 0
	}
	return float64(w.after.Mallocs-w.before.Mallocs) / float64(n)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
