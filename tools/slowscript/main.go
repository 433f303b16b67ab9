// Command slowscript writes a built-in limiter's Lua made a given factor
// slower on the server, and otherwise unchanged: a busy loop at its top,
// its length measured on a private redis-server until the script's server
// time per call is the factor times the original's. The regression gate's
// check (scripts/gate-under-load.sh) builds rlbench with such a script to
// show that the gate catches it, on a busy machine too.
//
//	go run ./tools/slowscript -algorithm token_bucket -factor 3 -o algorithms/token_bucket.lua
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
)

// Measuring settings: calls per measurement, keys they spread over, and
// how close to the factor the result must come.
const (
	calls     = 20_000
	keys      = 200
	tolerance = 0.05
	maxRounds = 16
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
	base, err := usecPerCall(ctx, rdb, src, args)
	if err != nil {
		return err
	}
	// Find the loop length by bisection, doubling first to bracket it.
	lo, hi := 0, 256
	var slowed string
	var got float64
	for round := 0; ; round++ {
		if round == maxRounds {
			return fmt.Errorf("no loop length makes %s %.1fx slower within %d tries (last: %.2fx)", name, factor, maxRounds, got/base)
		}
		n := hi
		if got > 0 && got/base > factor {
			n = (lo + hi) / 2
		}
		slowed = slowDown(src, n)
		if got, err = usecPerCall(ctx, rdb, slowed, args); err != nil {
			return err
		}
		ratio := got / base
		fmt.Fprintf(os.Stderr, "slowscript: %d iterations: %.2fus per call, %.2fx the original %.2fus\n", n, got, ratio, base)
		switch {
		case ratio > factor*(1-tolerance) && ratio < factor*(1+tolerance):
			return write(out, fmt.Sprintf("-- slowed by tools/slowscript: %d busy iterations, %.2fx the original server time per call\n", n, ratio)+slowed)
		case ratio < factor && n == hi:
			lo, hi = hi, hi*2
		case ratio < factor:
			lo = n
		default:
			hi = n
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

// usecPerCall is the server time per call of src, from INFO commandstats
// over calls EVALSHA spread over keys keys: the median of three
// measurements.
func usecPerCall(ctx context.Context, rdb *redis.Client, src string, args []any) (float64, error) {
	script := algorithms.NewScript("slowscript", src)
	if err := script.Load(ctx, rdb); err != nil {
		return 0, err
	}
	var runs []float64
	for range 3 {
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			return 0, err
		}
		pipe := rdb.Pipeline()
		for i := 0; i < calls; i++ {
			pipe.EvalSha(ctx, script.SHA1(), []string{"rlbench:slowscript:" + strconv.Itoa(i%keys)}, args...)
			if pipe.Len() == 100 {
				if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
					return 0, err
				}
			}
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return 0, err
		}
		stat, err := redisenv.ReadCommandStat(ctx, rdb, "evalsha")
		if err != nil {
			return 0, err
		}
		runs = append(runs, stat.UsecPerCall())
	}
	if runs[0] > runs[1] {
		runs[0], runs[1] = runs[1], runs[0]
	}
	return max(runs[0], min(runs[1], runs[2])), nil
}

func write(path, src string) error {
	if path == "" {
		_, err := fmt.Print(src)
		return err
	}
	return os.WriteFile(path, []byte(src), 0o644)
}
