package workload

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rlbench/rlbench/internal/event"
)

// simClock is a fake clock for goroutines that pace themselves: time moves
// only when every participant (event.Participants: the connections of an
// open loop) is asleep on it, to the earliest instant one of them waits
// for, and wakes those due then. A test on it is exact: a connection
// sleeps until its own instant and wakes at that instant, however the
// goroutines are scheduled.
type simClock struct {
	mu           sync.Mutex
	now          time.Time
	participants int
	sleepers     []*simSleeper
}

// simSleeper is one sleep in progress: its instant, and the channel closed
// when time reaches it.
type simSleeper struct {
	at   time.Time
	wake chan struct{}
}

var (
	_ event.Clock        = (*simClock)(nil)
	_ event.Participants = (*simClock)(nil)
)

func newSimClock() *simClock {
	return &simClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Join implements event.Participants.
func (c *simClock) Join() (leave func()) {
	c.mu.Lock()
	c.participants++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.participants--
			c.moveLocked()
			c.mu.Unlock()
		})
	}
}

// Sleep implements event.Clock: the calling participant waits until the
// others are asleep too and time reaches its instant.
func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	s := &simSleeper{at: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.moveLocked()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return ctx.Err()
	case <-ctx.Done():
		c.mu.Lock()
		if i := slices.Index(c.sleepers, s); i >= 0 {
			c.sleepers = slices.Delete(c.sleepers, i, i+1)
		}
		c.moveLocked()
		c.mu.Unlock()
		return ctx.Err()
	}
}

// advance is a call that takes d of the clock's time: the caller, a
// participant, sleeps through it.
func (c *simClock) advance(d time.Duration) { _ = c.Sleep(context.Background(), d) }

// moveLocked moves time to the earliest sleeper's instant once every
// participant sleeps, and wakes every sleeper due then.
func (c *simClock) moveLocked() {
	if len(c.sleepers) == 0 || len(c.sleepers) < c.participants {
		return
	}
	earliest := c.sleepers[0].at
	for _, s := range c.sleepers {
		if s.at.Before(earliest) {
			earliest = s.at
		}
	}
	c.now = earliest
	c.sleepers = slices.DeleteFunc(c.sleepers, func(s *simSleeper) bool {
		if s.at.After(c.now) {
			return false
		}
		close(s.wake)
		return true
	})
}
