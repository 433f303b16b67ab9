//go:build integration

package main

import (
	"testing"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/result"
)

// TestIntegrationCompareAll runs profiles/compare-all.yaml as shipped, on a
// private redis-server: every limiter worth comparing, in the steady, the
// boundary and the cardinality shape, keeps its bound, agrees with its
// model (where its replies carry server time), leaves no key without a
// TTL, and has its memory per identity and server time measured; the
// approximate windows are compared with the exact one.
func TestIntegrationCompareAll(t *testing.T) {
	res, _ := runShipped(t, "../../profiles/compare-all.yaml")
	runs := map[string]*result.Run{}
	for i := range res.Runs {
		runs[res.Runs[i].Key()] = &res.Runs[i]
	}
	for _, alg := range algorithms.Comparable() {
		for _, s := range []string{"steady", "boundary", "many"} {
			r := runs[alg+"/"+s]
			if r == nil || r.Audit == nil {
				t.Errorf("%s/%s: no audited run", alg, s)
				continue
			}
			a := r.Audit
			if a.Overshoot != 0 || a.ModelMismatches != 0 || r.Memory == nil || r.Memory.KeysWithoutTTL != 0 {
				t.Errorf("%s: audit %+v, memory %+v", r.Key(), a, r.Memory)
			}
			if approximate := alg == algorithms.SlidingCounterName || alg == algorithms.SlidingBucketsName; approximate != (a.VsExact != nil) {
				t.Errorf("%s: comparison with the exact window %+v", r.Key(), a.VsExact)
			}
		}
		many := runs[alg+"/many"]
		if many == nil || many.Memory == nil {
			continue
		}
		if b, ok := many.Memory.PerIdentity(); !ok || b <= 0 || many.Memory.Identities != 100_000 {
			t.Errorf("%s/many: %v bytes per identity over %d identities", alg, b, many.Memory.Identities)
		}
		if s := many.Server; s == nil || s.UsecPerCall <= 0 {
			t.Errorf("%s/many: no server time per decision: %+v", alg, s)
		}
	}
}
