package redisenv

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// MemoryReading is one reading of the server's memory, in bytes.
type MemoryReading struct {
	// UsedMemory is INFO memory used_memory: everything Redis allocated.
	UsedMemory int64
	// ClientBuffers is what the connected clients take of it (query and
	// reply buffers, client structures). They swell and shrink with the
	// load rlbench's own connections put on the server, not with the keys
	// it wrote.
	ClientBuffers int64
}

// WithoutClients is used_memory less the clients' buffers: the part that
// follows the keyspace.
func (m MemoryReading) WithoutClients() int64 { return m.UsedMemory - m.ClientBuffers }

// ReadMemory reads used_memory and the clients' share of it. On a server
// rlbench started, the share is the sum of CLIENT LIST's tot-mem, which the
// server computes on the spot, read in one MULTI with INFO so nothing runs
// in between: INFO's mem_clients_normal is refreshed by the server's cron
// and still holds a busy second's buffers for a while after a run (on 64
// connections, a megabyte: 30 B per identity at 30,000 identities). On any
// other server CLIENT LIST would show rlbench other people's connections,
// so it settles for mem_clients_normal.
func ReadMemory(ctx context.Context, rdb redis.Cmdable, mode Mode) (MemoryReading, error) {
	if mode != Private {
		info, err := rdb.Info(ctx, "memory").Result()
		if err != nil {
			return MemoryReading{}, fmt.Errorf("INFO memory: %w", err)
		}
		return parseMemory(info)
	}
	pipe := rdb.TxPipeline()
	info := pipe.Info(ctx, "memory")
	list := pipe.ClientList(ctx)
	if _, err := pipe.Exec(ctx); err != nil {
		return MemoryReading{}, fmt.Errorf("MULTI INFO memory, CLIENT LIST: %w", err)
	}
	return ParseMemoryReading(info.Val(), list.Val())
}

// ParseMemoryReading reads one reading from the replies of INFO memory and
// CLIENT LIST taken in one MULTI: used_memory, and the clients' buffers as
// the sum of CLIENT LIST's tot-mem.
func ParseMemoryReading(info, clientList string) (MemoryReading, error) {
	m, err := parseMemory(info)
	if err != nil {
		return m, err
	}
	m.ClientBuffers, err = sumClientMemory(clientList)
	return m, err
}

// parseMemory reads used_memory and mem_clients_normal from INFO memory.
func parseMemory(info string) (MemoryReading, error) {
	fields := ParseInfo(info)
	used, err := infoInt(fields, "used_memory")
	if err != nil {
		return MemoryReading{}, err
	}
	// Servers before 5.0 have no mem_clients_normal; treat it as 0.
	clients, _ := infoInt(fields, "mem_clients_normal")
	return MemoryReading{UsedMemory: used, ClientBuffers: clients}, nil
}

// sumClientMemory adds up the tot-mem fields of a CLIENT LIST reply.
func sumClientMemory(list string) (int64, error) {
	var sum int64
	for _, line := range strings.Split(list, "\n") {
		for _, f := range strings.Fields(line) {
			v, ok := strings.CutPrefix(f, "tot-mem=")
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("CLIENT LIST: tot-mem=%q is not a number", v)
			}
			sum += n
		}
	}
	return sum, nil
}

func infoInt(fields map[string]string, name string) (int64, error) {
	v, ok := fields[name]
	if !ok {
		return 0, fmt.Errorf("INFO memory has no %s", name)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("INFO memory: %s is %q, not a number", name, v)
	}
	return n, nil
}

// SettleInterval is how far apart SettledMemory's readings are: more than
// one tick of the server's cron (hz 10), which is what shrinks the hash
// tables of keys just deleted.
const SettleInterval = 150 * time.Millisecond

