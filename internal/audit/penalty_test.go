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
)

// TestPenaltyDeclaredBound: a fixed window that blocks an identity for 2s
// once it overflows (testdata/penalty_window.lua, 10 a second), on a real
// redis-server. Twelve requests 10ms apart admit 10 and start the penalty
// with the 11th; ten more between 1.2s and 1.65s, in a window of their own,
// are denied for the penalty. Declared a fixed window, those denials break
// the family's promise to admit (nothing was admitted within the second
// before them): an under-admission, true of this script, which is why it
// fails so declared. Declared semantics: bound, 10 in any second, it keeps
// that bound and passes.
func TestPenaltyDeclaredBound(t *testing.T) {
	rdb := redistest.Client(t)
	src, err := os.ReadFile(filepath.Join("testdata", "penalty_window.lua"))
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.Policy{Limit: 10, Window: time.Second}
	const start = int64(1_764_000_000_000_000)
	for _, tc := range []struct {
		semantics algorithms.Semantics
		under     bool
	}{
		{algorithms.SemanticsFixedWindow, true},
		{algorithms.SemanticsBound, false},
	} {
		if err := rdb.FlushDB(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		var now time.Time
		d := &algorithms.Declaration{Name: "penalty", Script: string(src), SourcePath: "penalty_window.lua", Semantics: tc.semantics,
			Reply: algorithms.ReplyLayout{Allowed: 1},
			Keys:  []algorithms.Template{algorithms.MustParseTemplate("${identity}", algorithms.KeyVariables)},
			Args: []algorithms.Template{algorithms.MustParseTemplate("${now_ms}", algorithms.ArgVariables),
				algorithms.MustParseTemplate("${limit}", algorithms.ArgVariables),
				algorithms.MustParseTemplate("${window_ms}", algorithms.ArgVariables),
				algorithms.MustParseTemplate("2000", algorithms.ArgVariables)}}
		if tc.semantics == algorithms.SemanticsBound {
			d.Promise = algorithms.Promise{Admitted: 10, Per: time.Second}
		}
		lim, err := d.BindWith(rdb, p, algorithms.Binding{Scenario: "s", Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		a := New(Config{Limiter: lim, Identities: 1, Sample: 1})
		admitted := 0
		call := func(atUs int64) {
			now = time.UnixMicro(atUs)
			dec, err := lim.Allow(context.Background(), "rlbench:test:s:0")
			if err != nil {
				t.Fatal(err)
			}
			if dec.Allowed {
				admitted++
			}
			record(a, 0, &event.Outcome{Sent: now, Done: now.Add(200 * time.Microsecond), Decision: dec})
		}
		for i := range 12 {
			call(start + int64(i)*10_000)
		}
		for i := range 10 {
			call(start + 1_200_000 + int64(i)*50_000)
		}
		got := a.Finish(nil, nil).Audit
		if admitted != 10 || got.Overshoot != 0 {
			t.Fatalf("%s: %d admitted, overshoot %d: want 10, none", tc.semantics, admitted, got.Overshoot)
		}
		if under := got.UnderAdmitted > 0; under != tc.under {
			t.Errorf("%s: %d under-admitted, want some: %v", tc.semantics, got.UnderAdmitted, tc.under)
		}
	}
}
