package redisenv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Census is what a full SCAN of one run prefix found.
type Census struct {
	// Keys counts the live keys under the prefix.
	Keys int64
	// WithoutTTL counts those with no expiry (PTTL -1): every limiter key
	// must expire, so each one is a leak.
	WithoutTTL int64
	// Sample holds up to the requested number of keys, drawn uniformly from
	// all of them, for SampleMemory.
	Sample []string
}

// PTTL replies that are not a time to live.
const (
	pttlNoExpiry = -1
	pttlMissing  = -2
)

// TakeCensus walks every key under prefix with SCAN MATCH (never KEYS) and
// PTTL, counting keys and keys without a TTL, and keeps a uniform sample of
// up to sampleSize key names (reservoir sampling: every key has the same
// chance whatever the keyspace's size, and the sample costs the same for a
// thousand keys as for a million). visit, when not nil, sees every live key.
// Like ScanPrefix it refuses a prefix outside rlbench's root, so it never
// reads anyone else's keys.
//
// On a cluster client it walks every master, one after the other; each
// key lives on one master, so every key is counted once.
func TakeCensus(ctx context.Context, rdb redis.Cmdable, prefix string, sampleSize int, seed uint64, visit func(key string)) (Census, error) {
	var c Census
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	if err := checkPrefix(prefix); err != nil {
		return c, err
	}
	err := eachMaster(ctx, rdb, func(node redis.Cmdable) error {
		return c.take(ctx, node, prefix, sampleSize, rng, visit)
	})
	return c, err
}

// take adds one server's keys under prefix to the census.
func (c *Census) take(ctx context.Context, rdb redis.Cmdable, prefix string, sampleSize int, rng *rand.Rand, visit func(key string)) error {
	return scanServer(ctx, rdb, prefix, func(keys []string) error {
		pipe := rdb.Pipeline()
		ttls := make([]*redis.Cmd, len(keys))
		for i, k := range keys {
			ttls[i] = pipe.Do(ctx, "pttl", k)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("PTTL: %w", err)
		}
		for i, k := range keys {
			ttl, err := ttls[i].Int64()
			if err != nil {
				return fmt.Errorf("PTTL %s: %w", k, err)
			}
			if ttl == pttlMissing {
				// Expired or deleted between SCAN and PTTL.
				continue
			}
			c.Keys++
			if ttl == pttlNoExpiry {
				c.WithoutTTL++
			}
			if visit != nil {
				visit(k)
			}
			switch {
			case len(c.Sample) < sampleSize:
				c.Sample = append(c.Sample, k)
			case sampleSize > 0:
				if j := rng.Int64N(c.Keys); j < int64(sampleSize) {
					c.Sample[j] = k
				}
			}
		}
		return nil
	})
}

// MemorySample is what MEMORY USAGE and OBJECT ENCODING said about a sample
// of keys.
type MemorySample struct {
	// Keys counts the sampled keys that still existed.
	Keys int
	// MeanBytes is the mean of MEMORY USAGE key SAMPLES 0 (every nested
	// element counted, not estimated).
	MeanBytes float64
	// Encodings counts the OBJECT ENCODING answers: listpack or skiplist for
	// a sorted set, listpack or hashtable for a hash, int or embstr for a
	// counter.
	Encodings map[string]int64
}

// sampleBatch is how many keys SampleMemory asks about per round trip.
const sampleBatch = 100

// SampleMemory asks MEMORY USAGE (SAMPLES 0), when usage, and OBJECT
// ENCODING, when encoding, of each of keys, which must all lie under
// prefix: it refuses any other key, so a caller's mistake cannot make it
// read someone else's data. A user who may run only one of the two gets
// the figures of that one.
func SampleMemory(ctx context.Context, rdb redis.Cmdable, prefix string, keys []string, usage, encoding bool) (MemorySample, error) {
	s := MemorySample{Encodings: map[string]int64{}}
	if err := checkPrefix(prefix); err != nil {
		return s, err
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			return s, fmt.Errorf("refusing to sample %q: not under %q", k, prefix)
		}
	}
	var total int64
	for start := 0; start < len(keys); start += sampleBatch {
		batch := keys[start:min(start+sampleBatch, len(keys))]
		pipe := rdb.Pipeline()
		sizes := make([]*redis.IntCmd, len(batch))
		enc := make([]*redis.StringCmd, len(batch))
		for i, k := range batch {
			if usage {
				sizes[i] = pipe.MemoryUsage(ctx, k, 0)
			}
			if encoding {
				enc[i] = pipe.ObjectEncoding(ctx, k)
			}
		}
		// A key that expired since the census answers nil: skip it.
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return s, fmt.Errorf("MEMORY USAGE / OBJECT ENCODING: %w", err)
		}
		for i := range batch {
			var n int64
			if usage {
				var err error
				n, err = sizes[i].Result()
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					return s, fmt.Errorf("MEMORY USAGE %s: %w", batch[i], err)
				}
			}
			if encoding {
				e, err := enc[i].Result()
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					return s, fmt.Errorf("OBJECT ENCODING %s: %w", batch[i], err)
				}
				s.Encodings[e]++
			}
			s.Keys++
			total += n
		}
	}
	if s.Keys > 0 && usage {
		s.MeanBytes = float64(total) / float64(s.Keys)
	}
	return s, nil
}
