//go:build integration

package workload_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// redirectWait bounds each wait for a redirection the live traffic must
// meet: with every identity sent to several times a second, one comes
// within a fraction of it.
const redirectWait = 10 * time.Second

// migrator moves the slots of a few identities from one master to
// another while a run's traffic goes on, and waits, for each slot, until
// the traffic has met the redirection the migration makes certain: once
// the slot's keys have left the source, and before the slot is handed
// over, a request for the identity goes where the client's map says (the
// source, which still owns the slot) and finds its key missing there:
// ASK. (Whether a MOVED follows the hand-over depends on whether the
// client reloaded its map first, which the ASKs have it do.)
type migrator struct {
	env        *redisenv.Env
	masters    []redisenv.Node
	identities []int
	done       chan error
	once       sync.Once
}

func (m *migrator) RunStarted(*workload.Progress) {
	m.once.Do(func() { go func() { m.done <- m.migrate(context.Background()) }() })
}

func (m *migrator) RunFinished(*workload.Progress, *result.Run) {}

// migrate moves every identity's slot from the first master to the
// second, one after the other.
func (m *migrator) migrate(ctx context.Context) error {
	src, dst := m.masters[0].Client.(*redis.Client), m.masters[1].Client.(*redis.Client)
	srcID, err := src.ClusterMyID(ctx).Result()
	if err != nil {
		return err
	}
	dstID, err := dst.ClusterMyID(ctx).Result()
	if err != nil {
		return err
	}
	host, port, _ := strings.Cut(m.masters[1].Addr, ":")
	for _, id := range m.identities {
		slot := algorithms.KeySlot("{" + strconv.Itoa(id) + "}")
		if err := dst.Do(ctx, "cluster", "setslot", slot, "importing", srcID).Err(); err != nil {
			return fmt.Errorf("slot %d: IMPORTING: %w", slot, err)
		}
		if err := src.Do(ctx, "cluster", "setslot", slot, "migrating", dstID).Err(); err != nil {
			return fmt.Errorf("slot %d: MIGRATING: %w", slot, err)
		}
		asked := m.env.Redirections().Ask
		for {
			keys, err := src.ClusterGetKeysInSlot(ctx, slot, 100).Result()
			if err != nil {
				return fmt.Errorf("slot %d: GETKEYSINSLOT: %w", slot, err)
			}
			if len(keys) == 0 {
				break
			}
			args := []any{"migrate", host, port, "", 0, 5000, "keys"}
			for _, k := range keys {
				args = append(args, k)
			}
			if err := src.Do(ctx, args...).Err(); err != nil {
				return fmt.Errorf("slot %d: MIGRATE: %w", slot, err)
			}
		}
		if !waitUntil(func() bool { return m.env.Redirections().Ask > asked }) {
			return fmt.Errorf("slot %d: no request met ASK within %s while it migrated", slot, redirectWait)
		}
		for _, n := range m.masters {
			if err := n.Client.Do(ctx, "cluster", "setslot", slot, "node", dstID).Err(); err != nil {
				return fmt.Errorf("slot %d: SETSLOT NODE on %s: %w", slot, n.Addr, err)
			}
		}
		// The traffic goes on: the identity's next call lands on the new
		// master, which holds its key from then on (the key the ASK made
		// there may have expired, or the ASK may have met a key that was
		// never made on the source).
		var n int64
		var err error
		if !waitUntil(func() bool { n, err = dst.ClusterCountKeysInSlot(ctx, slot).Result(); return err == nil && n > 0 }) {
			return fmt.Errorf("slot %d: the new master holds %d of its keys (%v)", slot, n, err)
		}
	}
	return nil
}

func waitUntil(cond func() bool) bool {
	for deadline := time.Now().Add(redirectWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// TestIntegrationSlotMigrationLosesNoDecision moves the slots of eight
// identities from one master to another under live traffic, through
// every built-in limiter in turn: every request gets a decision, the
// audit finds every limiter exact (its state moved with its keys), and
// the run counts the MOVED and ASK redirections its calls followed. One
// limiter runs again pipelined: go-redis follows the redirections of a
// batch's calls one by one.
func TestIntegrationSlotMigrationLosesNoDecision(t *testing.T) {
	ctx := context.Background()
	const identities = 60
	type migration struct{ alg, name, pipeline string }
	var cases []migration
	for _, alg := range algorithms.Default() {
		cases = append(cases, migration{alg, alg, "1"})
	}
	cases = append(cases, migration{"sliding_log", "sliding_log-pipelined", "8"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := redistest.ClusterEnv(t, 3)
			masters, err := redisenv.Masters(ctx, env.Client)
			if err != nil {
				t.Fatal(err)
			}
			// Eight of the identities on the first master, whose slots
			// move.
			var moving []int
			first := redisenv.SlotRanges(3)[0]
			for id := 0; id < identities && len(moving) < 8; id++ {
				if s := algorithms.KeySlot("{" + strconv.Itoa(id) + "}"); s >= first[0] && s <= first[1] {
					moving = append(moving, id)
				}
			}
			if len(moving) < 8 {
				t.Fatalf("only %d identities on the first master", len(moving))
			}
			p, err := profile.Parse("m.yaml", []byte(fmt.Sprintf(`
policy: {limit: 20, window: 1s}
algorithms: [%s]
concurrency: 8
pipeline: %s
scenarios:
  - name: migrate
    shape: steady
    rate: 2x
    arrival: uniform
    identities: %d
    duration: 60s
    requests: 60000
`, tc.alg, tc.pipeline, identities)))
			if err != nil {
				t.Fatal(err)
			}
			mig := &migrator{env: env, masters: masters, identities: moving, done: make(chan error, 1)}
			rctx, stop := context.WithCancel(ctx)
			defer stop()
			var res *result.Result
			var runErr error
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				res, runErr = (&workload.Runner{Plan: p.Plan(1), Env: env, Observer: mig}).Run(rctx)
			}()
			// The run goes on until the slots have moved and a while
			// after, on their new master, then stops as after Ctrl-C:
			// calls in flight finish and are counted.
			select {
			case err := <-mig.done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(90 * time.Second):
				t.Fatal("the migration did not finish")
			}
			time.Sleep(500 * time.Millisecond)
			stop()
			<-ran
			if runErr != nil && runErr != workload.ErrInterrupted {
				t.Fatal(runErr)
			}
			run := res.Runs[0]
			q, a, c := run.Requests, run.Audit, run.Cluster
			if q.Sent == 0 || q.Errors != 0 || q.Sent != q.Allowed+q.Denied || a.Decisions != q.Sent {
				t.Errorf("requests %+v, audited decisions %d, errors %v: a decision was lost", q, a.Decisions, run.Errors)
			}
			if a.ModelMismatches != 0 || a.Overshoot != 0 {
				t.Errorf("audit %+v: a limiter's state did not move whole with its keys", *a)
			}
			if p := run.Pipeline; tc.pipeline != "1" && (p == nil || p.Depth != 8) {
				t.Errorf("pipeline %+v: the run was not pipelined", p)
			}
			if c == nil || c.Redirections.Total() == 0 || c.Redirections.Ask == 0 {
				t.Errorf("cluster %+v, want the ASK redirections counted", c)
			} else {
				t.Logf("%d decisions, redirections %+v", q.Sent, c.Redirections)
			}
		})
	}
}
