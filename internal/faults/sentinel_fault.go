package faults

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// On a primary that Sentinel manages, a scheduled failover fault asks a
// Sentinel for one (SENTINEL FAILOVER), and the switch that follows is
// observed as an operator's is (see sentinel.go), but becomes the fault's
// window rather than an unscheduled one: from the request to the new
// primary's first answer. rlbench pauses nothing and starts no replica:
// what the promoted replica had not received when Sentinel promoted it is
// lost, and the audit holds each identity's decisions to the bound until
// its state is known again.

// defaultSentinelBound is how long a failover through Sentinel may take,
// from the request to rlbench's client moving to the new primary, when
// the fault gives no duration.
const defaultSentinelBound = 30 * time.Second

// sentinelBound is how long fault f lets Sentinel take: its duration,
// else defaultSentinelBound.
func sentinelBound(f plan.Fault) time.Duration {
	if f.For > 0 {
		return f.For
	}
	return defaultSentinelBound
}

// sentinelFailover asks a Sentinel to fail the primary over and waits,
// within the fault's bound, until the run's client has moved to the new
// primary and the switch has been read. A Sentinel that refuses, or a
// switch that does not come in time, is the fault's error in Sentinel's
// own words: the fault did not happen.
func (s *Session) sentinelFailover(ctx context.Context, i int, f plan.Fault, o *observation) error {
	p := s.env.Primaries
	bound := sentinelBound(f)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound+s.timeout)
	defer cancel()
	before := len(p.Switches())
	s.mu.Lock()
	s.askedBy = i + 1
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		s.askedBy = 0
		s.mu.Unlock()
	}
	o.injected = time.Now()
	from := p.Current()
	sentinel, err := p.AskFailover(actx)
	if err != nil {
		forget()
		return fmt.Errorf("not injected: %w", err)
	}
	o.server = append(o.server, fmt.Sprintf("SENTINEL FAILOVER asked of the Sentinel at %s at %s, which answered OK", sentinel, numfmtMs(o.injected.Sub(s.started).Milliseconds())))
	deadline := o.injected.Add(bound)
	for len(p.Switches()) <= before {
		if time.Now().After(deadline) || ctx.Err() != nil {
			forget()
			why := fmt.Sprintf("within %s", bound)
			if ctx.Err() != nil {
				why = "before the run ended"
			}
			now, serr := p.SentinelPrimary(actx)
			switch {
			case serr != nil:
				return fmt.Errorf("not done: rlbench's client did not move from %s to a new primary %s, and the Sentinels would not say where the primary is: %w", from, why, serr)
			case now == from:
				return fmt.Errorf("not done: the Sentinels accepted SENTINEL FAILOVER but still name %s the primary, %s", from, why)
			default:
				return fmt.Errorf("not done: the Sentinels name %s the primary in place of %s, but rlbench's client did not move there %s", now, from, why)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	o.removed = p.Switches()[before].At
	// The switch is read on both servers before it is recorded: wait for
	// that, as long as the two readings may take.
	wait := time.Now().Add(2*s.timeout + time.Second)
	for {
		s.mu.Lock()
		taken := s.askedBy == 0
		s.mu.Unlock()
		if taken || time.Now().After(wait) {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sentinelWindow is scheduled fault i's window when it was a failover
// through Sentinel that took place: the switch's window (switchWindow),
// from the request to Sentinel, with the fault's schedule and what the
// Sentinel answered. false when fault i is no such failover, or the
// switch it asked for never came (its window is then the usual one, with
// its error).
func (s *Session) sentinelWindow(i int, flt plan.Fault, limit time.Time) (result.FaultWindow, bool) {
	if s.env.Primaries == nil || flt.Kind != plan.FaultFailover {
		return result.FaultWindow{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, ps := range s.primaries {
		if ps.fault != i {
			continue
		}
		o := s.obs[i]
		w := s.switchWindow(k, o.injected, limit)
		w.ScheduledStartMs, w.ScheduledEndMs = flt.At.Milliseconds(), flt.End().Milliseconds()
		w.InjectedMs = o.injected.Sub(s.started).Milliseconds()
		w.Server = strings.Join(append(o.server, w.Server), "; ")
		w.ErrorLatencyUs = s.rec.errorLatency(i)
		return w, true
	}
	return result.FaultWindow{}, false
}
