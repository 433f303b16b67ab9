package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// openLoopRatioTarget is the most CPU rlbench's open loop may spend per
// decision for each second its closed loop spends, at the same batch size:
// keeping every request's due time should cost little beside sending it.
const openLoopRatioTarget = 1.5

// openLoopShare is the share of the closed loop's rate the open loop is
// offered: below the server's limit, so that it keeps its schedule, and
// high enough that its batches fill as the closed loop's do.
const openLoopShare = 0.75

// compareOpenLoop measures, on one private server, rlbench's open loop
// beside its closed loop at each pipeline depth, rounds alternated. Each
// round runs the closed loop at full speed (its rate, clients connections,
// depth requests per batch), then the open loop offered openLoopShare of
// that rate over the same connections and depth, then the closed loop
// again at the open loop's rate and batch size: as many connections as
// send that rate (found by short runs, matchedClosedLoop), each sending
// batches of the open loop's mean batch. It prints each one's rate, mean
// batch, wake-ups per batch and CPU seconds per million decisions
// (rlbench's threads over the traffic, auditing as a run does), and
// returns, per depth, the medians of the rounds' ratios open / closed at
// the same rate and batch size (target: at most openLoopRatioTarget) and
// open / closed at full speed.
func compareOpenLoop(rounds int, span time.Duration, clients, identities int, depths []int) (sameRate, fullSpeed map[int]float64, err error) {
	ctx := context.Background()
	serverPath, _, err := lookTools()
	if err != nil {
		return nil, nil, err
	}
	srv, err := redisenv.StartServer(ctx, serverPath)
	if err != nil {
		return nil, nil, err
	}
	defer srv.Stop()
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: srv.Addr, PoolSize: clients + 4})
	if err != nil {
		return nil, nil, err
	}
	defer env.Close()
	policy := algorithms.Policy{Limit: 1_000_000, Window: time.Minute}
	fmt.Printf("open loop: redis %s on %s; fixed_window, %d connections, %d keys; the open loop offered %.0f%% of the closed loop's rate in the same round, then a closed loop at the open loop's rate and batch size\n",
		env.Version, srv.Addr, clients, identities, 100*openLoopShare)
	sameRate, fullSpeed = map[int]float64{}, map[int]float64{}
	for _, depth := range depths {
		var same, full []float64
		for i := range rounds {
			closed, err := loopCPU(ctx, env, policy, clients, identities, depth, span, 0)
			if err != nil {
				return nil, nil, err
			}
			open, err := loopCPU(ctx, env, policy, clients, identities, depth, span, openLoopShare*closed.rate)
			if err != nil {
				return nil, nil, err
			}
			matched, conns, err := matchedClosedLoop(ctx, env, policy, clients, identities, open, span)
			if err != nil {
				return nil, nil, err
			}
			full = append(full, open.cpuPerMillion/closed.cpuPerMillion)
			same = append(same, open.cpuPerMillion/matched.cpuPerMillion)
			fmt.Printf("open loop -P %d round %d: closed %8.0f/s (batches of %4.1f, %4.1f wake-ups each) %6.2f s;  open %8.0f/s (batches of %4.1f, %4.1f wake-ups each, late %4.1f%%) %6.2f s;  closed at its rate %8.0f/s (%d connections, batches of %4.1f, %4.1f wake-ups each) %6.2f s;  CPU per million decisions open / closed at its rate %.2f, at full speed %.2f\n",
				depth, i+1, closed.rate, closed.batch, closed.wakeUps, closed.cpuPerMillion,
				open.rate, open.batch, open.wakeUps, 100*open.lateShare, open.cpuPerMillion,
				matched.rate, conns, matched.batch, matched.wakeUps, matched.cpuPerMillion,
				same[len(same)-1], full[len(full)-1])
		}
		sameRate[depth], fullSpeed[depth] = median(same), median(full)
		fmt.Printf("open loop -P %d median: CPU per million decisions open / closed at the same rate and batch size %.2f (target <= %.1f), open / closed at full speed %.2f\n",
			depth, sameRate[depth], openLoopRatioTarget, fullSpeed[depth])
	}
	return sameRate, fullSpeed, nil
}

// matchTries is how many short closed-loop runs matchedClosedLoop takes
// to find how many connections send the open loop's rate.
const matchTries = 6

