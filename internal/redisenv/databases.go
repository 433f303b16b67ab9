package redisenv

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// DBKeys is what INFO keyspace says of one logical database: how many
// keys it holds, and how many of them expire.
type DBKeys struct {
	Keys, Expires int64
}

// Keyspace reads INFO keyspace of a single server: the keys of each
// non-empty logical database, by its number. A script may SELECT another
// database than the one the client uses, and write there; the keyspace
// before and after a run says which databases changed.
func Keyspace(ctx context.Context, rdb redis.Cmdable) (map[int]DBKeys, error) {
	info, err := rdb.Info(ctx, "keyspace").Result()
	if err != nil {
		return nil, fmt.Errorf("INFO keyspace: %w", err)
	}
	out := map[int]DBKeys{}
	for name, v := range ParseInfo(info) {
		n, ok := strings.CutPrefix(name, "db")
		if !ok {
			continue
		}
		db, err := strconv.Atoi(n)
		if err != nil || db < 0 {
			continue
		}
		var k DBKeys
		for _, field := range strings.Split(v, ",") {
			name, val, _ := strings.Cut(field, "=")
			switch name {
			case "keys":
				k.Keys, _ = strconv.ParseInt(val, 10, 64)
			case "expires":
				k.Expires, _ = strconv.ParseInt(val, 10, 64)
			}
		}
		out[db] = k
	}
	return out, nil
}

// OtherDB is what a sweep of one other logical database found.
type OtherDB struct {
	// DB is the database's number.
	DB int
	// Keys counts the keys found (and removed), WithoutTTL those of them
	// that had no expiry; Examples names a few.
	Keys, WithoutTTL int64
	Examples         []string
	// Grew is, where only keys under the prefix were looked for, how many
	// keys the database gained besides them (someone else's, or the
	// limiter's under names of its own): left alone.
	Grew int64
}

// SweepOtherDatabases looks, on a single server rlbench reaches through
// rdb, in every logical database other than rdb's own that gained keys
// since before (INFO keyspace; on a private server, in every non-empty
// one) for the keys a script wrote there: on a private server every key is
// rlbench's, elsewhere only the keys under prefix (rlbench's own run
// prefix) are, and only those are counted and removed. It reports each
// database where it found or saw something, in order. A cluster has
// database 0 only, and is not swept.
func SweepOtherDatabases(ctx context.Context, rdb *redis.Client, mode Mode, prefix string, before map[int]DBKeys, examples int) ([]OtherDB, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	after, err := Keyspace(ctx, rdb)
	if err != nil {
		return nil, err
	}
	own := rdb.Options().DB
	var dbs []int
	for db, k := range after {
		if db == own || k.Keys == 0 {
			continue
		}
		if mode == Private || k.Keys > before[db].Keys || k.Expires != before[db].Expires {
			dbs = append(dbs, db)
		}
	}
	sort.Ints(dbs)
	var out []OtherDB
	for _, db := range dbs {
		o := *rdb.Options()
		o.DB, o.PoolSize, o.MinIdleConns, o.MaxIdleConns = db, 1, 0, 1
		c := redis.NewClient(&o)
		found, err := sweepDB(ctx, c, mode, prefix, examples)
		c.Close()
		if err != nil {
			return out, fmt.Errorf("database %d: %w", db, err)
		}
		found.DB = db
		if mode != Private {
			found.Grew = max(after[db].Keys-before[db].Keys-found.Keys, 0)
		}
		if found.Keys > 0 || found.Grew > 0 {
			out = append(out, found)
		}
	}
	return out, nil
}

// sweepDB counts and removes the keys of one database that are rlbench's:
// every key on a private server, else the keys under prefix.
func sweepDB(ctx context.Context, rdb redis.Cmdable, mode Mode, prefix string, examples int) (OtherDB, error) {
	var out OtherDB
	match := prefix
	if mode == Private {
		match = ""
	}
	err := scanServer(ctx, rdb, match, func(keys []string) error {
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
			if err != nil || ttl == pttlMissing {
				continue
			}
			out.Keys++
			if ttl == pttlNoExpiry {
				out.WithoutTTL++
			}
			if len(out.Examples) < examples {
				out.Examples = append(out.Examples, k)
			}
		}
		_, err := unlink(ctx, rdb, keys, false)
		return err
	})
	return out, err
}
