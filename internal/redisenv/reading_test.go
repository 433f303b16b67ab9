package redisenv

import "testing"

// TestAcrossSwitches: a counter is added up on either side of each server
// switch, and not at all when a server nobody scheduled took over.
func TestAcrossSwitches(t *testing.T) {
	r := func(id string, calls int64) Reading {
		return Reading{State: ServerState{RunID: id}, Stat: CommandStats{{Calls: calls}}}
	}
	calls := func(s Reading) int64 { return s.Stat.PerDecision().Calls }
	// 100 before, 150 when the old server went, the new one from 0 to 40.
	sw := []Switch{{Old: r("a", 150), New: r("b", 0)}}
	if n, ok := AcrossSwitches(r("a", 100), r("b", 40), sw, calls); !ok || n != 90 {
		t.Errorf("across a restart: %d, %v; want 50 + 40", n, ok)
	}
	if _, ok := AcrossSwitches(r("a", 100), r("c", 40), sw, calls); ok {
		t.Error("a third server nobody scheduled was added up")
	}
	if got := StatsAcross(CommandStats{{Calls: 100}}, CommandStats{{Calls: 40}}, sw); got.PerDecision().Calls != 90 {
		t.Errorf("commandstats across a restart: %d calls, want 90", got.PerDecision().Calls)
	}
}
