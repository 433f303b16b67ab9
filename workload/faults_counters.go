package workload

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// serverReading is what a fault's readings take from the server right
// before and right after it: who the server is (a restarted one has a new
// run_id) and the counters a restart starts again from zero.
type serverReading struct {
	state redisenv.ServerState
	// stat is the commands of the limiter's decision in INFO commandstats.
	stat redisenv.CommandStats
	// connections is INFO stats total_connections_received, cachedScripts
	// INFO memory number_of_cached_scripts.
	connections   int64
	cachedScripts int64
	at            time.Time
	err           error
}

// readServer reads the server rdb talks to; a reading that failed says
// why in err.
func readServer(ctx context.Context, rdb redis.Cmdable, command string, clock Clock) serverReading {
	r := serverReading{at: clock.Now()}
	r.state, r.err = redisenv.ReadServerState(ctx, rdb)
	if r.err != nil {
		return r
	}
	if r.stat, r.err = redisenv.ReadDecisionStats(ctx, rdb, command); r.err != nil {
		return r
	}
	info, err := rdb.Info(ctx, "stats", "memory").Result()
	if err != nil {
		r.err = err
		return r
	}
	fields := redisenv.ParseInfo(info)
	r.connections, _ = strconv.ParseInt(fields["total_connections_received"], 10, 64)
	r.cachedScripts, _ = strconv.ParseInt(fields["number_of_cached_scripts"], 10, 64)
	return r
}

// serverSwitch is a fault replacing the server under the run: the old
// server's last reading and the new one's first. Counters are added up on
// either side of it, never across it.
type serverSwitch struct {
	old, new serverReading
}

// acrossSwitches adds a counter up from first to last over a run whose
// server was replaced at each switch: first to the old server's last
// reading, then from the next server's first reading on. ok is false when
// a reading is missing or the servers do not follow one another (a
// restart nobody scheduled).
func acrossSwitches(first, last serverReading, switches []serverSwitch, counter func(serverReading) int64) (sum int64, ok bool) {
	from := first
	for _, sw := range switches {
		if sw.old.err != nil || sw.new.err != nil || sw.old.state.RunID != from.state.RunID {
			return 0, false
		}
		sum += counter(sw.old) - counter(from)
		from = sw.new
	}
	if last.err != nil || last.state.RunID != from.state.RunID {
		return 0, false
	}
	return sum + counter(last) - counter(from), true
}

// readingFromState wraps an eviction watch's reading, which has the
// server's state only.
func readingFromState(s redisenv.ServerState) serverReading { return serverReading{state: s} }

// switchNote says how a counter was read over a run whose server a fault
// replaced.
func switchNote(n int) string {
	return fmt.Sprintf("the server was replaced %d times by scheduled faults: its counters were read right before and right after each, and added up on either side", n)
}

// statAcross is the statistics of a decision's commands from before to
// after over a run whose server was replaced at each switch, added up on
// either side.
func statAcross(before, after redisenv.CommandStats, switches []serverSwitch) redisenv.CommandStats {
	var sum redisenv.CommandStats
	from := before
	for _, sw := range switches {
		sum = addStats(sum, sw.old.stat.Sub(from))
		from = sw.new.stat
	}
	return addStats(sum, after.Sub(from))
}

// addStats adds b to a, command by command.
func addStats(a, b redisenv.CommandStats) redisenv.CommandStats {
	out := make(redisenv.CommandStats, max(len(a), len(b)))
	for i := range out {
		var x, y redisenv.CommandStat
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		out[i] = redisenv.CommandStat{Calls: x.Calls + y.Calls, Usec: x.Usec + y.Usec, FailedCalls: x.FailedCalls + y.FailedCalls}
	}
	return out
}
