package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// TestRunList: the runs a kind of note applies to, named in one line.
func TestRunList(t *testing.T) {
	r := &result.Result{}
	for _, s := range []string{"steady", "edge", "many"} {
		for _, a := range []string{"a", "b", "c"} {
			r.Runs = append(r.Runs, result.Run{Algorithm: a, Scenario: s})
		}
	}
	for _, tc := range []struct {
		why  string
		keys []string
		want string
	}{
		{"one run is named as it is", []string{"b/edge"}, "b/edge"},
		{"every run is counted, not listed", []string{"a/steady", "b/steady", "c/steady", "a/edge", "b/edge", "c/edge", "a/many", "b/many", "c/many"}, "every run (9)"},
		{"whole scenarios first, then the others as runs", []string{"a/steady", "b/steady", "c/steady", "b/edge", "a/many", "b/many", "c/many"},
			"every algorithm in steady and many; b/edge"},
		{"a scenario's few algorithms together", []string{"a/edge", "c/edge", "b/many"}, "edge (a, c); b/many"},
		{"a name that is no run's key is kept", []string{"a/steady", "cluster"}, "a/steady; cluster"},
	} {
		if got := runList(r, tc.keys); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
	}
}

// TestNoteGroups: notes of one kind are one line naming their runs, the
// long explanation once and each run's own figures; a note alone of its
// kind is its whole text; the limiter's own failures come first, the
// most serious first, wherever they stood among the notes.
func TestNoteGroups(t *testing.T) {
	r := resulttest.Sample()
	base := r.Runs[0]
	base.Requests = result.Requests{Sent: 1000, Allowed: 600, Denied: 400}
	base.Errors = nil
	base.Audit = &result.Audit{Identities: 1, Decisions: 1000, Allowed: 600, ExpectedAllowed: 600, BoundWindow: 20, MaxWindowAdmitted: 20}
	mk := func(alg, scenario string, late int64, wait float64) result.Run {
		run := base
		a := *base.Audit
		run.Audit = &a
		run.Algorithm, run.Scenario = alg, scenario
		run.Requests.Late = late
		run.Generator = &result.Generator{CPUShare: 0.3, CPUWaitShare: wait}
		return run
	}
	on := true
	r.Host.SchedAutogroup = &on
	r.Verdict = ""
	r.Runs = []result.Run{
		mk("fixed_window", "steady", 100, 0.5),
		mk("sliding_log", "steady", 200, 0.4),
		mk("fixed_window", "edge", 0, 0.1),
		mk("sliding_log", "edge", 0, 0.1),
	}
	// The limiter's failures are last among the runs, and the less
	// serious (a leak) before the more (an overshoot).
	r.Runs[2].Memory = &result.Memory{Identities: 1, Keys: 3, KeysWithoutTTL: 3}
	r.Runs[3].Audit.Overshoot, r.Runs[3].Audit.Violations, r.Runs[3].Audit.MaxWindowAdmitted = 4, 1, 24

	groups := NoteGroups(r)
	if len(groups) != 4 {
		t.Fatalf("%d groups, want overshoot, leak, late sends and CPU waits: %+v", len(groups), groups)
	}
	if g := groups[0]; !g.Limiter || !strings.HasPrefix(g.Line, "sliding_log/edge: OVERSHOOT: 1 identity got") || g.Explanation != "" || len(g.Details) != 0 {
		t.Errorf("first group %+v, want the overshoot alone, in full", g)
	}
	if g := groups[1]; !g.Limiter || !strings.HasPrefix(g.Line, "FAIL fixed_window/edge: 3 of 3 keys") {
		t.Errorf("second group %+v, want the leak", g)
	}
	late := groups[2]
	if late.Limiter || late.Line != "late sends: over 1% of requests went out more than 1ms late: every algorithm in steady" ||
		!strings.Contains(late.Explanation, "More concurrency, pipelining or a lower rate") || len(late.Details) != 2 ||
		late.Details[1] != "sliding_log/steady: 200 requests (20.0%) late, the worst by 0us; p99 1.50ms from the due time, 0us from the actual send" {
		t.Errorf("late sends: %+v", late)
	}
	cpu := groups[3]
	if cpu.Line != "rlbench waited for a CPU 25% of the traffic's time or more: every algorithm in steady" ||
		!strings.Contains(cpu.Explanation, "kernel.sched_autogroup_enabled=1") || len(cpu.Details) != 2 || cpu.Details[0] != "fixed_window/steady: waited 50%, ran 30%" {
		t.Errorf("CPU waits: %+v", cpu)
	}

	// The summary says each explanation once, the limiter's failures
	// first, and the notes before the tables; the flat notes keep every
	// one in full.
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, once := range []string{"More concurrency, pipelining or a lower rate", "kernel.sched_autogroup_enabled=1"} {
		if n := strings.Count(out, once); n != 1 {
			t.Errorf("%q said %d times in the summary:\n%s", once, n, out)
		}
	}
	order := []string{"which limiter, is it right, what it costs:", "the limiter's own failures:", "OVERSHOOT", "notes:", "late sends", "sent  allowed", "verdict: fail\n"}
	at := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i <= at {
			t.Errorf("%q is not after %q:\n%s", s, order, out)
			break
		}
		at = i
	}
	if n := len(Notes(r)); n != 6 {
		t.Errorf("%d notes, want 6 (two late, two starved, a leak, an overshoot)", n)
	}
	if v := verdict.Assess(r); v.Verdict != result.Fail {
		t.Errorf("verdict %s, want fail", v.Verdict)
	}
}
