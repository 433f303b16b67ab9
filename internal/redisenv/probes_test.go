package redisenv

import (
	"context"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func TestParseCommandStat(t *testing.T) {
	for _, tc := range []struct {
		why  string
		line string
		want CommandStat
		err  bool
	}{
		{"Redis 7 line with rejected and failed calls",
			"calls=120,usec=1500,usec_per_call=12.50,rejected_calls=0,failed_calls=3", CommandStat{Calls: 120, Usec: 1500, FailedCalls: 3}, false},
		{"Redis 5/6 line without failed_calls", "calls=7,usec=70,usec_per_call=10.00", CommandStat{Calls: 7, Usec: 70}, false},
		{"a counter that is not a number", "calls=x,usec=1", CommandStat{}, true},
	} {
		got, err := parseCommandStat(tc.line)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%s: got %+v, %v", tc.why, got, err)
		}
	}
	d := CommandStat{Calls: 150, Usec: 2000, FailedCalls: 3}.Sub(CommandStat{Calls: 50, Usec: 500, FailedCalls: 1})
	if d != (CommandStat{Calls: 100, Usec: 1500, FailedCalls: 2}) || d.UsecPerCall() != 15 {
		t.Errorf("delta %+v, %v us/call", d, d.UsecPerCall())
	}
	if (CommandStat{}).UsecPerCall() != 0 {
		t.Errorf("no calls must give 0 us/call, not NaN")
	}
}

func TestSumClientMemory(t *testing.T) {
	list := "id=3 addr=127.0.0.1:5 laddr=127.0.0.1:6379 fd=8 name= age=1 qbuf=0 omem=0 tot-mem=22298 events=r cmd=client|list\n" +
		"id=4 addr=127.0.0.1:6 laddr=127.0.0.1:6379 fd=9 name= age=1 qbuf=26 omem=0 tot-mem=20000 events=r cmd=evalsha\n"
	if got, err := sumClientMemory(list); err != nil || got != 42298 {
		t.Errorf("sum %d, %v; want 42298", got, err)
	}
	if _, err := sumClientMemory("id=3 tot-mem=lots\n"); err == nil {
		t.Errorf("a tot-mem that is not a number passed")
	}
}

// TestProbesRefuseWhatIsNotTheirs: no statistics reset or setting change on
// a server rlbench did not start, and no scan, census or sample outside an
// rlbench run prefix. The embedded server is enough: every refusal happens
// before a command is sent.
func TestProbesRefuseWhatIsNotTheirs(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	for _, mode := range []Mode{External, Embedded, ""} {
		if err := ResetStats(ctx, rdb, mode); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("ResetStats on a %q server: %v", mode, err)
		}
		if err := StopLatencyTracking(ctx, rdb, mode); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("StopLatencyTracking on a %q server: %v", mode, err)
		}
	}
	for _, prefix := range []string{"", "customer:", "rlbench:"} {
		if _, err := TakeCensus(ctx, rdb, prefix, 10, 1, nil); err == nil {
			t.Errorf("census of %q went ahead", prefix)
		}
		if _, err := SampleMemory(ctx, rdb, prefix, nil, true, true); err == nil {
			t.Errorf("memory sample under %q went ahead", prefix)
		}
	}
	if _, err := SampleMemory(ctx, rdb, "rlbench:r1:a:s:", []string{"rlbench:r1:a:s:1", "customer:42"}, true, true); err == nil ||
		!strings.Contains(err.Error(), `"customer:42"`) {
		t.Errorf("sampling a key outside the prefix: %v", err)
	}
}

// TestCommandStatsPerDecision: a decision of several commands costs the sum
// of their times per call, counted per decision (the first command), so
// calls of a command outside decisions do not inflate it.
func TestCommandStatsPerDecision(t *testing.T) {
	for _, tc := range []struct {
		why   string
		stats CommandStats
		want  CommandStat
	}{
		{"one command is itself", CommandStats{{Calls: 4, Usec: 10, FailedCalls: 1}}, CommandStat{Calls: 4, Usec: 10, FailedCalls: 1}},
		{"MULTI and EXEC add up", CommandStats{{Calls: 100, Usec: 10}, {Calls: 100, Usec: 150}}, CommandStat{Calls: 100, Usec: 160}},
		{"a PTTL called twice as often counts at its time per call",
			CommandStats{{Calls: 100, Usec: 30}, {Calls: 100, Usec: 30}, {Calls: 200, Usec: 40}}, CommandStat{Calls: 100, Usec: 80}},
		{"a command not run yet adds nothing", CommandStats{{Calls: 10, Usec: 20}, {}}, CommandStat{Calls: 10, Usec: 20}},
		{"no commands, no figure", nil, CommandStat{}},
	} {
		if got := tc.stats.PerDecision(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.why, got, tc.want)
		}
	}
	after := CommandStats{{Calls: 10, Usec: 100}, {Calls: 12, Usec: 60}}
	before := CommandStats{{Calls: 4, Usec: 40}, {Calls: 6, Usec: 30}}
	if got := after.Sub(before); got[0] != (CommandStat{Calls: 6, Usec: 60}) || got[1] != (CommandStat{Calls: 6, Usec: 30}) {
		t.Errorf("Sub subtracts command by command: %+v", got)
	}
}
