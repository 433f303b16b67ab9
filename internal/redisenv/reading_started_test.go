package redisenv

import "testing"

// TestStartedCountsFromZero: a server read after its start keeps who it
// is and counts from zero, so calls it answered before the reading are
// added up across a switch to it.
func TestStartedCountsFromZero(t *testing.T) {
	old := Reading{State: ServerState{RunID: "a"}, Stat: CommandStats{{Calls: 100, Usec: 500}}}
	first := Reading{State: ServerState{RunID: "b", EvictedKeys: 2, ExpiredKeys: 3}, Stat: CommandStats{{Calls: 25, Usec: 50}}, Connections: 8}
	last := Reading{State: ServerState{RunID: "b", EvictedKeys: 2, ExpiredKeys: 3}, Stat: CommandStats{{Calls: 40, Usec: 80}}, Connections: 9}
	start := Reading{State: ServerState{RunID: "a"}, Stat: CommandStats{{Calls: 10, Usec: 20}}}
	from := first.Started()
	if from.State.RunID != "b" || from.Connections != 0 || from.State.EvictedKeys != 0 || from.State.ExpiredKeys != 0 || len(from.Stat) != 1 || from.Stat[0] != (CommandStat{}) {
		t.Fatalf("started: %+v", from)
	}
	if first.Stat[0].Calls != 25 {
		t.Fatal("Started changed the reading it was called on")
	}
	// 90 calls on the old server after start, 40 on the new one in all.
	if got := StatsAcross(start.Stat, last.Stat, []Switch{{Old: old, New: from}}); got[0].Calls != 130 {
		t.Errorf("calls across the switch from the new server's start: %d, want 130", got[0].Calls)
	}
	if got := StatsAcross(start.Stat, last.Stat, []Switch{{Old: old, New: first}}); got[0].Calls != 105 {
		t.Errorf("calls across the switch from its first reading: %d, want 105 (the 25 before it missed)", got[0].Calls)
	}
	if n, ok := AcrossSwitches(start, last, []Switch{{Old: old, New: from}}, func(r Reading) int64 { return r.State.ExpiredKeys }); !ok || n != 3 {
		t.Errorf("expiries across the switch: %d (%v), want the new server's 3", n, ok)
	}
}
