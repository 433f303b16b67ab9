//go:build integration

package workload_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// squeezeObserver, as a run's traffic starts (after the readings it is
// measured against), caps the server's memory just above what it uses and
// switches it to allkeys-lru: from then on every new key evicts an old one.
type squeezeObserver struct {
	t   *testing.T
	rdb *redis.Client
}

func (o squeezeObserver) RunStarted(*workload.Progress) {
	ctx := context.Background()
	m, err := redisenv.ReadMemory(ctx, o.rdb, redisenv.Private)
	if err != nil {
		o.t.Error(err)
		return
	}
	if err := o.rdb.ConfigSet(ctx, "maxmemory", strconv.FormatInt(m.UsedMemory+256<<10, 10)).Err(); err != nil {
		o.t.Error(err)
	}
	if err := o.rdb.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		o.t.Error(err)
	}
}

func (squeezeObserver) RunFinished(*workload.Progress, *result.Run) {}

// TestIntegrationEvictionsAreNotBlamedOnTheLimiter: an eviction policy switched on in
// the middle of a run evicts limiter state; revisited identities are
// admitted again. The server's watch sees the evictions as they happen
// and the audit judges each decision in every state they may have left:
// no mismatch and no overshoot is blamed on the limiter, and, since every
// denial the model expected may have met an evicted state, the run could
// not have shown an excess and is inconclusive, for the evictions.
func TestIntegrationEvictionsAreNotBlamedOnTheLimiter(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	// One admission per identity per hour, 20,000 identities visited in
	// turn three times: several megabytes of sorted sets against a cap of
	// 256 KiB over what the server used when the traffic began.
	p := mustProfile(t, `
name: squeeze
policy: {limit: 1, window: 1h}
algorithms: [sliding_log]
concurrency: 16
scenarios:
  - shape: steady
    rate: max
    identities: 20000
    requests: 60000
`)
	runner := &workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private, MaxmemoryPolicy: "noeviction"}}
	runner.Observer = squeezeObserver{t: t, rdb: rdb}
	res, err := runner.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := &res.Runs[0]
	e := run.Eviction
	if e == nil || e.PolicyBefore != "noeviction" || e.PolicyAfter != "allkeys-lru" || e.EvictedKeys == 0 || !e.Audited {
		t.Fatalf("eviction %+v, want the policy change, the evicted keys, and the audit aware of them", e)
	}
	a := run.Audit
	if a == nil || a.Allowed <= int64(a.Identities) {
		t.Fatalf("audit %+v: evicted identities were not admitted again, so this test shows nothing", a)
	}
	if a.ModelMismatches != 0 || a.Overshoot != 0 || a.UnderAdmitted != 0 {
		t.Errorf("audit %+v: the evictions were blamed on the limiter", a)
	}
	verdict.Judge(res, nil)
	if res.Verdict != result.Inconclusive || len(res.VerdictReasons) != 1 || !strings.Contains(res.VerdictReasons[0], "Redis evict") {
		t.Errorf("verdict %s, reasons %q: want inconclusive, for the evictions", res.Verdict, res.VerdictReasons)
	}
	var summary bytes.Buffer
	if err := report.WriteSummary(&summary, res); err != nil {
		t.Fatal(err)
	}
	out := summary.String()
	if !strings.HasPrefix(out, "verdict: inconclusive: sliding_log/steady:") || !strings.Contains(out, "keys during the run (maxmemory-policy changed from noeviction to allkeys-lru)") ||
		strings.Contains(out, "OVERSHOOT") || strings.Contains(out, "MISMATCH:") {
		t.Errorf("the summary blames the limiter or misses the evictions:\n%s", out)
	}
}
