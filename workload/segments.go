package workload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// Segments says how this process shares a profile with others that run
// the other segments of its identities at the same time, against the same
// Redis, so that together they make one load. The zero value runs the
// whole profile alone.
type Segments struct {
	// Segment is this process's part of the identities.
	Segment plan.Segment
	// StartAt is the wall-clock instant every segment starts at; zero
	// starts at once.
	StartAt time.Time
	// Wait bounds how long a segment waits for the others before each run;
	// zero means DefaultSegmentWait.
	Wait time.Duration
}

// DefaultSegmentWait is how long a segment waits for the others to reach a
// run: a run's probes and clean-up differ in length between segments.
const DefaultSegmentWait = 2 * time.Minute

// segmentLead is how far after the last segment arrives the segments start
// a run together: time for every one of them to see the start and sleep
// until it.
const segmentLead = 200 * time.Millisecond

// segmentKeyTTL keeps the meeting keys from outliving a run by much.
const segmentKeyTTL = 10 * time.Minute

// Group names the segments of one load: the same profile (by its SHA-256),
// seed, count, start and plan. Every segment computes the same name; the
// segments of another group (another --algorithms, say) do not meet with
// them, and a merge refuses results of different groups.
func (s Segments) Group(p *plan.Plan) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%d/%s/%s", p.Profile.SHA256, p.Seed, s.Segment.Count, s.StartAt.UTC().Format(time.RFC3339Nano), planDigest(p))))
	return hex.EncodeToString(sum[:6])
}

// planDigest names the runs of p in order: each limiter, scenario and
// repetition.
func planDigest(p *plan.Plan) string {
	h := sha256.New()
	for _, r := range p.Runs {
		fmt.Fprintf(h, "%s\x00%s\x00%d\n", r.Algorithm, r.Scenario, r.Repetition)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// plannedRuns is how many runs p holds once repetitions are folded.
func plannedRuns(p *plan.Plan) int {
	n := 0
	for _, r := range p.Runs {
		if r.Repetition == 0 {
			n++
		}
	}
	return n
}

// contract is what the result records of the segment.
func (s Segments) contract(p *plan.Plan) *result.SegmentInfo {
	if s.Segment.Whole() {
		return nil
	}
	info := &result.SegmentInfo{Index: s.Segment.Index, Count: s.Segment.Count, Group: s.Group(p),
		Plan: planDigest(p), PlannedRuns: plannedRuns(p)}
	if !s.StartAt.IsZero() {
		t := s.StartAt.UTC()
		info.StartAt = &t
	}
	return info
}

// waitForStart sleeps on clock until the common start, if one is set.
func (s Segments) waitForStart(ctx context.Context, clock event.Clock) error {
	if s.StartAt.IsZero() {
		return nil
	}
	if d := time.Until(s.StartAt); d > 0 {
		if err := clock.Sleep(ctx, d); err != nil {
			return ErrInterrupted
		}
	}
	return nil
}

// meet makes the segments start run number index together: each takes
// its seat (its segment's index, under the id of the process, runID) in a
// hash of the group's, waits until every seat is taken, and the one that
// took the last names an instant in Redis's own time, segmentLead later,
// at which every segment starts. A seat another process already holds is
// refused: another load of the same group (the same profile, plan, seed
// and start, which a rerun with the same --start-at would be), or two
// processes given the same --segment, never run as one load. The keys lie
// outside every run's prefix (they belong to the group), and expire.
func (seg Segments) meet(ctx context.Context, rdb redis.UniversalClient, clock event.Clock, pl *plan.Plan, index int, runID string) error {
	if seg.Segment.Whole() {
		return nil
	}
	wait := seg.Wait
	if wait <= 0 {
		wait = DefaultSegmentWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	base := fmt.Sprintf("%sseg-%s:run%d:", redisenv.KeyPrefixRoot, seg.Group(pl), index)
	seats, seat := base+"seats", strconv.Itoa(seg.Segment.Index)
	var took *redis.BoolCmd
	var taken *redis.IntCmd
	var holder *redis.StringCmd
	// One transaction: exactly one segment sees every seat taken by its
	// own.
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		took = p.HSetNX(ctx, seats, seat, runID)
		holder = p.HGet(ctx, seats, seat)
		taken = p.HLen(ctx, seats)
		p.Expire(ctx, seats, segmentKeyTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("segment %s meeting the others at run %d: %w", seg.Segment, index+1, err)
	}
	if !took.Val() && holder.Val() != runID {
		return fmt.Errorf("segment %s: another process (run id %s) already took segment %d of this load at run %d: "+
			"a second load of the same profile needs a --start-at of its own, and each segment of a load its own --segment",
			seg.Segment, holder.Val(), seg.Segment.Index, index+1)
	}
	if took.Val() && taken.Val() == int64(seg.Segment.Count) {
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			return fmt.Errorf("segment %s: reading Redis TIME: %w", seg.Segment, err)
		}
		start := now.Add(segmentLead).UnixMicro()
		if err := rdb.SetNX(ctx, base+"start", start, segmentKeyTTL).Err(); err != nil {
			return fmt.Errorf("segment %s: %w", seg.Segment, err)
		}
	}
	var startMicros int64
	for {
		v, err := rdb.Get(ctx, base+"start").Result()
		if err == nil {
			startMicros, err = strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("segment %s: start of run %d is %q", seg.Segment, index+1, v)
			}
			break
		}
		if !errors.Is(err, redis.Nil) {
			if ctx.Err() != nil {
				n, _ := rdb.HLen(context.WithoutCancel(ctx), seats).Result()
				return fmt.Errorf("segment %s: only %d of %d segments reached run %d within %s", seg.Segment, n, seg.Segment.Count, index+1, wait)
			}
			return fmt.Errorf("segment %s meeting the others at run %d: %w", seg.Segment, index+1, err)
		}
		if err := clock.Sleep(ctx, 5*time.Millisecond); err != nil {
			n, _ := rdb.HLen(context.WithoutCancel(ctx), seats).Result()
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("segment %s: only %d of %d segments reached run %d within %s", seg.Segment, n, seg.Segment.Count, index+1, wait)
			}
			return ErrInterrupted
		}
	}
	offset, err := event.EstimateOffset(ctx, rdb, clock, event.DefaultOffsetSamples)
	if err != nil {
		return err
	}
	if d := offset.LocalTime(startMicros).Sub(clock.Now()); d > 0 {
		if err := clock.Sleep(ctx, d); err != nil {
			return ErrInterrupted
		}
	}
	return nil
}
