package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// fakeClock is a clock whose time moves only when told to, or when
// something sleeps on it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

var _ event.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.advance(d)
	return ctx.Err()
}

func (c *fakeClock) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// flakyLimiter fails its first failures calls with err, each taking
// callTime of fake time (or until its context ends, if sooner), then
// admits. It keeps when each call was made.
type flakyLimiter struct {
	clock    *fakeClock
	callTime time.Duration
	failures int
	err      error
	// timeout is the caller's per-call timeout: a call whose context
	// has a deadline takes at most that long.
	timeout time.Duration
	mu      sync.Mutex
	calls   []time.Time
}

var _ algorithms.Limiter = (*flakyLimiter)(nil)

func (l *flakyLimiter) Name() string { return "flaky" }
func (l *flakyLimiter) Policy() algorithms.Policy {
	return algorithms.Policy{Limit: 2, Window: time.Second}
}
func (l *flakyLimiter) Load(context.Context) error { return nil }
func (l *flakyLimiter) NoScriptReloads() int64     { return 0 }
func (l *flakyLimiter) Allow(ctx context.Context, _ string) (algorithms.Decision, error) {
	l.mu.Lock()
	l.calls = append(l.calls, l.clock.Now())
	n := len(l.calls)
	l.mu.Unlock()
	wait := l.callTime
	if _, ok := ctx.Deadline(); ok && l.timeout > 0 {
		// The deadline is on the wall clock, which moves on its own
		// while the test runs: the call lasts the caller's whole
		// timeout in fake time, certain by construction.
		wait = min(wait, l.timeout)
	}
	l.clock.advance(wait)
	if n <= l.failures {
		return algorithms.Decision{}, l.err
	}
	return algorithms.Decision{Allowed: true, ServerNowMicros: l.clock.Now().UnixMicro()}, nil
}

func (l *flakyLimiter) Model() algorithms.Model {
	return algorithms.NewFixedWindow(nil, l.Policy()).Model()
}
func (l *flakyLimiter) Bound(d time.Duration) int64 { return 4 }

var _ algorithms.Auditable = (*flakyLimiter)(nil)

// TestCallerRetriesWithinItsBudget: a call is tried at most 1 + retries
// times, each bounded by the client's timeout, after a backoff that
// doubles; what the policy then decides is the request's error, counted
// apart; an answer that says the call is wrong is not tried again.
func TestCallerRetriesWithinItsBudget(t *testing.T) {
	timeout := &net_timeout{}
	for _, tc := range []struct {
		why      string
		failures int
		err      error
		policy   plan.ErrorPolicy
		// calls is how many calls the caller makes; allowed what the
		// request gets (decided, when Redis did not answer, by the policy).
		calls   int
		decided bool
		allowed bool
	}{
		{"a call that works is made once", 0, nil, plan.FailClosed, 1, false, true},
		{"one failure is retried once", 1, timeout, plan.FailClosed, 2, false, true},
		{"the budget runs out: fail_closed denies", 5, timeout, plan.FailClosed, 3, true, false},
		{"the budget runs out: fail_open admits", 5, timeout, plan.FailOpen, 3, true, true},
		{"the budget runs out: local decides (its first request is admitted)", 5, timeout, plan.FailLocal, 3, true, true},
		{"a refused connection is retried", 5, fmt.Errorf("dial: %w", syscall.ECONNREFUSED), plan.FailClosed, 3, true, false},
		{"NOPERM would fail again: not retried", 5, replyError("NOPERM this user has no permissions"), plan.FailClosed, 1, true, false},
		{"LOADING is the server starting: retried", 5, replyError("LOADING Redis is loading the dataset in memory"), plan.FailOpen, 3, true, true},
	} {
		clock := newFakeClock()
		lim := &flakyLimiter{clock: clock, callTime: 200 * time.Millisecond, failures: tc.failures, err: tc.err, timeout: 50 * time.Millisecond}
		client := &plan.Client{Timeout: 50 * time.Millisecond, Retries: 2, Backoff: 10 * time.Millisecond}
		rec := newRecorder(clock.Now(), time.Minute, nil, nil, event.Offset{})
		c := newCaller(lim, client, tc.policy, clock, event.KeyScheme{Head: "p:"}, rec)
		d, err := c.Allow(context.Background(), "p:7")
		if len(lim.calls) != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.why, len(lim.calls), tc.calls)
		}
		var pd *event.PolicyDecision
		switch {
		case tc.err == nil || tc.failures < tc.calls:
			if err != nil || d.Allowed != tc.allowed {
				t.Errorf("%s: %+v, %v", tc.why, d, err)
			}
		case !errors.As(err, &pd):
			t.Errorf("%s: error %v is not the policy's decision", tc.why, err)
		case pd.Decided != tc.decided || pd.Allowed != tc.allowed || pd.Attempts != tc.calls || !errors.Is(err, tc.err):
			t.Errorf("%s: %+v (%v)", tc.why, pd, err)
		}
		// Each call waited for the timeout at most, and the retries
		// waited 10ms, then 20ms.
		for i := 1; i < len(lim.calls); i++ {
			gap := lim.calls[i].Sub(lim.calls[i-1]).Round(time.Millisecond)
			if want := 50*time.Millisecond + 10*time.Millisecond<<(i-1); gap != want {
				t.Errorf("%s: call %d came %s after the one before, want %s", tc.why, i+1, gap, want)
			}
		}
		if got := rec.maxAttempts.Load(); got != int64(tc.calls) {
			t.Errorf("%s: the recorder counted %d calls for the request, want %d", tc.why, got, tc.calls)
		}
	}
}

// net_timeout is a net.Error that timed out, as a read deadline gives.
type net_timeout struct{}

func (*net_timeout) Error() string   { return "i/o timeout" }
func (*net_timeout) Timeout() bool   { return true }
func (*net_timeout) Temporary() bool { return true }

// TestLocalFallbackKeepsItsOwnState: the local policy's limiter is the
// algorithm's own model per identity, on the local clock: a fixed window
// of 2 admits two requests of one identity and denies the third, and
// another identity has a window of its own.
func TestLocalFallbackKeepsItsOwnState(t *testing.T) {
	clock := newFakeClock()
	lim := &flakyLimiter{clock: clock, failures: 100, err: &net_timeout{}}
	c := newCaller(lim, nil, plan.FailLocal, clock, event.KeyScheme{Head: "p:"}, newRecorder(clock.Now(), time.Minute, nil, nil, event.Offset{}))
	var got []bool
	for _, key := range []string{"p:1", "p:1", "p:1", "p:2"} {
		_, err := c.Allow(context.Background(), key)
		var pd *event.PolicyDecision
		if !errors.As(err, &pd) {
			t.Fatalf("%v", err)
		}
		got = append(got, pd.Allowed)
		clock.advance(time.Millisecond)
	}
	if fmt.Sprint(got) != "[true true false true]" {
		t.Errorf("local decisions %v, want [true true false true]", got)
	}
}

// replyError is an error reply from Redis, as go-redis types one.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}
