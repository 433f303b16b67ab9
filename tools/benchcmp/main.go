// Command benchcmp checks that rlbench is not the bottleneck it measures: on
// one private redis-server it alternates rlbench's closed loop (fixed_window,
// 50 goroutines) with redis-benchmark -c 50 running the same script through
// EVALSHA, and prints each throughput and the median ratio
// rlbench / redis-benchmark.
//
//	go run ./tools/benchcmp [-rounds 3] [-seconds 3] [-clients 50]
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
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/workload"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternating rounds of each tool")
	seconds := flag.Float64("seconds", 3, "length of each measurement")
	clients := flag.Int("clients", 50, "goroutines (rlbench) and connections (redis-benchmark)")
	identities := flag.Int("identities", 1000, "distinct keys both tools spread requests over")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the rlbench rounds to `FILE`")
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
	if err := run(*rounds, time.Duration(*seconds*float64(time.Second)), *clients, *identities); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

// profileFile, when set, receives a CPU profile of the rlbench rounds only.
var profileFile *os.File

func run(rounds int, span time.Duration, clients, identities int) error {
	ctx := context.Background()
	serverPath, err := exec.LookPath("redis-server")
	if err != nil {
		return fmt.Errorf("redis-server not on PATH: %w", err)
	}
	benchPath, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return fmt.Errorf("redis-benchmark not on PATH (Debian package redis-tools): %w", err)
	}
	srv, err := redisenv.StartServer(ctx, serverPath)
	if err != nil {
		return err
	}
	defer srv.Stop()
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: srv.Addr, PoolSize: clients + 4})
	if err != nil {
		return err
	}
	defer env.Close()

	// A limit no run reaches, so both tools run the same allowed path.
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	lim := algorithms.NewFixedWindow(env.Client, policy)
	if err := lim.Load(ctx); err != nil {
		return err
	}
	fmt.Printf("redis %s on %s; fixed_window via EVALSHA, %d clients, %d keys, %s per measurement, %d CPUs\n",
		env.Version, srv.Addr, clients, identities, span, runtime.NumCPU())

	var ours, theirs, ratios []float64
	for i := 0; i < rounds; i++ {
		b, err := redisBenchmark(benchPath, srv.Addr, lim.Script().SHA1(), policy, clients, identities, span)
		if err != nil {
			return err
		}
		r, procs, err := rlbenchClosedLoop(ctx, env, policy, clients, identities, span)
		if err != nil {
			return err
		}
		ours, theirs, ratios = append(ours, r), append(theirs, b), append(ratios, r/b)
		fmt.Printf("round %d: rlbench %8.0f/s (GOMAXPROCS %d)  redis-benchmark %8.0f/s  ratio %.3f\n", i+1, r, procs, b, r/b)
		if err := env.Client.FlushDB(ctx).Err(); err != nil { // our own private server
			return err
		}
	}
	fmt.Printf("median: rlbench %.0f/s  redis-benchmark %.0f/s  ratio %.3f (target >= 0.9)\n",
		median(ours), median(theirs), median(ratios))
	return nil
}

// rlbenchClosedLoop measures rlbench's own request path: the runner, the
// recorder and the limiter binding, closed loop, as `rlbench run` runs it.
// It returns the rate and the GOMAXPROCS the run had.
func rlbenchClosedLoop(ctx context.Context, env *redisenv.Env, p algorithms.Policy, clients, identities int, span time.Duration) (float64, int, error) {
	prof := &profile.Profile{
		Name:        "benchcmp",
		Policy:      p,
		Algorithms:  []string{algorithms.FixedWindowName},
		Concurrency: clients,
		Seed:        1,
		Timeout:     2 * time.Second,
		Scenarios: []profile.Scenario{{
			Name: "closed", Shape: profile.ShapeSteady, Rate: profile.Rate{Max: true},
			Identities: identities, Duration: span,
		}},
	}
	if profileFile != nil {
		if err := pprof.StartCPUProfile(profileFile); err == nil {
			defer pprof.StopCPUProfile()
		}
	}
	res, err := (&workload.Runner{Profile: prof, Env: env, KeepKeys: true, ShareCPUs: true}).Run(ctx)
	if err != nil {
		return 0, 0, err
	}
	run := res.Runs[0]
	if e := run.Requests.Errors; e > 0 {
		return 0, 0, fmt.Errorf("rlbench saw %d errors: %v", e, run.Errors)
	}
	return run.Rate.AchievedPerS, res.Host.GOMAXPROCS, nil
}

// redisBenchmark runs redis-benchmark for about span and returns its
// requests per second.
func redisBenchmark(path, addr, sha string, p algorithms.Policy, clients, identities int, span time.Duration) (float64, error) {
	host, port, _ := strings.Cut(addr, ":")
	// Size -n so the run lasts about span at a first guess of 40k/s; the
	// rate it reports does not depend on n.
	n := int(40000 * span.Seconds())
	cmd := exec.Command(path, "-h", host, "-p", port, "-c", strconv.Itoa(clients), "-n", strconv.Itoa(n),
		"-r", strconv.Itoa(identities), "--csv",
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
