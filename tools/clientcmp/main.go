// Command clientcmp measures the two ways rlbench could pipeline its
// requests while keeping each request's own completion time, through the
// same runner, recorder and audit (rlbench run's whole request path), on
// the same private redis-server, alternated, closed loop, fixed_window:
//
//   - go-redis batcher: rlbench's own (pipeline: 16 over 50 connections):
//     each connection sends 16 requests as one go-redis pipeline and stamps
//     each reply as go-redis reads it;
//   - rueidis auto-pipelining: 50 rueidis connections, 16 goroutines each
//     calling Do, which rueidis batches on the connection; a goroutine per
//     request in flight is what gives each its own completion.
//
// It prints requests per second and heap allocations per request for each,
// and their medians. It is a module of its own so that rlbench itself
// depends on one Redis client only.
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating rounds of each client")
	seconds := flag.Float64("seconds", 3, "length of each measurement")
	conns := flag.Int("connections", 50, "connections to Redis")
	depth := flag.Int("depth", 16, "requests in flight per connection")
	flag.Parse()
	if err := run(*rounds, time.Duration(*seconds*float64(time.Second)), *conns, *depth); err != nil {
		fmt.Fprintln(os.Stderr, "clientcmp:", err)
		os.Exit(1)
	}
}

func run(rounds int, span time.Duration, conns, depth int) error {
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
	fmt.Printf("redis %s on %s; fixed_window closed loop, %d connections, %d requests in flight each, %s per measurement, %d CPUs\n",
		env.Version, srv.Addr, conns, depth, span, runtime.NumCPU())

	type figures struct{ rate, allocs []float64 }
	var goredis, rue figures
	for i := 0; i < rounds; i++ {
		r, a, err := measure(ctx, env, span, conns, depth, nil)
		if err != nil {
			return fmt.Errorf("go-redis batcher: %w", err)
		}
		goredis.rate, goredis.allocs = append(goredis.rate, r), append(goredis.allocs, a)
		fmt.Printf("round %d: go-redis batcher    %8.0f/s  %5.1f allocs/request\n", i+1, r, a)

		clients, err := rueidisClients(srv.Addr, conns)
		if err != nil {
			return err
		}
		r, a, err = measure(ctx, env, span, conns, depth, clients)
		closeAll(clients)
		if err != nil {
			return fmt.Errorf("rueidis: %w", err)
		}
		rue.rate, rue.allocs = append(rue.rate, r), append(rue.allocs, a)
		fmt.Printf("round %d: rueidis auto-pipeline %8.0f/s  %5.1f allocs/request\n", i+1, r, a)
	}
	fmt.Printf("median: go-redis batcher %.0f/s %.1f allocs/request; rueidis auto-pipelining %.0f/s %.1f allocs/request; throughput ratio go-redis / rueidis %.2f\n",
		median(goredis.rate), median(goredis.allocs), median(rue.rate), median(rue.allocs), median(goredis.rate)/median(rue.rate))
	return nil
}

// measure runs rlbench's closed loop for span: go-redis pipelines of depth
// over conns connections, or (with clients) conns x depth goroutines
// deciding one request at a time through the rueidis clients. It returns
// the rate and the heap allocations per request while the traffic ran.
func measure(ctx context.Context, env *redisenv.Env, span time.Duration, conns, depth int, clients []rueidis.Client) (rate, allocs float64, err error) {
	p := &profile.Profile{
		Name:        "clientcmp",
		Policy:      algorithms.Policy{Limit: 1_000_000, Window: time.Minute},
		Algorithms:  []string{algorithms.FixedWindowName},
		Concurrency: conns,
		Pipeline:    plan.Pipeline{Depth: depth},
		Seed:        1,
		Timeout:     2 * time.Second,
		Audit:       profile.AuditSpec{Identities: profile.DefaultAuditIdentities},
		Scenarios: []profile.Scenario{{
			Name: "closed", Shape: plan.ShapeSteady, Rate: profile.Rate{Max: true}, Identities: 1000, Duration: span,
		}},
	}
	if clients != nil {
		p.Concurrency, p.Pipeline = conns*depth, plan.Pipeline{}
	}
	runner := &workload.Runner{Plan: p.Plan(1), Env: env, ShareCPUs: true}
	if clients != nil {
		runner.NewLimiter = func(name string, rdb algorithms.Redis, pol algorithms.Policy) (algorithms.Limiter, error) {
			return newRueidisWindow(algorithms.NewFixedWindow(rdb, pol), clients), nil
		}
	}
	watch := &allocWatch{span: span}
	runner.Observer = watch
	res, err := runner.Run(ctx)
	if err != nil {
		return 0, 0, err
	}
	run := res.Runs[0]
	if run.Requests.Errors > 0 {
		return 0, 0, fmt.Errorf("%d errors: %v", run.Requests.Errors, run.Errors)
	}
	return run.Rate.AchievedPerS, watch.perRequest(), nil
}

// rueidisWindow is the fixed window decided through rueidis: EVALSHA of
// the same script with the same arguments, each call on the next client in
// turn, where rueidis pipelines it with the calls of other goroutines.
type rueidisWindow struct {
	*algorithms.FixedWindow
	clients []rueidis.Client
	sha     string
	args    []string
	next    atomic.Uint64
}

func newRueidisWindow(l *algorithms.FixedWindow, clients []rueidis.Client) *rueidisWindow {
	w := &rueidisWindow{FixedWindow: l, clients: clients, sha: l.Script().SHA1()}
	for _, a := range l.ScriptArgs() {
		w.args = append(w.args, a.(string))
	}
	return w
}

// Allow implements algorithms.Limiter.
func (l *rueidisWindow) Allow(ctx context.Context, key string) (algorithms.Decision, error) {
	c := l.clients[l.next.Add(1)%uint64(len(l.clients))]
	cmd := c.B().Evalsha().Sha1(l.sha).Numkeys(1).Key(key).Arg(l.args...).Build()
	reply, err := c.Do(ctx, cmd).ToArray()
	if err != nil {
		return algorithms.Decision{}, err
	}
	return decide(reply)
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

// rueidisClients opens n rueidis clients of one connection each.
func rueidisClients(addr string, n int) ([]rueidis.Client, error) {
	var out []rueidis.Client
	for i := 0; i < n; i++ {
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true, AlwaysRESP2: true, PipelineMultiplex: -1})
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func closeAll(clients []rueidis.Client) {
	for _, c := range clients {
		c.Close()
	}
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
