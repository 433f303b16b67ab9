package probe

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// The server cost: the limiter's server time per decision over the
// trivial script's, measured side by side in rounds right after the run.
//
// The two kinds of call are interleaved call by call, and never in a
// pattern of even length. Redis runs a step of Lua's garbage collector
// inside every 50th script call, and charges its time to that call: with
// one script call after every decision, every step lands on the same kind
// of call for as long as the server lives, on the limiter's or on the
// reference's depending on how many scripts ran before, and the ratio of
// one run jumps by a fifth or more from the next's. Two decisions to one
// script call (a pattern of three calls, prime to 50) spreads the steps
// over both kinds in proportion to their calls, and a round of 150 script
// calls (100 decisions and 50 calls of the trivial script) holds exactly
// three steps, one on the trivial script and two on the decisions,
// wherever it starts: every round is charged alike.
const (
	// costRounds is how many rounds the server cost is measured in: the
	// run's ratio is their median, and their quartiles its spread.
	costRounds = 10
	// costDecisions is how many decisions one round makes, each on a key
	// of its own; a call of the trivial script follows every
	// costDecisionsPerScript of them.
	costDecisions          = 100
	costDecisionsPerScript = 2
	// luaGCPeriod is how many script calls Redis makes between two steps
	// of Lua's garbage collector (LUA_GC_CYCLE_PERIOD).
	luaGCPeriod = 50
)

// costCall is one call of a round: a decision, or a call of the trivial
// script.
type costCall bool

const (
	decisionCall costCall = false
	scriptCall   costCall = true
)

// costRound is the order of the calls of one round: a decision, a call of
// the trivial script after every costDecisionsPerScript-th decision.
var costRound = func() []costCall {
	var out []costCall
	for i := range costDecisions {
		out = append(out, decisionCall)
		if i%costDecisionsPerScript == 0 {
			out = append(out, scriptCall)
		}
	}
	return out
}()

// costMeasurement is what the rounds measured besides the ratio: the
// limiter's and the trivial script's server time per call (the median
// round's of each), and how many rounds there were.
type costMeasurement struct {
	limiterUsec, scriptUsec float64
	rounds                  int
}

// serverCost interleaves, costRounds times, costDecisions decisions of
// lim with calls of the trivial script, and reads the server time each
// took from INFO commandstats around every round. Side by side, both meet the same server: idle or busy, its CPU
// taken away or not. It reports the median round's ratio of the two, with
// the first and third quartiles of the rounds' ratios; all zero when the
// limiter does not say which commands its decisions run (the naive
// counter), or when a call failed. A decision of several commands (the
// fixed window without Lua) costs their times per call together.
//
// Every decision is on a key of its own under prefix, the first of its
// identity: a decision on a key used before would meet state that depends
// on how fast the rounds went (a sliding log holds more stamps, a bucket
// has refilled less, when they go faster than its window), and the
// ratio would follow the machine's speed.
func (t Target) serverCost(ctx context.Context, lim algorithms.Limiter, prefix string) (costMeasurement, result.CostRatio) {
	command := algorithms.CommandOf(lim)
	if command == referenceCommand {
		return costMeasurement{}, result.CostRatio{}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Timeout+5*time.Second)
	defer cancel()
	rdb := t.Env.Client
	// A decision of several commands ("multi+exec") costs their times
	// per call together (CommandStats.PerDecision).
	names := append(strings.Split(command, "+"), referenceCommand)
	n := len(names) - 1
	scripts := int64(len(costRound) - costDecisions)
	var lims, refs, ratios []float64
	for round := range costRounds {
		before, err := redisenv.ReadCommandStats(ctx, rdb, names...)
		if err != nil {
			return costMeasurement{}, result.CostRatio{}
		}
		decisions := 0
		for _, call := range costRound {
			var err error
			if call == scriptCall {
				err = rdb.EvalShaRO(ctx, referenceScript.SHA1(), nil).Err()
			} else {
				_, err = lim.Allow(ctx, CostKey(prefix, round*costDecisions+decisions))
				decisions++
			}
			if err != nil {
				return costMeasurement{}, result.CostRatio{}
			}
		}
		after, err := redisenv.ReadCommandStats(ctx, rdb, names...)
		if err != nil {
			return costMeasurement{}, result.CostRatio{}
		}
		l, f := after[:n].Sub(before[:n]).PerDecision(), after[n].Sub(before[n])
		if l.Calls != costDecisions || f.Calls < scripts || f.Usec <= 0 {
			return costMeasurement{}, result.CostRatio{}
		}
		lims, refs = append(lims, l.UsecPerCall()), append(refs, f.UsecPerCall())
		ratios = append(ratios, l.UsecPerCall()/f.UsecPerCall())
	}
	slices.Sort(ratios)
	m := costMeasurement{limiterUsec: result.Median(lims), scriptUsec: result.Median(refs), rounds: len(ratios)}
	return m, result.CostRatio{Median: result.Median(ratios), Low: quartile(ratios, 1), High: quartile(ratios, 3)}
}

// quartile is the q-th quartile (1 or 3) of sorted, interpolated between
// ranks.
func quartile(sorted []float64, q int) float64 {
	pos := float64(q) * float64(len(sorted)-1) / 4
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
