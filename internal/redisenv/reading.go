package redisenv

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/plural"
)

// Reading is what a server says of itself at one instant that a run's
// figures are read across: who it is (a restarted server has a new
// run_id), the statistics of the limiter's decision in INFO
// commandstats, and the counters a restart starts again from zero.
type Reading struct {
	State ServerState
	// Stat is the commands of the limiter's decision in INFO commandstats.
	Stat CommandStats
	// Connections is INFO stats total_connections_received, CachedScripts
	// INFO memory number_of_cached_scripts.
	Connections   int64
	CachedScripts int64
	// At is when the reading was taken (local time).
	At  time.Time
	Err error
}

// ReadServer reads the server rdb talks to at local time at, for a
// decision counted under command in INFO commandstats; a reading that
// failed says why in Err.
func ReadServer(ctx context.Context, rdb redis.Cmdable, command string, at time.Time) Reading {
	r := Reading{At: at}
	r.State, r.Err = ReadServerState(ctx, rdb)
	if r.Err != nil {
		return r
	}
	if r.Stat, r.Err = ReadDecisionStats(ctx, rdb, command); r.Err != nil {
		return r
	}
	info, err := rdb.Info(ctx, "stats", "memory").Result()
	if err != nil {
		r.Err = err
		return r
	}
	fields := ParseInfo(info)
	r.Connections, _ = strconv.ParseInt(fields["total_connections_received"], 10, 64)
	r.CachedScripts, _ = strconv.ParseInt(fields["number_of_cached_scripts"], 10, 64)
	return r
}

// Started is r as the server read at its own start: the same server, with
// every counter a start sets to zero (the decision's statistics, the
// connections received, evictions and expiries) at zero. A server started
// afresh under a run may answer the run's calls before its first reading
// can be taken (its clients redial it on their own), so its first reading
// can miss them; counting from its start misses none.
func (r Reading) Started() Reading {
	r.Stat = make(CommandStats, len(r.Stat))
	r.Connections = 0
	r.State.EvictedKeys, r.State.ExpiredKeys = 0, 0
	return r
}

// Switch is the server being replaced under a run: the old server's last
// reading and the new one's first. Counters are added up on either side of
// it, never across it.
type Switch struct {
	Old, New Reading
}

// AcrossSwitches adds a counter up from first to last over a run whose
// server was replaced at each switch: first to the old server's last
// reading, then from the next server's first reading on. ok is false when
// a reading is missing or the servers do not follow one another (a
// restart nobody scheduled).
func AcrossSwitches(first, last Reading, switches []Switch, counter func(Reading) int64) (sum int64, ok bool) {
	from := first
	for _, sw := range switches {
		if sw.Old.Err != nil || sw.New.Err != nil || sw.Old.State.RunID != from.State.RunID {
			return 0, false
		}
		sum += counter(sw.Old) - counter(from)
		from = sw.New
	}
	if last.Err != nil || last.State.RunID != from.State.RunID {
		return 0, false
	}
	return sum + counter(last) - counter(from), true
}

// SwitchNote says how a counter was read over a run whose server a fault
// (or a failover by Sentinel)
// replaced n times.
func SwitchNote(n int) string {
	return fmt.Sprintf("the server was replaced %d %s during the run (by a scheduled fault or a Sentinel failover): its counters were read right before and right after each, and added up on either side", n, plural.Noun(n, "time", "times"))
}

// StatsAcross is the statistics of a decision's commands from before to
// after over a run whose server was replaced at each switch, added up on
// either side.
func StatsAcross(before, after CommandStats, switches []Switch) CommandStats {
	var sum CommandStats
	from := before
	for _, sw := range switches {
		sum = sum.Add(sw.Old.Stat.Sub(from))
		from = sw.New.Stat
	}
	return sum.Add(after.Sub(from))
}

// Add is s and o added command by command.
func (s CommandStats) Add(o CommandStats) CommandStats {
	out := make(CommandStats, max(len(s), len(o)))
	for i := range out {
		var x, y CommandStat
		if i < len(s) {
			x = s[i]
		}
		if i < len(o) {
			y = o[i]
		}
		out[i] = CommandStat{Calls: x.Calls + y.Calls, Usec: x.Usec + y.Usec, FailedCalls: x.FailedCalls + y.FailedCalls}
	}
	return out
}
