package algorithms_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// auditBroken runs limiter name through a steady load and bursts across
// its window boundary, with newBroken building the limiter in its place,
// and returns each scenario's audit.
func auditBroken(t *testing.T, name string, newBroken func(rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error)) map[string]*result.Audit {
	t.Helper()
	p, err := profile.Parse("broken.yaml", []byte(fmt.Sprintf(`
policy: {limit: 10, window: 200ms, bucket: 50ms}
algorithms: [%s]
concurrency: 16
seed: 3
scenarios:
  - name: steady
    shape: steady
    rate: 3x
    arrival: poisson
    identities: 6
    duration: 600ms
  - name: edge
    shape: boundary
    identities: 4
    burst: 12
    offset: 30ms
    stagger: 70ms
`, name)))
	if err != nil {
		t.Fatal(err)
	}
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: redistest.Client(t)},
		NewLimiter: func(_ string, rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
			return newBroken(rdb, p)
		}}
	res, err := runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	audits := map[string]*result.Audit{}
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.Audit == nil || r.Requests.Errors > 0 {
			t.Fatalf("%s: audit %+v, errors %v", r.Key(), r.Audit, r.Errors)
		}
		audits[r.Scenario] = r.Audit
	}
	return audits
}

// TestAuditCatchesBrokenCopies: a copy of each new limiter with one
// deliberate bug, the kind such scripts have, runs under the limiter's own
// name, model and bound; the audit flags it. The scripted ones disagree
// with their model; the fixed window without Lua, judged on the client's
// clock, admits past its bound across the boundary.
func TestAuditCatchesBrokenCopies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		why      string
		from, to string
	}{
		{algorithms.GCRAName, "a tolerance one emission interval too wide: burst + 1 at once",
			"if ahead <= tolerance then", "if ahead <= tolerance + window_us then"},
		{algorithms.SlidingCounterName, "an estimate equal to the limit admitted: limit + 1 in a window after a quiet one",
			"if cur * window_us < budget then", "if cur * window_us <= budget then"},
		{algorithms.SlidingBucketsName, "one bucket too few in the window",
			"local oldest = cur - n + 1", "local oldest = cur - n + 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			audits := auditBroken(t, tc.name, func(rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
				l, err := algorithms.New(tc.name, rdb, p)
				if err != nil {
					return nil, err
				}
				src := l.(interface{ Script() *algorithms.Script }).Script().Source()
				broken := strings.Replace(src, tc.from, tc.to, 1)
				if broken == src {
					return nil, fmt.Errorf("the %s script no longer has %q", tc.name, tc.from)
				}
				return algorithms.WithScript(l, broken)
			})
			mismatches := audits["steady"].ModelMismatches + audits["edge"].ModelMismatches
			if mismatches == 0 {
				t.Errorf("%s: the audit saw no decision differ from the model (%+v, %+v)", tc.why, *audits["steady"], *audits["edge"])
			}
			t.Logf("%s: %d mismatches, overshoot %d (steady) and %d (edge)", tc.why, mismatches, audits["steady"].Overshoot, audits["edge"].Overshoot)
		})
	}
	for _, name := range []string{algorithms.FixedWindowNXName, algorithms.FixedWindowNXPipelinedName} {
		t.Run(name, func(t *testing.T) {
			audits := auditBroken(t, name, func(rdb algorithms.Redis, p algorithms.Policy) (algorithms.Limiter, error) {
				l, err := algorithms.New(name, rdb, p)
				if err != nil {
					return nil, err
				}
				return algorithms.AdmitOneMore(l.(*algorithms.FixedWindowNX)), nil
			})
			// limit + 1 before the boundary and limit + 1 after it: past
			// the bound of 2 x limit, wherever in its round trip each was
			// decided (the bursts are 30ms from the boundary).
			if a := audits["edge"]; a.Overshoot == 0 || a.Basis != result.AuditByBoundClientTime {
				t.Errorf("admitting limit + 1 per window: %+v; want overshoot on the client's clock", *a)
			}
		})
	}
}