// SettledMemory reads INFO memory until two readings SettleInterval apart
// agree (clients' buffers aside), or until timeout. Right after a run's keys
// are deleted the server still holds their emptied hash tables for a cron
// tick or two; a baseline read then would hide the next run's table growth.
// settled is false when the figure kept moving, as it does on a server
// other clients are writing to.
func SettledMemory(ctx context.Context, rdb redis.Cmdable, mode Mode, timeout time.Duration) (m MemoryReading, settled bool, err error) {
	prev, err := ReadMemory(ctx, rdb, mode)
	if err != nil {
		return prev, false, err
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		t := time.NewTimer(SettleInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return prev, false, ctx.Err()
		case <-t.C:
		}
		cur, err := ReadMemory(ctx, rdb, mode)
		if err != nil {
			return prev, false, err
		}
		if cur.WithoutClients() == prev.WithoutClients() {
			return cur, true, nil
		}
		prev = cur
	}
	return prev, false, nil
}

// CommandStat is one command's line of INFO commandstats.
type CommandStat struct {
	// Calls counts executions; Usec is the CPU time they took on the
	// server, in microseconds (for a script, including the commands it ran).
	Calls int64
	Usec  int64
	// FailedCalls counts executions that ended in an error.
	FailedCalls int64
}

// Sub returns the change from before to s.
func (s CommandStat) Sub(before CommandStat) CommandStat {
	return CommandStat{Calls: s.Calls - before.Calls, Usec: s.Usec - before.Usec, FailedCalls: s.FailedCalls - before.FailedCalls}
}

// UsecPerCall is the mean server time of one call, or 0 without calls.
func (s CommandStat) UsecPerCall() float64 {
	if s.Calls <= 0 {
		return 0
	}
	return float64(s.Usec) / float64(s.Calls)
}

// ReadCommandStat reads command's figures (e.g. "evalsha") from INFO
// commandstats. A command the server has not run yet reads as zeros.
func ReadCommandStat(ctx context.Context, rdb redis.Cmdable, command string) (CommandStat, error) {
	stats, err := ReadCommandStats(ctx, rdb, command)
	return stats[0], err
}

// ReadCommandStats reads several commands' figures from one INFO
// commandstats, in the order asked; on a cluster client, every master's,
// added up.
func ReadCommandStats(ctx context.Context, rdb redis.Cmdable, commands ...string) (CommandStats, error) {
	out := make(CommandStats, len(commands))
	err := eachMaster(ctx, rdb, func(node redis.Cmdable) error {
		stats, err := readCommandStats(ctx, node, commands)
		for i, s := range stats {
			out[i].Calls += s.Calls
			out[i].Usec += s.Usec
			out[i].FailedCalls += s.FailedCalls
		}
		return err
	})
	return out, err
}

