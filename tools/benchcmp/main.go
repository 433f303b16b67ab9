// Command benchcmp checks that rlbench is not the bottleneck it measures:
// on a redis-server it alternates rlbench's closed loop (fixed_window, 50
// connections) with redis-benchmark -c 50 running the same script through
// EVALSHA, and prints each throughput and the median ratio
// rlbench / redis-benchmark. It does so one request at a time and
// pipelined (rlbench's pipeline: 16 against redis-benchmark -P 16), and for
// two servers: one started as rlbench's private server is (a child in its
// own process group), and one started the way a service runs (daemonized,
// in a session of its own), as users run rlbench against both. The ratios
// are measured side by side, so a busy machine slows both tools; it also
// says how busy the machine was (its load average), since the target
// (>= 0.9) is for a quiet one.
//
//	go run ./tools/benchcmp [-rounds 3] [-seconds 3] [-clients 50] [-pipeline 1,16] [-targets private,daemon]
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/workload"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating rounds of each tool")
	seconds := flag.Float64("seconds", 3, "length of each measurement")
	clients := flag.Int("clients", 50, "goroutines (rlbench) and connections (redis-benchmark)")
	identities := flag.Int("identities", 1000, "distinct keys both tools spread requests over")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the rlbench rounds to `FILE`")
	targets := flag.String("targets", "private,daemon", "servers to measure against: private (a child, as rlbench starts it), daemon (daemonized, in its own session)")
	depths := flag.String("pipeline", "1,16", "pipeline depths to compare: rlbench's pipeline: N against redis-benchmark -P N (1: one request at a time)")
	showSched = flag.Bool("schedstat", false, "print the scheduler's figures for the server and rlbench in each round")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchcmp:", err)
			os.Exit(1)
		}
		defer f.Close()
		profileFile = f
	}
	var pipelines []int
	for _, d := range strings.Split(*depths, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(d))
		if err != nil || n < 1 || n > profile.MaxPipelineDepth {
			fmt.Fprintf(os.Stderr, "benchcmp: -pipeline: %q is not a depth from 1 to %d\n", d, profile.MaxPipelineDepth)
			os.Exit(2)
		}
		pipelines = append(pipelines, n)
	}
	loadBefore := loadAverage()
	var medians []string
	for _, target := range strings.Split(*targets, ",") {
		for _, depth := range pipelines {
			ratio, err := run(target, *rounds, time.Duration(*seconds*float64(time.Second)), *clients, *identities, depth)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchcmp:", err)
				os.Exit(1)
			}
			medians = append(medians, fmt.Sprintf("%s -P %d %.3f", target, depth, ratio))
		}
	}
	fmt.Printf("median ratio rlbench / redis-benchmark: %s (target >= 0.9 each)\n", strings.Join(medians, ", "))
	fmt.Println(quietness(loadBefore, loadAverage(), runtime.NumCPU()))
}

// profileFile, when set, receives a CPU profile of the rlbench rounds only.
var profileFile *os.File

// showSched prints, per round, how busy the server and rlbench were and
// how long they waited for a CPU.
var showSched *bool

