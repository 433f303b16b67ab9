// Command slowscript writes a built-in limiter's Lua made a given factor
// slower on the server, and otherwise unchanged: a busy loop at its top,
// its length measured on a private redis-server until the script's server
// time per call (calls one at a time) is the factor times the original's.
// The regression gate's checks (scripts/gate-under-load.sh,
// scripts/gate-calibrate.sh) build rlbench with such a script to show that
// the gate catches it, on a busy machine too, and how small a slowdown it
// catches.
//
//	go run ./tools/slowscript -algorithm token_bucket -factor 3 -o algorithms/token_bucket.lua
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// Measuring settings: calls per pipeline, keys they spread over, pairs of
// pipelines per measurement, how close to the factor the result must come,
// and how many loop lengths to try.
const (
	calls     = 200
	keys      = 50
	rounds    = 15
	tolerance = 0.05
	maxTries  = 16
	// fallbackTolerance is how close the closest loop length tried must
	// have come when no try landed within tolerance (a machine busy
	// enough to move the measurements between tries): that one is written,
	// with the factor it measured, rather than none.
	fallbackTolerance = 0.2
)

func main() {
	name := flag.String("algorithm", algorithms.TokenBucketName, "the built-in limiter whose script to slow down")
	factor := flag.Float64("factor", 3, "how many times the original server time per call the slowed script takes")
	out := flag.String("o", "", "write the slowed script to `FILE` (default: standard output)")
	flag.Parse()
	if err := run(*name, *factor, *out); err != nil {
		fmt.Fprintln(os.Stderr, "slowscript:", err)
		os.Exit(1)
	}
}

func run(name string, factor float64, out string) error {
	if !(factor >= 1) {
		return fmt.Errorf("-factor %v: want 1 or more", factor)
	}
	ctx := context.Background()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return fmt.Errorf("redis-server not on PATH: %w", err)
	}
	srv, err := redisenv.StartServer(ctx, path)
	if err != nil {
		return err
	}
	defer srv.Stop()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()

	lim, err := algorithms.New(name, rdb, algorithms.Policy{Limit: 25, Window: 500 * time.Millisecond})
	if err != nil {
		return err
	}
	bound, ok := lim.(interface {
		Script() *algorithms.Script
		ScriptArgs() []any
	})
	if !ok {
		return fmt.Errorf("%s runs no script", name)
	}
	src, args := bound.Script().Source(), bound.ScriptArgs()
	// Find the loop length by bisection, doubling first to bracket it.
	lo, hi := 0, 256
	bracketed := false
	var ratio float64
	var best struct {
		n     int
		ratio float64
		src   string
	}
	for try := 0; ; try++ {
		if try == maxTries {
			if math.Abs(best.ratio-factor) < factor*fallbackTolerance {
				fmt.Fprintf(os.Stderr, "slowscript: no try within %.0f%% of %.1fx (a busy machine?); writing the closest: %d iterations, %.2fx\n", 100*tolerance, factor, best.n, best.ratio)
				return write(out, fmt.Sprintf("-- slowed by tools/slowscript: %d busy iterations, %.2fx the original server time per call\n", best.n, best.ratio)+best.src)
			}
			return fmt.Errorf("no loop length makes %s %.1fx slower within %d tries (last: %.2fx, closest: %.2fx)", name, factor, maxTries, ratio, best.ratio)
		}
		n := hi
		if bracketed {
			n = (lo + hi) / 2
		}
		slowed := slowDown(src, n)
		var base float64
		if ratio, base, err = slowdown(ctx, rdb, src, slowed, args); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "slowscript: %d iterations: %.2fx the original's %.2fus per call\n", n, ratio, base)
		if math.Abs(ratio-factor) < math.Abs(best.ratio-factor) {
			best.n, best.ratio, best.src = n, ratio, slowed
		}
		switch {
		case ratio > factor*(1-tolerance) && ratio < factor*(1+tolerance):
			return write(out, fmt.Sprintf("-- slowed by tools/slowscript: %d busy iterations, %.2fx the original server time per call\n", n, ratio)+slowed)
		case ratio < factor && !bracketed:
			lo, hi = hi, hi*2
		case ratio < factor:
			lo = n
		default:
			hi, bracketed = n, true
		}
	}
}

// slowDown puts a loop of n iterations, which the Lua interpreter cannot
// skip, in front of the script's first line of code.
func slowDown(src string, n int) string {
	loop := "local __slow = 0\nfor __i = 1, " + strconv.Itoa(n) + " do __slow = __slow + __i % 7 end\n"
	lines := strings.SplitAfter(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") && strings.TrimSpace(l) != "" {
			return strings.Join(lines[:i], "") + loop + strings.Join(lines[i:], "")
		}
	}
	return loop + src
}

// slowdown is how many times the server time per call of slowed is
// original's: pipelines of calls of one and of the other alternate, each
// timed from INFO commandstats, and the ratio is the median over rounds of
// the two adjacent pipelines' ratio, so that a machine whose speed drifts
// (other processes come and go) moves both alike. It also returns the
// original's median time per call.
func slowdown(ctx context.Context, rdb *redis.Client, original, slowed string, args []any) (factor, baseUsec float64, err error) {
	var ratios, bases []float64
	for range rounds {
		base, err := usecPerCall(ctx, rdb, original, args)
		if err != nil {
			return 0, 0, err
		}
		slow, err := usecPerCall(ctx, rdb, slowed, args)
		if err != nil {
			return 0, 0, err
		}
		ratios, bases = append(ratios, slow/base), append(bases, base)
	}
	return result.Median(ratios), result.Median(bases), nil
}

// usecPerCall is the server time per call of src over calls EVALSHA
// spread over keys keys, from INFO commandstats. The calls go one at a
// time, as a run's requests mostly find the server: between calls, not in
// a pipeline that keeps it busy.
func usecPerCall(ctx context.Context, rdb *redis.Client, src string, args []any) (float64, error) {
	script := algorithms.NewScript("slowscript", src)
	if err := script.Load(ctx, rdb); err != nil {
		return 0, err
	}
	before, err := redisenv.ReadCommandStat(ctx, rdb, "evalsha")
	if err != nil {
		return 0, err
	}
	for i := 0; i < calls; i++ {
		err := rdb.EvalSha(ctx, script.SHA1(), []string{"rlbench:slowscript:" + strconv.Itoa(i%keys)}, args...).Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			return 0, err
		}
	}
	after, err := redisenv.ReadCommandStat(ctx, rdb, "evalsha")
	if err != nil {
		return 0, err
	}
	return after.Sub(before).UsecPerCall(), nil
}

func write(path, src string) error {
	if path == "" {
		_, err := fmt.Print(src)
		return err
	}
	return os.WriteFile(path, []byte(src), 0o644)
}