// readCommandStats is ReadCommandStats on one server.
func readCommandStats(ctx context.Context, rdb redis.Cmdable, commands []string) (CommandStats, error) {
	out := make(CommandStats, len(commands))
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return out, fmt.Errorf("INFO commandstats: %w", err)
	}
	fields := ParseInfo(info)
	for i, c := range commands {
		if line, ok := fields["cmdstat_"+strings.ToLower(c)]; ok {
			if out[i], err = parseCommandStat(line); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// CommandStats are the figures of the commands one decision runs, in the
// order a command list names them.
type CommandStats []CommandStat

// ReadDecisionStats reads the figures of the commands of one decision, a
// list joined by "+" ("multi+exec"), from one INFO commandstats.
func ReadDecisionStats(ctx context.Context, rdb redis.Cmdable, commands string) (CommandStats, error) {
	return ReadCommandStats(ctx, rdb, strings.Split(commands, "+")...)
}

// Sub returns the change from before to s, command by command.
func (s CommandStats) Sub(before CommandStats) CommandStats {
	out := make(CommandStats, len(s))
	for i := range s {
		out[i] = s[i]
		if i < len(before) {
			out[i] = s[i].Sub(before[i])
		}
	}
	return out
}

// WentBackwards reports whether some command's figures shrank: the
// statistics were reset in between.
func (s CommandStats) WentBackwards() bool {
	for _, c := range s {
		if c.Calls < 0 || c.Usec < 0 || c.FailedCalls < 0 {
			return true
		}
	}
	return false
}

// PerDecision folds the commands of one decision into one figure: the
// first command's calls are the decisions, and each command adds its own
// mean time per call, so a command also called outside decisions (a PTTL
// that reads a window's end) does not weigh on them. Failed calls add up.
func (s CommandStats) PerDecision() CommandStat {
	if len(s) == 0 {
		return CommandStat{}
	}
	out := CommandStat{Calls: s[0].Calls}
	var perCall float64
	for _, c := range s {
		perCall += c.UsecPerCall()
		out.FailedCalls += c.FailedCalls
	}
	out.Usec = int64(math.Round(perCall * float64(out.Calls)))
	return out
}

// parseCommandStat reads "calls=3,usec=12,usec_per_call=4.00,...".
func parseCommandStat(line string) (CommandStat, error) {
	var s CommandStat
	for _, kv := range strings.Split(line, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var dst *int64
		switch k {
		case "calls":
			dst = &s.Calls
		case "usec":
			dst = &s.Usec
		case "failed_calls":
			dst = &s.FailedCalls
		default:
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return CommandStat{}, fmt.Errorf("INFO commandstats: %s=%q is not a number", k, v)
		}
		*dst = n
	}
	return s, nil
}

// ResetStats clears the server's statistics (CONFIG RESETSTAT), which only
// a server rlbench started may have done to it: on anyone else's server the
// counters belong to its operators.
func ResetStats(ctx context.Context, rdb redis.Cmdable, mode Mode) error {
	if mode != Private {
		return fmt.Errorf("refusing CONFIG RESETSTAT on a %s server: rlbench did not start it", modeName(mode))
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		return fmt.Errorf("CONFIG RESETSTAT: %w", err)
	}
	return nil
}

// StopLatencyTracking turns off Redis 7's per-command latency histograms
// on a server rlbench started. The server allocates one (about 25 KB) on a
// command's first call, and again after CONFIG RESETSTAT, so it would land
// in the memory delta of whichever run first used the command: 10% of a
// fixed window's bytes per identity at 10,000 identities. A server without
// the setting (before 7.0) is left as it is; any other server is refused.
func StopLatencyTracking(ctx context.Context, rdb redis.Cmdable, mode Mode) error {
	if mode != Private {
		return fmt.Errorf("refusing to change latency-tracking on a %s server: rlbench did not start it", modeName(mode))
	}
	cur, err := rdb.ConfigGet(ctx, "latency-tracking").Result()
	if err != nil {
		return fmt.Errorf("CONFIG GET latency-tracking: %w", err)
	}
	if v, ok := cur["latency-tracking"]; !ok || v == "no" {
		return nil
	}
	if err := rdb.ConfigSet(ctx, "latency-tracking", "no").Err(); err != nil {
		return fmt.Errorf("CONFIG SET latency-tracking no: %w", err)
	}
	return nil
}

func modeName(m Mode) string {
	if m == "" {
		return string(External)
	}
	return string(m)
}

// ReadKeyCount reads how many keys database db holds, from INFO keyspace
// ("db0:keys=3,expires=3,..."); a database without keys is not listed
// there and reads as 0.
func ReadKeyCount(ctx context.Context, rdb redis.Cmdable, db int) (int64, error) {
	info, err := rdb.Info(ctx, "keyspace").Result()
	if err != nil {
		return 0, fmt.Errorf("INFO keyspace: %w", err)
	}
	line, ok := ParseInfo(info)["db"+strconv.Itoa(db)]
	if !ok {
		return 0, nil
	}
	for _, kv := range strings.Split(line, ",") {
		if v, ok := strings.CutPrefix(kv, "keys="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO keyspace: keys=%q is not a number", v)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("INFO keyspace: db%d has no keys= field: %q", db, line)
}