// run measures against one kind of server, started for the purpose, with
// requests pipelined depth deep (1: one at a time), and returns the median
// ratio.
func run(target string, rounds int, span time.Duration, clients, identities, depth int) (float64, error) {
	ctx := context.Background()
	serverPath, err := exec.LookPath("redis-server")
	if err != nil {
		return 0, fmt.Errorf("redis-server not on PATH: %w", err)
	}
	benchPath, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return 0, fmt.Errorf("redis-benchmark not on PATH (Debian package redis-tools): %w", err)
	}
	var addr string
	switch target {
	case "private":
		srv, err := redisenv.StartServer(ctx, serverPath)
		if err != nil {
			return 0, err
		}
		defer srv.Stop()
		addr = srv.Addr
	case "daemon":
		d, err := startDaemon(ctx, serverPath)
		if err != nil {
			return 0, err
		}
		defer d.stop()
		addr = d.addr
	default:
		return 0, fmt.Errorf("unknown target %q (private or daemon)", target)
	}
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: addr, PoolSize: clients + 4})
	if err != nil {
		return 0, err
	}
	defer env.Close()

	// A limit no run reaches, so both tools run the same allowed path.
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	lim := algorithms.NewFixedWindow(env.Client, policy)
	if err := lim.Load(ctx); err != nil {
		return 0, err
	}
	fmt.Printf("%s -P %d: redis %s on %s; fixed_window via EVALSHA, %d connections, pipeline %d, %d keys, %s per measurement, %d CPUs\n",
		target, depth, env.Version, addr, clients, depth, identities, span, runtime.NumCPU())

	serverPID := 0
	if info, err := env.Client.Info(ctx, "server").Result(); err == nil {
		serverPID, _ = strconv.Atoi(redisenv.ParseInfo(info)["process_id"])
	}
	var ours, theirs, ratios []float64
	// redis-benchmark runs a number of requests, sized to last about span
	// at the rate of its last round (a first guess before that).
	guess := 40000.0 * float64(depth)
	for i := 0; i < rounds; i++ {
		before, start := readCPUTimes(serverPID), time.Now()
		b, err := redisBenchmark(benchPath, addr, lim.Script().SHA1(), policy, clients, identities, depth, int(guess*span.Seconds()))
		if err != nil {
			return 0, err
		}
		guess = b
		benchServer, benchWall := readCPUTimes(serverPID).Sub(before), time.Since(start)
		watch := &trafficWatch{pids: []int{serverPID, os.Getpid()}, span: span}
		r, procs, err := rlbenchClosedLoop(ctx, env, policy, clients, identities, depth, span, watch)
		if err != nil {
			return 0, err
		}
		deltas, ourWall := watch.result()
		ourServer, ourSelf := deltas[0], deltas[1]
		ours, theirs, ratios = append(ours, r), append(theirs, b), append(ratios, r/b)
		fmt.Printf("%s -P %d round %d: rlbench %8.0f/s (GOMAXPROCS %d)  redis-benchmark %8.0f/s  ratio %.3f\n", target, depth, i+1, r, procs, b, r/b)
		if *showSched && serverPID > 0 {
			fmt.Printf("    redis-server under redis-benchmark: %s\n", describe(benchServer, benchWall))
			fmt.Printf("    redis-server under rlbench:         %s\n", describe(ourServer, ourWall))
			fmt.Printf("    rlbench itself:                     %s\n", describe(ourSelf, ourWall))
		}
		if err := env.Client.FlushDB(ctx).Err(); err != nil { // a server started for this measurement
			return 0, err
		}
	}
	fmt.Printf("%s -P %d median: rlbench %.0f/s  redis-benchmark %.0f/s  ratio %.3f (target >= 0.9)\n",
		target, depth, median(ours), median(theirs), median(ratios))
	return median(ratios), nil
}

// rlbenchClosedLoop measures rlbench's own request path: the runner, the
// recorder and the limiter binding, closed loop, pipelined depth deep, as
// `rlbench run` runs it. It returns the rate and the GOMAXPROCS the run had.
func rlbenchClosedLoop(ctx context.Context, env *redisenv.Env, p algorithms.Policy, clients, identities, depth int, span time.Duration, obs workload.Observer) (float64, int, error) {
	prof := &profile.Profile{
		Name:        "benchcmp",
		Policy:      p,
		Algorithms:  []string{algorithms.FixedWindowName},
		Concurrency: clients,
		Pipeline:    plan.Pipeline{Depth: depth},
		Seed:        1,
		Timeout:     2 * time.Second,
		Scenarios: []profile.Scenario{{
			Name: "closed", Shape: plan.ShapeSteady, Rate: profile.Rate{Max: true},
			Identities: identities, Duration: span,
		}},
	}
	if profileFile != nil {
		if err := pprof.StartCPUProfile(profileFile); err == nil {
			defer pprof.StopCPUProfile()
		}
	}
	res, err := (&workload.Runner{Plan: prof.Plan(1), Env: env, KeepKeys: true, ShareCPUs: true, Observer: obs}).Run(ctx)
	if err != nil {
		return 0, 0, err
	}
	run := res.Runs[0]
	if e := run.Requests.Errors; e > 0 {
		return 0, 0, fmt.Errorf("rlbench saw %d errors: %v", e, run.Errors)
	}
	return run.Rate.AchievedPerS, res.Host.GOMAXPROCS, nil
}

// redisBenchmark runs n requests of redis-benchmark, pipelined depth deep,
// and returns its requests per second (which does not depend on n).
func redisBenchmark(path, addr, sha string, p algorithms.Policy, clients, identities, depth, n int) (float64, error) {
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(path, "-h", host, "-p", port, "-c", strconv.Itoa(clients), "-n", strconv.Itoa(max(n, 1000)),
		"-P", strconv.Itoa(depth), "-r", strconv.Itoa(identities), "--csv",
		"EVALSHA", sha, "1", "rlbench:bench:fixed_window:closed:__rand_int__",
		strconv.FormatInt(p.Limit, 10), strconv.FormatInt(p.WindowMillis(), 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("redis-benchmark: %v: %s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) < 2 || len(rows[1]) < 2 {
		return 0, fmt.Errorf("redis-benchmark printed no CSV result: %s", out)
	}
	return strconv.ParseFloat(rows[1][1], 64)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
