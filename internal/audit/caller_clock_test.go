package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// wholeSecondLog binds testdata/name, a moving window in a list whose
// caller passes its clock in whole seconds (${now_s}), on rdb for 10 a
// second, declared with semantics (its promise, for bound: 10 in any
// second), its caller's clock read from now.
func wholeSecondLog(t *testing.T, rdb algorithms.Redis, name string, semantics algorithms.Semantics, now *time.Time) algorithms.Limiter {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.Policy{Limit: 10, Window: time.Second}
	d := &algorithms.Declaration{Name: "whole_second_log", Script: string(src), SourcePath: name, Semantics: semantics,
		Reply: algorithms.ReplyLayout{Allowed: 1},
		Keys:  []algorithms.Template{algorithms.MustParseTemplate("${identity}", algorithms.KeyVariables)},
		Args: []algorithms.Template{algorithms.MustParseTemplate("${now_s}", algorithms.ArgVariables),
			algorithms.MustParseTemplate("${limit}", algorithms.ArgVariables),
			algorithms.MustParseTemplate("${window_s}", algorithms.ArgVariables)}}
	if semantics == algorithms.SemanticsBound {
		d.Promise = algorithms.Promise{Admitted: 10, Per: time.Second}
	}
	lim, err := d.BindWith(rdb, p, algorithms.Binding{Scenario: "s", Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return lim
}

// TestWholeSecondClockJudgedOnTheTrueClock: a moving window of 10 a second
// whose caller passes its clock in whole seconds, on a real redis-server.
// Ten requests from 900ms into a second T and ten from 5ms past T+1, each
// answered 200us after it was sent: the script takes the two bursts, 150ms
// apart, for a second apart. Five more come late in T+1. The one that compares its whole-second stamps
// as if they were exact admits all twenty: on its own clock no window holds
// more than 10, on the true clock one holds 20, all within 150ms and 11 of
// them within 105ms across a second boundary, and that is an overshoot of 10. The one written for its
// clock (a stamp may be a second late) denies the second burst: no
// overshoot, whichever way it is declared. Declared a sliding_log, whose
// promise it does not keep, its denials late in T+1 (nothing admitted
// within the second before them) are an under-admission: true, and the
// cost of its conservative design; semantics: bound holds it to its bound
// alone, and it passes.
func TestWholeSecondClockJudgedOnTheTrueClock(t *testing.T) {
	rdb := redistest.Client(t)
	const second = int64(1_764_000_000_000_000)
	for _, tc := range []struct {
		script    string
		semantics algorithms.Semantics
		overshoot int64
		under     bool
	}{
		{"whole_second_log_off_by_one.lua", algorithms.SemanticsBound, 10, false},
		{"whole_second_log_off_by_one.lua", algorithms.SemanticsSlidingLog, 10, false},
		{"whole_second_log.lua", algorithms.SemanticsBound, 0, false},
		{"whole_second_log.lua", algorithms.SemanticsSlidingLog, 0, true},
	} {
		if err := rdb.FlushDB(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		var now time.Time
		lim := wholeSecondLog(t, rdb, tc.script, tc.semantics, &now)
		a := New(Config{Limiter: lim, Identities: 1, Sample: 1})
		call := func(atUs int64) {
			now = time.UnixMicro(atUs)
			d, err := lim.Allow(context.Background(), "rlbench:test:s:0")
			if err != nil {
				t.Fatal(err)
			}
			record(a, 0, &event.Outcome{Sent: now, Done: now.Add(200 * time.Microsecond), Decision: d})
		}
		for i := range 10 {
			call(second + 900_000 + int64(i)*5_000)
		}
		for i := range 10 {
			call(second + 1_005_000 + int64(i)*5_000)
		}
		// Late in T+1, more than a second after the first burst: the
		// off-by-one one denies them (the second burst is in the window),
		// the conservative one too, where a sliding log admits.
		for i := range 5 {
			call(second + 1_950_000 + int64(i)*5_000)
		}
		got := a.Finish(nil, nil).Audit
		what := tc.script + " as " + string(tc.semantics)
		cc := got.CallerClock
		if cc == nil || cc.TickUs != 1_000_000 || cc.MaxWindowAdmittedOwn != 10 {
			t.Fatalf("%s: caller clock %+v, want a tick of a second and 10 in a window on its own clock", what, cc)
		}
		if got.Overshoot != tc.overshoot || got.MaxWindowAdmitted != 10+tc.overshoot {
			t.Errorf("%s: overshoot %d, busiest window %d on the true clock; want %d and %d", what, got.Overshoot, got.MaxWindowAdmitted, tc.overshoot, 10+tc.overshoot)
		}
		switch b := cc.Burst; {
		case tc.overshoot == 0 && b != nil:
			t.Errorf("%s: a burst %+v past a bound it kept", what, *b)
		case tc.overshoot > 0 && (b == nil || b.Admitted != 20 || b.WithinMs != 105.2 || b.AdmittedWithinMs != 150.2 || !b.AcrossTicks):
			t.Errorf("%s: burst %+v, want 20 in the window, all within 150.2ms and more than 10 within 105.2ms, across a second boundary", what, b)
		}
		if under := got.UnderAdmitted > 0; under != tc.under {
			t.Errorf("%s: %d under-admitted, want some: %v", what, got.UnderAdmitted, tc.under)
		}
		if got.Basis != result.AuditByBoundCallerTime {
			t.Errorf("%s: basis %q", what, got.Basis)
		}
	}
}
