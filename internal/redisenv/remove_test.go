package redisenv_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestRemoveNamedTouchesOnlyItsNames: removing keys by name removes the
// named keys under the prefix and counts those that existed, leaves every
// other key (the prefix's unnamed ones, a longer prefix's, anyone's), and
// refuses a name outside the prefix before removing anything of its batch.
func TestRemoveNamedTouchesOnlyItsNames(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	const prefix = "rlbench:rn1:fixed_window:once:"
	for i := range 2500 {
		if i%5 != 0 { // every fifth identity never made a key
			rdb.Set(ctx, fmt.Sprint(prefix, i), "x", 0)
		}
	}
	others := []string{prefix + "aux", "rlbench:rn1:fixed_window:once2:1", "customer:1"}
	for _, k := range others {
		rdb.Set(ctx, k, "x", 0)
	}
	env := &redisenv.Env{Client: rdb, Mode: redisenv.Private}
	removed, err := env.RemoveNamed(prefix, 2500, func(i int) string { return fmt.Sprint(prefix, i) })
	if err != nil || removed != 2000 {
		t.Fatalf("removed %d (%v), want the 2000 that existed", removed, err)
	}
	if n := rdb.DBSize(ctx).Val(); n != int64(len(others)) {
		t.Errorf("%d keys left, want the %d that were not named", n, len(others))
	}
	removed, err = env.RemoveNamed(prefix, 3, func(i int) string { return []string{prefix + "aux", "customer:1", prefix + "x"}[i] })
	if err == nil || removed != 0 || rdb.Exists(ctx, prefix+"aux", "customer:1").Val() != 2 {
		t.Errorf("a batch naming a key outside the prefix: removed %d, err %v; want a refusal and nothing removed", removed, err)
	}
	if _, err := env.RemoveNamed("customer:", 1, func(int) string { return "customer:1" }); err == nil {
		t.Error("a prefix outside rlbench's root was not refused")
	}
}
