package redisenv_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestSweepOutside: on a private server the keys outside the run's prefix
// are counted, named and removed, and the run's keys stay; on any other
// server nothing is looked at.
func TestSweepOutside(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	const root = "rlbench:s1:"
	for i := 0; i < 1500; i++ {
		rdb.Set(ctx, fmt.Sprint(root, "mine:edge:", i), "x", 0)
	}
	for i := 0; i < 1200; i++ {
		rdb.Set(ctx, fmt.Sprint("stray:", i), "x", 0)
	}
	for _, mode := range []redisenv.Mode{redisenv.External, redisenv.Embedded} {
		if _, err := redisenv.SweepOutside(ctx, rdb, mode, root, 3); err == nil || !strings.Contains(err.Error(), "rlbench did not start it") {
			t.Errorf("%s server: %v", mode, err)
		}
	}
	if _, err := redisenv.SweepOutside(ctx, rdb, redisenv.Private, "rlbench:", 3); err == nil {
		t.Errorf("the bare root is not a run prefix")
	}
	out, err := redisenv.SweepOutside(ctx, rdb, redisenv.Private, root, 3)
	if err != nil {
		t.Fatal(err)
	}
	if out.Keys != 1200 || len(out.Examples) != 3 || !strings.HasPrefix(out.Examples[0], "stray:") {
		t.Errorf("found %d outside, examples %q; want 1200 stray keys", out.Keys, out.Examples)
	}
	if n, _ := rdb.DBSize(ctx).Result(); n != 1500 {
		t.Errorf("%d keys left, want the run's 1500", n)
	}
}
