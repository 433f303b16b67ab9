package redisenv

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// removeTimeout bounds removing a prefix's keys.
const removeTimeout = 30 * time.Second

// KeysLeftError is keys under Prefix that rlbench could not remove, or
// could not look for, because the server refuses its user a command that
// needs (SCAN to find them, UNLINK and DEL to remove them): they are left
// to expire on their TTLs. Nothing was tried that the server refused.
type KeysLeftError struct {
	// Addr is the server's address, without credentials.
	Addr string
	// Prefix is what every key left starts with.
	Prefix string
	// Why says which command was refused, with what the server said.
	Why string
	// Unsearched says the keys could not be looked for (SCAN refused):
	// those rlbench could name were removed, and none may be left.
	Unsearched bool
}

func (e *KeysLeftError) Error() string {
	if e.Unsearched {
		return fmt.Sprintf("could not look for keys left under %s* on redis at %s: %s", e.Prefix, e.Addr, e.Why)
	}
	return fmt.Sprintf("the keys under %s* on redis at %s were left to expire on their TTLs: %s", e.Prefix, e.Addr, e.Why)
}

// removal says how the user removes keys: with DEL where UNLINK is
// refused; a *KeysLeftError for prefix where both are.
func (e *Env) removal(prefix string) (del bool, err error) {
	if why := e.Access.removalRefused(); why != "" {
		return false, &KeysLeftError{Addr: e.Addr, Prefix: prefix, Why: "neither UNLINK nor DEL may be run (" + why + ")"}
	}
	return !e.Access.Allows(CmdUnlink), nil
}

// RemoveKeys removes every key under prefix (rlbench's own: prefix must
// start with KeyPrefixRoot), on a fresh connection, since the run's may
// have died, and on a context of its own, so that it runs after Ctrl-C
// too. Where the user may not SCAN, or may remove no key, it calls
// nothing and says what is left (*KeysLeftError).
func (e *Env) RemoveKeys(prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	del, err := e.removal(prefix)
	if err != nil {
		return err
	}
	if r, refused := e.Access.Refusal(CmdScan); refused {
		return &KeysLeftError{Addr: e.Addr, Prefix: prefix, Unsearched: true,
			Why: "SCAN may not be run (" + r.Reason + "); the keys rlbench could name (a built-in limiter's, one per identity) were removed, and any other it left expires on its TTL"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	rdb := NewProbeClient(e.Client)
	defer rdb.Close()
	err = rdb.Do(ctx, func(c redis.Cmdable) error {
		_, err := deletePrefix(ctx, c, prefix, del)
		return err
	})
	if err != nil {
		return fmt.Errorf("removing the keys %s*: %w", prefix, err)
	}
	return nil
}

// nameBatch is how many keys RemoveNamed names in one UNLINK.
const nameBatch = 1000

// RemoveNamed removes the keys name(0) .. name(n-1), each of which must lie
// under prefix (rlbench's own), with UNLINK in batches, without a SCAN,
// and returns how many existed. It refuses a name outside prefix before
// removing anything of its batch. It is for a single server; on a cluster
// it removes nothing and says so. It uses DEL where UNLINK is refused, and
// where both are it calls nothing and says so (*KeysLeftError).
func (e *Env) RemoveNamed(prefix string, n int, name func(i int) string) (int64, error) {
	if err := checkPrefix(prefix); err != nil {
		return 0, err
	}
	del, err := e.removal(prefix)
	if err != nil {
		return 0, err
	}
	if e.Cluster != nil {
		return 0, fmt.Errorf("removing keys by name: not on a cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	rdb := NewProbeClient(e.Client)
	defer rdb.Close()
	var removed int64
	err = rdb.Do(ctx, func(c redis.Cmdable) error {
		batch := make([]string, 0, nameBatch)
		for start := 0; start < n; start += nameBatch {
			batch = batch[:0]
			for i := start; i < min(start+nameBatch, n); i++ {
				k := name(i)
				if !strings.HasPrefix(k, prefix) {
					return fmt.Errorf("refusing to remove %q: not under %q", k, prefix)
				}
				batch = append(batch, k)
			}
			r, err := remove(ctx, c, batch, false, del)
			removed += r
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("removing the keys %s* by name: %w", prefix, err)
	}
	return removed, nil
}
