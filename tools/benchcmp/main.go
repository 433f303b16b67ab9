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
// Beside the rates it prints what each tool's own process spent for them:
// CPU seconds per million decisions, rlbench's from the scheduler's figures
// for its threads over the traffic (the runner, the recorder, the audit of
// every identity as a run keeps it, go-redis), redis-benchmark's from its
// rusage, and their median ratio (target: at most 1.5). On one machine the
// generator's CPU is CPU the Redis it measures does not get.
//
// Then, on a private server, it runs rlbench's capacity search on the
// fixed window with a loose SLO (p99 20 ms, lag 10 ms) and pipelining
// allowed, beside redis-benchmark -P 16 running the same script, and prints
// the capacity as a share of redis-benchmark's rate (target: at least
// 0.8): what an open loop that keeps each request's due time gives up
// against a closed loop that keeps none.
//
// It also measures rlbench's open loop beside its closed loop on a private
// server, at each depth: the open loop offered three quarters of the
// closed loop's rate in the same round, over the same connections and
// depth, then the closed loop again at the open loop's rate and mean
// batch (fewer connections), and prints the median ratio of their CPU per
// million decisions at the same rate and batch size (target: at most
// 1.5): what keeping each request's due time costs rlbench beside sending
// the same requests; and beside it the ratio to the closed loop at full
// speed, which keeps every connection busy. Beside each it prints how
// often rlbench's threads were scheduled in per batch, and -openprofile
// writes a CPU profile of the first open-loop round.
//
//	go run ./tools/benchcmp [-rounds 3] [-seconds 3] [-clients 50] [-pipeline 1,16] [-targets private,daemon] [-audit 10000] [-open 3] [-capacity 3] [-cpuprofile FILE] [-openprofile FILE]
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
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the first rlbench round to `FILE`")
	openProfile := flag.String("openprofile", "", "write a CPU profile of the first open-loop round to `FILE`")
	targets := flag.String("targets", "private,daemon", "servers to measure against: private (a child, as rlbench starts it), daemon (daemonized, in its own session); empty: no comparison with redis-benchmark")
	depths := flag.String("pipeline", "1,16", "pipeline depths to compare: rlbench's pipeline: N against redis-benchmark -P N (1: one request at a time)")
	openRounds := flag.Int("open", 3, "rounds of the open-loop comparison: rlbench's open loop beside its closed loop at each depth of -pipeline, on a private server (0: none)")
	capacityRounds := flag.Int("capacity", 3, "rounds of the capacity comparison: rlbench's capacity search on the fixed window (loose SLO, pipelining allowed) beside redis-benchmark -P 16 (0: none)")
	showSched = flag.Bool("schedstat", false, "print the scheduler's figures for the server and rlbench in each round")
	auditIdentities = flag.Int("audit", profile.DefaultAuditIdentities, "identities whose every decision rlbench audits, as a profile's audit: identities (0: no audit)")
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
	if *openProfile != "" {
		f, err := os.Create(*openProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchcmp:", err)
			os.Exit(1)
		}
		defer f.Close()
		openProfileFile = f
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
	var rates, cpus []string
	for _, target := range strings.Split(*targets, ",") {
		if target == "" {
			// -targets "": no comparison with redis-benchmark.
			continue
		}
		for _, depth := range pipelines {
			m, err := run(target, *rounds, time.Duration(*seconds*float64(time.Second)), *clients, *identities, depth)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchcmp:", err)
				os.Exit(1)
			}
			rates = append(rates, fmt.Sprintf("%s -P %d %.3f", target, depth, m.rateRatio))
			cpus = append(cpus, fmt.Sprintf("%s -P %d %.2f s vs %.2f s (%.2f)", target, depth, m.ourCPU, m.theirCPU, m.cpuRatio))
		}
	}
	if len(rates) > 0 {
		fmt.Printf("median ratio rlbench / redis-benchmark: %s (target >= 0.9 each)\n", strings.Join(rates, ", "))
		fmt.Printf("CPU seconds per million decisions, rlbench vs redis-benchmark (median ratio): %s (target <= %.1f each)\n", strings.Join(cpus, ", "), cpuRatioTarget)
	}
	if *openRounds > 0 {
		sameRate, fullSpeed, err := compareOpenLoop(*openRounds, time.Duration(*seconds*float64(time.Second)), *clients, *identities, pipelines)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchcmp:", err)
			os.Exit(1)
		}
		fmt.Printf("CPU seconds per million decisions, rlbench's open loop / its closed loop at the same rate and batch size (median ratio): %s (target <= %.1f each); / its closed loop at full speed: %s\n",
			describeRatios(sameRate, pipelines), openLoopRatioTarget, describeRatios(fullSpeed, pipelines))
	}
	if *capacityRounds > 0 {
		share, err := compareCapacity(*capacityRounds, time.Duration(*seconds*float64(time.Second)), *clients, *identities)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchcmp:", err)
			os.Exit(1)
		}
		fmt.Printf("median capacity of the fixed window (loose SLO, pipelining allowed) / redis-benchmark -P 16: %.2f (target >= %.1f)\n", share, capacityShareTarget)
	}
	fmt.Println(quietness(loadBefore, loadAverage(), runtime.NumCPU()))
}

