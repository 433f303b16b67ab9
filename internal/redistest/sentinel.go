package redistest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// SentinelSet is a private Sentinel set-up on loopback ports: a primary,
// its replicas, and Sentinels that monitor the primary under MasterName
// and fail it over when asked (or when it stops answering for a second).
type SentinelSet struct {
	MasterName string
	Primary    *Configured
	Replicas   []*Configured
	Sentinels  []*Configured
	// Password is the Sentinels' own (requirepass), "" for none.
	Password string
}

// sentinel is a client of the Sentinel at addr.
func (s *SentinelSet) sentinel(addr string) *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{Addr: addr, Password: s.Password, Protocol: 2, DisableIdentity: true})
}

// SentinelAddrs lists the Sentinels' addresses.
func (s *SentinelSet) SentinelAddrs() []string {
	out := make([]string, len(s.Sentinels))
	for i, c := range s.Sentinels {
		out[i] = c.Addr
	}
	return out
}

// StartSentinelSet starts a primary, replicas replicas of it and
// sentinels Sentinels (redis-server --sentinel) with a quorum of a
// majority, and waits until every Sentinel knows every replica and every
// other Sentinel, so that a failover asked for at once can go ahead. All
// of them are killed when the test ends.
func StartSentinelSet(t testing.TB, masterName string, replicas, sentinels int) *SentinelSet {
	t.Helper()
	return StartSentinelSetWithPassword(t, masterName, replicas, sentinels, "")
}

// StartSentinelSetWithPassword is StartSentinelSet with Sentinels that ask
// their clients (and one another) for password (requirepass); "" asks for
// none.
func StartSentinelSetWithPassword(t testing.TB, masterName string, replicas, sentinels int, password string) *SentinelSet {
	t.Helper()
	s := &SentinelSet{MasterName: masterName, Primary: StartConfigured(t), Password: password}
	for range replicas {
		s.Replicas = append(s.Replicas, StartConfigured(t, "--replicaof", "127.0.0.1", strconv.Itoa(s.Primary.Port)))
	}
	config := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d %d\n"+
		"sentinel down-after-milliseconds %s 1000\n"+
		"sentinel failover-timeout %s 10000\n"+
		"sentinel parallel-syncs %s 1\n", masterName, s.Primary.Port, sentinels/2+1, masterName, masterName, masterName)
	if password != "" {
		config += fmt.Sprintf("requirepass %q\nsentinel sentinel-pass %q\n", password, password)
	}
	for range sentinels {
		s.Sentinels = append(s.Sentinels, startConfigured(t, config, []string{"--sentinel"}))
	}
	if err := s.waitKnown(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitKnown waits until each Sentinel knows the primary's replicas and
// the other Sentinels.
func (s *SentinelSet) waitKnown(within time.Duration) error {
	deadline := time.Now().Add(within)
	for _, c := range s.Sentinels {
		sc := s.sentinel(c.Addr)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			reps, err1 := sc.Replicas(ctx, s.MasterName).Result()
			sens, err2 := sc.Sentinels(ctx, s.MasterName).Result()
			cancel()
			if err1 == nil && err2 == nil && len(reps) >= len(s.Replicas) && len(sens) >= len(s.Sentinels)-1 {
				break
			}
			if time.Now().After(deadline) {
				_ = sc.Close()
				return fmt.Errorf("sentinel %s did not learn %d replicas and %d other sentinels within %s (replicas %v, %v; sentinels %v, %v)",
					c.Addr, len(s.Replicas), len(s.Sentinels)-1, within, len(reps), err1, len(sens), err2)
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = sc.Close()
	}
	return nil
}

// Failover asks a Sentinel to fail the primary over to a replica now
// (SENTINEL FAILOVER), and waits until every Sentinel names another
// primary; it returns the new primary's address.
func (s *SentinelSet) Failover(ctx context.Context, within time.Duration) (string, error) {
	old := s.Primary.Addr
	sc := s.sentinel(s.Sentinels[0].Addr)
	defer sc.Close()
	if err := sc.Failover(ctx, s.MasterName).Err(); err != nil {
		return "", fmt.Errorf("SENTINEL FAILOVER %s: %w", s.MasterName, err)
	}
	deadline := time.Now().Add(within)
	for {
		var now string
		agreed := true
		for _, c := range s.Sentinels {
			q := s.sentinel(c.Addr)
			hp, err := q.GetMasterAddrByName(ctx, s.MasterName).Result()
			_ = q.Close()
			if err != nil || len(hp) != 2 || "127.0.0.1:"+hp[1] == old || (now != "" && now != "127.0.0.1:"+hp[1]) {
				agreed = false
				break
			}
			now = "127.0.0.1:" + hp[1]
		}
		if agreed {
			return now, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the Sentinels did not agree on a new primary within %s", within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FailoverOutcome is what a failover asked for by FailoverAfterCalls did:
// the new primary's address, how many calls of the command the old one
// had run when it was asked for, or why it failed.
type FailoverOutcome struct {
	NewPrimary string
	AfterCalls int64
	Err        error
}

// FailoverAfterCalls asks for a failover (see Failover) as soon as the
// primary has run n calls of command (its INFO commandstats, read every
// 5ms): a test fails the primary over mid-run after a given amount of
// traffic, whatever the machine's speed, rather than after a sleep. The
// channel gets one outcome; ctx ending gives up the wait.
func (s *SentinelSet) FailoverAfterCalls(ctx context.Context, command string, n int64, within time.Duration) <-chan FailoverOutcome {
	out := make(chan FailoverOutcome, 1)
	go func() {
		admin := redis.NewClient(&redis.Options{Addr: s.Primary.Addr, Protocol: 2, DisableIdentity: true})
		defer admin.Close()
		for {
			st, err := redisenv.ReadCommandStats(ctx, admin, command)
			if err == nil && st[0].Calls >= n {
				addr, err := s.Failover(ctx, within)
				out <- FailoverOutcome{NewPrimary: addr, AfterCalls: st[0].Calls, Err: err}
				return
			}
			select {
			case <-ctx.Done():
				out <- FailoverOutcome{Err: fmt.Errorf("%d calls of %s never came: %w", n, command, ctx.Err())}
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return out
}
