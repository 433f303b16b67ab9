package probe

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// outsideExamples is how many keys outside the run prefix a note names.
const outsideExamples = 3

// keyOwner is a limiter whose keys are made from templates: it names an
// identity key's Redis keys, and reads the identity back out of one. A
// declared limiter is one.
type keyOwner interface {
	Keys(key string) []string
	IdentityOf(namespace, key string) (string, bool)
}

// maxIdentityBits bounds the bitmap identityCounter keeps (8 MiB).
const maxIdentityBits = 1 << 26

// identityCounter returns the census's visitor that counts into n the
// identities holding a key of keys. A built-in limiter's key is the
// identity's number in the scheme (in its hash tag, perhaps); a declared limiter's keys come from its
// templates, several per identity perhaps, so its identities are read back
// through them and counted once each (a bit per identity of the run; past
// maxBits identities, by the keys of its first template only).
func identityCounter(lim algorithms.Limiter, keys event.KeyScheme, identities, maxBits int, n *int64) func(key string) {
	owner, ok := lim.(keyOwner)
	if !ok {
		return func(key string) {
			if _, ok := keys.Identity(key); ok {
				*n++
			}
		}
	}
	prefix := keys.Head
	var seen []uint64
	if identities <= maxBits {
		seen = make([]uint64, (identities+63)/64)
	}
	return func(key string) {
		id, ok := owner.IdentityOf(prefix, key)
		if !ok {
			return
		}
		i, err := strconv.ParseUint(id, 10, 64)
		switch {
		case err != nil || i >= uint64(identities):
		case seen == nil:
			if owner.Keys(prefix + id)[0] == key {
				*n++
			}
		case seen[i/64]&(1<<(i%64)) == 0:
			seen[i/64] |= 1 << (i % 64)
			*n++
		}
	}
}

// sweepOutside looks, after a declared limiter's run, for keys its script
// wrote outside the prefix it was given. Only a server rlbench started can
// say: there every key is rlbench's, and the stray ones are removed so the
// next run is not blamed for them. On any other server the result says it
// was not checked.
func (p *Probe) sweepOutside(ctx context.Context, m *result.Memory) {
	if _, declared := p.limiter.(keyOwner); !declared {
		return
	}
	if p.t.Env.Mode != redisenv.Private {
		m.Notes = append(m.Notes, "keys a declared limiter's script writes outside its run prefix are looked for only on a server rlbench started")
		return
	}
	out, err := redisenv.SweepOutside(ctx, p.t.Env.Client, p.t.Env.Mode, p.t.RunPrefix, outsideExamples)
	if err != nil {
		m.Notes = append(m.Notes, "looking for keys outside the run prefix failed: "+err.Error())
		return
	}
	m.KeysOutsidePrefix, m.OutsidePrefixExamples = out.Keys, out.Examples
}

// sweepOtherDatabases finds, counts and removes the keys the run's limiter
// wrote in logical databases other than the run's own (a script may SELECT
// one): every key of a database that gained keys on a server rlbench
// started, elsewhere only the keys under the run's prefix. Keys another
// database gained besides those are said in a note and left alone: they
// may be anyone's.
func (p *Probe) sweepOtherDatabases(ctx context.Context, prefix string, m *result.Memory) {
	single, ok := p.t.Env.Client.(*redis.Client)
	if !ok || p.t.Env.Mode == redisenv.Embedded || !p.t.allows(redisenv.CmdInfo) {
		// Without INFO the run names these figures unavailable.
		return
	}
	if p.keyspace == nil {
		m.Skipped = append(m.Skipped, "keys in other logical databases were not looked for: INFO keyspace could not be read before the run")
		return
	}
	found, err := redisenv.SweepOtherDatabases(ctx, single, p.t.Env.Mode, prefix, p.keyspace, outsideExamples)
	if err != nil {
		m.Skipped = append(m.Skipped, "keys in other logical databases were not looked for: "+err.Error())
	}
	for _, db := range found {
		m.KeysOtherDatabases += db.Keys
		m.KeysOtherDatabasesWithoutTTL += db.WithoutTTL
		for _, k := range db.Examples {
			if len(m.OtherDatabaseExamples) < outsideExamples {
				m.OtherDatabaseExamples = append(m.OtherDatabaseExamples, fmt.Sprintf("db%d:%s", db.DB, k))
			}
		}
		if db.Grew > 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("logical database %d gained %d keys during the run besides any under the run's prefix: another client's, or the limiter's under names of its own (a script that SELECTs it); on a server rlbench did not start they are left alone", db.DB, db.Grew))
		}
	}
}
