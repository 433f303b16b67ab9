package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// Memory per identity when the run's keys do not outlive it.
//
// A bucket's key lives until its bucket would be full again: after one
// request of a token bucket of 50 per 10 s, 200 ms. A run that decides
// 100,000 identities one after the other takes seconds, so by the census
// most of their keys are gone (712 of 100,000 alive in one run), and
// used_memory still holds the hash tables grown for all of them: divided by
// the few left, it is no cost per identity (481 B for a token bucket whose
// key costs about 150). The fill measures it apart: as many fresh
// identities as the run had, each decided once, inside one MULTI with
// INFO memory and CLIENT LIST read before and after them. Nothing else
// runs within a transaction, and the server expires no key in it, so every
// key the fill made is there when the memory is read again; the
// transaction's queued commands and replies are its client's buffers,
// which the reading leaves out.

// expiredKeys reads INFO stats expired_keys: keys the server removed
// because their TTL ran out, since it started.
func expiredKeys(ctx context.Context, c redis.Cmdable) (int64, error) {
	info, err := c.Info(ctx, "stats").Result()
	if err != nil {
		return 0, fmt.Errorf("INFO stats: %w", err)
	}
	var n int64
	if _, err := fmt.Sscan(redisenv.ParseInfo(info)["expired_keys"], &n); err != nil {
		return 0, errors.New("INFO stats has no expired_keys")
	}
	return n, nil
}

// fillKeys is the key scheme of a fill beside a run whose keys lie under
// prefix: the run's, with the prefix's last ':' turned into '~', so that
// each key is as long as the run's key of the same identity (a key's
// length moves its cost by allocator size class) and none lies under the
// run's prefix. fillPrefix is what every fill key starts with.
func fillKeys(k event.KeyScheme, prefix string) (keys event.KeyScheme, fillPrefix string) {
	fillPrefix = strings.TrimSuffix(prefix, ":") + "~"
	k.Head = fillPrefix + strings.TrimPrefix(k.Head, prefix)
	return k, fillPrefix
}

// whyNoFill says why a run whose keys expired before the count cannot be
// filled; empty when it can.
func (p *Probe) whyNoFill() string {
	switch {
	case p.t.Env.Mode != redisenv.Private:
		return "a fill holds the server for a transaction of up to 100,000 decisions: rlbench does so only on a server it started"
	case p.t.Env.Cluster != nil:
		return "a fill is one transaction, and a cluster's keys lie on several masters"
	case len(p.switches) > 0:
		return "a scheduled fault replaced the server during the run"
	}
	if _, ok := p.limiter.(algorithms.Pipelined); !ok {
		return "the limiter's decision is not one command that a transaction can hold"
	}
	return ""
}

// fill decides n fresh identities once each inside one MULTI, between two
// readings of the server's memory and its clients' buffers, then removes
// their keys.
func (p *Probe) fill(ctx context.Context, prefix string, n int) (*result.MemoryFill, error) {
	lim := p.limiter.(algorithms.Pipelined)
	keys, fillPrefix := fillKeys(p.keys, prefix)
	defer func() { _ = p.t.Env.RemoveKeys(fillPrefix) }()
	single, ok := p.t.Env.Client.(*redis.Client)
	if !ok {
		return nil, errors.New("a fill needs a single server's client")
	}
	// One connection of its own, which may wait for the whole transaction:
	// the run's bound each call by the profile's timeout, and the server
	// answers EXEC only once it has made every decision. Not tried again:
	// a second fill would add to the first.
	c := redisenv.CloneClient(single, func(o *redis.Options) {
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1
		o.ReadTimeout, o.WriteTimeout = fillTimeout, fillTimeout
	})
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, fillTimeout)
	defer cancel()
	var out *result.MemoryFill
	err := func() error {
		// The run's keys expired under way: let the server shrink (and
		// finish rehashing) the tables they grew before the fill starts,
		// as the baseline before a run does.
		if _, _, err := redisenv.SettledMemory(ctx, c, redisenv.Private, settleTimeout); err != nil {
			return err
		}
		pipe := c.TxPipeline()
		infoBefore, listBefore := pipe.Info(ctx, "memory"), pipe.ClientList(ctx)
		decisions := make([]*redis.Cmd, n)
		for i := range n {
			// Each command keeps its arguments (and the key they refer
			// to) until the transaction is sent: a slice and a key of its
			// own.
			key := keys.Key(uint64(i))
			args, _ := lim.AppendCommand(nil, &key, 1)
			decisions[i] = pipe.Do(ctx, args...)
		}
		// A table that doubled during the fill frees its old half once
		// its incremental rehash has moved every bucket, one bucket per
		// lookup: a lookup of every key moves at least as many buckets as
		// the old half had (it held fewer than n keys), so the reading
		// after counts the keys' tables as they stay, not both halves (the
		// census does the same for a run's keys).
		for i := range n {
			pipe.Exists(ctx, keys.Key(uint64(i)))
		}
		infoAfter, listAfter := pipe.Info(ctx, "memory"), pipe.ClientList(ctx)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("the fill's MULTI: %w", err)
		}
		for _, d := range decisions {
			if err := d.Err(); err != nil && !errors.Is(err, redis.Nil) {
				return fmt.Errorf("a decision of the fill: %w", err)
			}
		}
		before, err := redisenv.ParseMemoryReading(infoBefore.Val(), listBefore.Val())
		if err != nil {
			return err
		}
		after, err := redisenv.ParseMemoryReading(infoAfter.Val(), listAfter.Val())
		if err != nil {
			return err
		}
		out = &result.MemoryFill{Identities: int64(n), UsedMemoryDeltaBytes: after.UsedMemory - before.UsedMemory,
			ClientBuffersDeltaBytes: after.ClientBuffers - before.ClientBuffers}
		out.BytesPerIdentity = float64(out.UsedMemoryDeltaBytes-out.ClientBuffersDeltaBytes) / float64(n)
		return nil
	}()
	return out, err
}

// fillTimeout bounds a fill: sending its transaction, the server deciding
// it (100,000 decisions in a second or two on a busy machine) and reading
// its replies.
const fillTimeout = time.Minute