// matchedClosedLoop measures the closed loop at open's rate and batch
// size: batches of open's mean batch (rounded), over as many connections
// as send open's rate. A closed loop's rate grows with its connections
// until the server is saturated, and then hardly at all, so the count is
// found by bisection between 1 and clients, on runs of half of span
// (shorter ones start slower than a whole span's average), up to
// matchTries runs or until one comes within 5%; the count whose run came
// closest is then measured over span. It returns the figures and the
// count.
func matchedClosedLoop(ctx context.Context, env *redisenv.Env, p algorithms.Policy, clients, identities int, open loopFigures, span time.Duration) (loopFigures, int, error) {
	depth := max(int(math.Round(open.batch)), 1)
	lo, hi := 1, clients
	best, bestMiss := clients, math.Inf(1)
	for range matchTries {
		if lo > hi {
			break
		}
		conns := (lo + hi) / 2
		try, err := loopCPU(ctx, env, p, conns, identities, depth, span/2, 0)
		if err != nil {
			return loopFigures{}, 0, err
		}
		rate := try.rate
		if miss := math.Abs(rate/open.rate - 1); miss < bestMiss {
			best, bestMiss = conns, miss
		}
		if bestMiss <= 0.05 {
			break
		}
		if rate > open.rate {
			hi = conns - 1
		} else {
			lo = conns + 1
		}
	}
	f, err := loopCPU(ctx, env, p, best, identities, depth, span, 0)
	return f, best, err
}

// loopFigures are what one measured loop cost rlbench.
type loopFigures struct {
	rate, batch, cpuPerMillion float64
	// lateShare is the share of the requests sent more than 1ms late.
	lateShare float64
	// wakeUps is how many times rlbench's threads were scheduled in per
	// batch: a process that goes idle between batches wakes for each
	// (its runtime's threads with it), which costs more than the batch.
	wakeUps float64
}

// loopCPU runs one loop (closed, or open at openPerSecond) and reads
// rlbench's CPU over its traffic. The server is emptied after it.
func loopCPU(ctx context.Context, env *redisenv.Env, p algorithms.Policy, clients, identities, depth int, span time.Duration, openPerSecond float64) (loopFigures, error) {
	watch := &trafficWatch{pids: []int{os.Getpid()}, span: span}
	late := &lateWatch{}
	rate, batch, _, err := rlbenchLoop(ctx, env, p, clients, identities, depth, span, observers{watch, late}, openPerSecond)
	if err != nil {
		return loopFigures{}, err
	}
	deltas, wall := watch.result()
	f := loopFigures{rate: rate, batch: batch, cpuPerMillion: perMillion(deltas[0].Run.Seconds(), rate*wall.Seconds()), lateShare: late.share}
	if batches := rate * wall.Seconds() / batch; batches > 0 {
		f.wakeUps = float64(deltas[0].Slices) / batches
	}
	if err := env.Client.FlushDB(ctx).Err(); err != nil { // a server started for this measurement
		return loopFigures{}, err
	}
	return f, nil
}

// describeRatios writes the median ratio of each depth, in order.
func describeRatios(ratios map[int]float64, depths []int) string {
	var parts []string
	for _, d := range depths {
		parts = append(parts, fmt.Sprintf("-P %d %.2f", d, ratios[d]))
	}
	return strings.Join(parts, ", ")
}

// observers tells each of its observers of every run.
type observers []workload.Observer

func (obs observers) RunStarted(p *workload.Progress) {
	for _, o := range obs {
		o.RunStarted(p)
	}
}

func (obs observers) RunFinished(p *workload.Progress, r *result.Run) {
	for _, o := range obs {
		o.RunFinished(p, r)
	}
}

// lateWatch keeps the share of a run's requests sent more than 1ms late:
// an open loop that could not keep its schedule measured a queue, not its
// pacing.
type lateWatch struct{ share float64 }

func (*lateWatch) RunStarted(*workload.Progress) {}

func (l *lateWatch) RunFinished(_ *workload.Progress, r *result.Run) {
	if r != nil && r.Requests.Sent > 0 {
		l.share = float64(r.Requests.Late) / float64(r.Requests.Sent)
	}
}