// cpuRatioTarget is the most CPU rlbench may spend per decision for each
// second redis-benchmark spends on the same script.
const cpuRatioTarget = 1.5

// medians is what one kind of measurement found over its rounds: the
// median ratio of the rates (rlbench / redis-benchmark), each tool's median
// CPU seconds per million decisions, and the median of the rounds' ratios
// of those.
type medians struct {
	rateRatio                  float64
	ourCPU, theirCPU, cpuRatio float64
}

// auditIdentities is how many identities rlbench's runs audit.
var auditIdentities *int

// profileFile, when set, receives a CPU profile of the first rlbench round,
// and openProfileFile one of the first open-loop round.
var profileFile, openProfileFile *os.File

// showSched prints, per round, how busy the server and rlbench were and
// how long they waited for a CPU.
var showSched *bool

// lookTools finds redis-server and redis-benchmark on PATH.
func lookTools() (serverPath, benchPath string, err error) {
	if serverPath, err = exec.LookPath("redis-server"); err != nil {
		return "", "", fmt.Errorf("redis-server not on PATH: %w", err)
	}
	if benchPath, err = exec.LookPath("redis-benchmark"); err != nil {
		return "", "", fmt.Errorf("redis-benchmark not on PATH (Debian package redis-tools): %w", err)
	}
	return serverPath, benchPath, nil
}

// run measures against one kind of server, started for the purpose, with
// requests pipelined depth deep (1: one at a time), and returns the
// medians.
func run(target string, rounds int, span time.Duration, clients, identities, depth int) (medians, error) {
	ctx := context.Background()
	serverPath, benchPath, err := lookTools()
	if err != nil {
		return medians{}, err
	}
	var addr string
	switch target {
	case "private":
		srv, err := redisenv.StartServer(ctx, serverPath)
		if err != nil {
			return medians{}, err
		}
		defer srv.Stop()
		addr = srv.Addr
	case "daemon":
		d, err := startDaemon(ctx, serverPath)
		if err != nil {
			return medians{}, err
		}
		defer d.stop()
		addr = d.addr
	default:
		return medians{}, fmt.Errorf("unknown target %q (private or daemon)", target)
	}
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: addr, PoolSize: clients + 4})
	if err != nil {
		return medians{}, err
	}
	defer env.Close()

	// A limit no run reaches, so both tools run the same allowed path.
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	lim := algorithms.NewFixedWindow(env.Client, policy)
	if err := lim.Load(ctx); err != nil {
		return medians{}, err
	}
	fmt.Printf("%s -P %d: redis %s on %s; fixed_window via EVALSHA, %d connections, pipeline %d, %d keys, %s per measurement, %d CPUs\n",
		target, depth, env.Version, addr, clients, depth, identities, span, runtime.NumCPU())

	serverPID := 0
	if info, err := env.Client.Info(ctx, "server").Result(); err == nil {
		serverPID, _ = strconv.Atoi(redisenv.ParseInfo(info)["process_id"])
	}
	var ours, theirs, ratios, ourCPU, theirCPU, cpuRatios []float64
	// redis-benchmark runs a number of requests, sized to last about span
	// at the rate of its last round (a first guess before that).
	guess := 40000.0 * float64(depth)
	for i := 0; i < rounds; i++ {
		before, start := readCPUTimes(serverPID), time.Now()
		b, err := redisBenchmark(benchPath, addr, lim.Script().SHA1(), policy, clients, identities, depth, int(guess*span.Seconds()))
		if err != nil {
			return medians{}, err
		}
		guess = b.rate
		benchServer, benchWall := readCPUTimes(serverPID).Sub(before), time.Since(start)
		watch := &trafficWatch{pids: []int{serverPID, os.Getpid()}, span: span}
		r, _, procs, err := rlbenchLoop(ctx, env, policy, clients, identities, depth, span, watch, 0)
		if err != nil {
			return medians{}, err
		}
		deltas, ourWall := watch.result()
		ourServer, ourSelf := deltas[0], deltas[1]
		// rlbench's CPU over the traffic, per decision it made meanwhile.
		ours1 := perMillion(ourSelf.Run.Seconds(), r*ourWall.Seconds())
		ours, theirs, ratios = append(ours, r), append(theirs, b.rate), append(ratios, r/b.rate)
		ourCPU, theirCPU, cpuRatios = append(ourCPU, ours1), append(theirCPU, b.cpuPerMillion), append(cpuRatios, ours1/b.cpuPerMillion)
		fmt.Printf("%s -P %d round %d: rlbench %8.0f/s (GOMAXPROCS %d)  redis-benchmark %8.0f/s  ratio %.3f;  CPU per million decisions: rlbench %.2f s  redis-benchmark %.2f s  ratio %.2f\n",
			target, depth, i+1, r, procs, b.rate, r/b.rate, ours1, b.cpuPerMillion, ours1/b.cpuPerMillion)
		if *showSched && serverPID > 0 {
			fmt.Printf("    redis-server under redis-benchmark: %s\n", describe(benchServer, benchWall))
			fmt.Printf("    redis-server under rlbench:         %s\n", describe(ourServer, ourWall))
			fmt.Printf("    rlbench itself:                     %s\n", describe(ourSelf, ourWall))
		}
		if err := env.Client.FlushDB(ctx).Err(); err != nil { // a server started for this measurement
			return medians{}, err
		}
	}
	m := medians{rateRatio: median(ratios), ourCPU: median(ourCPU), theirCPU: median(theirCPU), cpuRatio: median(cpuRatios)}
	fmt.Printf("%s -P %d median: rlbench %.0f/s  redis-benchmark %.0f/s  ratio %.3f (target >= 0.9);  CPU per million decisions: rlbench %.2f s  redis-benchmark %.2f s  ratio %.2f (target <= %.1f)\n",
		target, depth, median(ours), median(theirs), m.rateRatio, m.ourCPU, m.theirCPU, m.cpuRatio, cpuRatioTarget)
	return m, nil
}

