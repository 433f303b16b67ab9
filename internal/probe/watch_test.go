package probe

import (
	"io"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
)

// glances makes a glance every 100ms from t0, each from the reading at its
// place in gs (a nil error answered).
func glances(t0 time.Time, gs ...redisenv.Glance) []glance {
	out := make([]glance, len(gs))
	for i, g := range gs {
		sent := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		g.ServerUs = sent.UnixMicro()
		out[i] = glance{sent: sent, recv: sent.Add(time.Millisecond), g: g}
	}
	return out
}

func kinds(rep WatchReport) []string {
	var out []string
	for _, h := range rep.Happenings {
		out = append(out, h.Kind)
	}
	return out
}

func TestReadGlances(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	base := redisenv.Glance{RunID: "a", Deletes: 10, CachedScripts: 3}
	deleted := base
	deleted.Deletes = 14
	flushed := base
	flushed.FlushAll = 1
	restarted := redisenv.Glance{RunID: "b"}
	replica, replicaDeleted := base, deleted
	replica.Replica, replicaDeleted.Replica = true, true
	for _, tc := range []struct {
		why    string
		gs     []glance
		want   []string
		resets int
	}{
		{"nothing happened", glances(t0, base, base, base), nil, 0},
		{"another client deleted keys", glances(t0, base, deleted, deleted), []string{"deleted"}, 1},
		{"a FLUSHALL", glances(t0, base, flushed), []string{"flushall"}, 1},
		{"a new server", glances(t0, base, restarted), []string{"restart"}, 1},
		{"a replica runs its primary's DELs of expired keys", glances(t0, replica, replicaDeleted), nil, 0},
		{"a server that became a replica in between", glances(t0, base, replicaDeleted), nil, 0},
	} {
		rep := readGlances(tc.gs, event.Offset{}, false)
		if got := kinds(rep); len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("%s: saw %v, want %v", tc.why, got, tc.want)
		}
		if len(rep.Resets) != tc.resets {
			t.Errorf("%s: %d resets, want %d", tc.why, len(rep.Resets), tc.resets)
		}
	}

	// A glance that failed with a closed connection: the connection was
	// closed since the glance before it.
	gs := glances(t0, base, base, base)
	gs[1].err = io.EOF
	rep := readGlances(gs, event.Offset{}, false)
	if got := kinds(rep); len(got) != 1 || got[0] != "connections_closed" || !rep.Happenings[0].From.Equal(gs[0].recv) {
		t.Errorf("a closed connection: %+v", rep.Happenings)
	}
	// A glance answered a second late: a stall when the server ran it a
	// second after it was sent; rlbench's own when the server ran it at
	// once and rlbench read the reply late.
	for _, serverLate := range []bool{true, false} {
		gs := glances(t0, base, base, base, base, base)
		gs[2].recv = gs[2].sent.Add(time.Second)
		if serverLate {
			gs[2].g.ServerUs = gs[2].sent.Add(time.Second - time.Millisecond).UnixMicro()
		}
		got := kinds(readGlances(gs, event.Offset{}, false))
		if stalled := len(got) == 1 && got[0] == "stall"; stalled != serverLate {
			t.Errorf("a reply a second late, the server late %v: saw %v", serverLate, got)
		}
	}
	// The limiter deletes keys itself: deletions cannot be told apart.
	if rep := readGlances(glances(t0, base, deleted), event.Offset{}, true); len(rep.Happenings) != 0 {
		t.Errorf("a limiter that deletes: %+v", rep.Happenings)
	}
}