// perMillion is cpu seconds spent on decisions, per million of them.
func perMillion(cpu, decisions float64) float64 {
	if decisions <= 0 {
		return 0
	}
	return cpu / decisions * 1e6
}

// rlbenchLoop measures rlbench's own request path: the runner, the
// recorder and the limiter binding, pipelined depth deep, as `rlbench run`
// runs it: a closed loop, or (openPerSecond > 0) an open loop offered that
// rate. It returns the rate, the mean requests per batch and the
// GOMAXPROCS the run had.
func rlbenchLoop(ctx context.Context, env *redisenv.Env, p algorithms.Policy, clients, identities, depth int, span time.Duration, obs workload.Observer,
	openPerSecond float64) (rate, batch float64, procs int, err error) {
	r, name := profile.Rate{Max: true}, "closed"
	if openPerSecond > 0 {
		r, name = profile.Rate{PerSecond: openPerSecond}, "open"
	}
	prof := &profile.Profile{
		Name:        "benchcmp",
		Policy:      p,
		Algorithms:  []string{algorithms.FixedWindowName},
		Concurrency: clients,
		Pipeline:    plan.Pipeline{Depth: depth},
		Audit:       profile.AuditSpec{Identities: *auditIdentities},
		Seed:        1,
		Timeout:     2 * time.Second,
		Scenarios: []profile.Scenario{{
			Name: name, Shape: plan.ShapeSteady, Rate: r,
			Identities: identities, Duration: span,
		}},
	}
	// One profile per file: the first rlbench round's, and the first
	// open loop's.
	if openPerSecond > 0 && openProfileFile != nil {
		if err := pprof.StartCPUProfile(openProfileFile); err == nil {
			defer pprof.StopCPUProfile()
		}
		openProfileFile = nil
	} else if profileFile != nil {
		if err := pprof.StartCPUProfile(profileFile); err == nil {
			defer pprof.StopCPUProfile()
		}
		profileFile = nil
	}
	res, err := (&workload.Runner{Plan: prof.Plan(1), Env: env, KeepKeys: true, ShareCPUs: true, Observer: obs}).Run(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	run := res.Runs[0]
	if e := run.Requests.Errors; e > 0 {
		return 0, 0, 0, fmt.Errorf("rlbench saw %d errors: %v", e, run.Errors)
	}
	batch = 1
	if pl := run.Pipeline; pl != nil {
		batch = pl.MeanBatch
	}
	return run.Rate.AchievedPerS, batch, res.Host.GOMAXPROCS, nil
}

// benchmarkRun is what one run of redis-benchmark measured: its requests
// per second, and the CPU seconds its process spent per million of them.
type benchmarkRun struct {
	rate, cpuPerMillion float64
}

// redisBenchmark runs n requests of redis-benchmark, pipelined depth deep,
// and returns its rate (which does not depend on n) and its CPU per
// million requests, from its rusage.
func redisBenchmark(path, addr, sha string, p algorithms.Policy, clients, identities, depth, n int) (benchmarkRun, error) {
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(path, "-h", host, "-p", port, "-c", strconv.Itoa(clients), "-n", strconv.Itoa(max(n, 1000)),
		"-P", strconv.Itoa(depth), "-r", strconv.Itoa(identities), "--csv",
		"EVALSHA", sha, "1", "rlbench:bench:fixed_window:closed:__rand_int__",
		strconv.FormatInt(p.Limit, 10), strconv.FormatInt(p.WindowMillis(), 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return benchmarkRun{}, fmt.Errorf("redis-benchmark: %v: %s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) < 2 || len(rows[1]) < 2 {
		return benchmarkRun{}, fmt.Errorf("redis-benchmark printed no CSV result: %s", out)
	}
	rate, err := strconv.ParseFloat(rows[1][1], 64)
	if err != nil {
		return benchmarkRun{}, fmt.Errorf("redis-benchmark's rate %q: %w", rows[1][1], err)
	}
	st := cmd.ProcessState
	cpu := (st.UserTime() + st.SystemTime()).Seconds()
	return benchmarkRun{rate: rate, cpuPerMillion: perMillion(cpu, float64(max(n, 1000)))}, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
