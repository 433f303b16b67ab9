package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// How a boundary run finds where an identity's window ends, in the order
// it tries them: a formula of the limiter's own (the built-in fixed
// window), what the prime's reply says (a declared window_end, reset_at
// or reset_after), the key's TTL (the fixed window without Lua, whose
// window is its key's life by construction), the limiter's behaviour (a
// declared fixed window that says nothing: exhaust the window, then probe
// until a request is admitted again), or a window after the prime (the
// limiter's windows do not end at an instant).
const (
	locateByFormula   = "formula"
	locateByReply     = "reply"
	locateByTTL       = "ttl"
	locateByBehaviour = "behaviour"
	locateAfterPrime  = "after_prime"
)

// locator finds where each identity's window ends, and tallies how.
type locator struct {
	limiter algorithms.Limiter
	offset  event.Offset
	// window is the policy's; probeEvery is how far apart probes go: half
	// the bursts' offset, so an end found by behaviour puts each burst on
	// its side of the boundary, and at most a twentieth of a window.
	window, probeEvery time.Duration
	// limit is how many requests exhaust a window: each asks for at least
	// one unit.
	limit int64
	found result.WindowLocation
	// probing holds the identities whose end is being found by behaviour.
	probing map[uint64]*probing
}

// probing is one identity's search for its window's end by behaviour.
type probing struct {
	primeUs int64
	// deniedUs is the server time of the latest denial, 0 before one: the
	// window is exhausted from there.
	deniedUs int64
	// giveUp is when the search stops: two windows after the prime.
	giveUp time.Time
}

// newLocator prepares to locate windows of lim's, with bursts offset from
// the boundary.
func newLocator(lim algorithms.Limiter, offset event.Offset, burstOffset time.Duration) *locator {
	p := lim.Policy()
	l := &locator{limiter: lim, offset: offset, window: p.Window, limit: p.Limit, probing: map[uint64]*probing{}}
	l.probeEvery = max(min(burstOffset/2, p.Window/20), time.Millisecond)
	l.found.Method = l.method()
	return l
}

// method is how this limiter's windows are located, before any reply.
func (l *locator) method() string {
	if _, ok := l.limiter.(algorithms.Windowed); ok {
		return locateByFormula
	}
	if rw, ok := l.limiter.(algorithms.ReplyWindower); ok && rw.ReplyWindowResolution() > 0 {
		return locateByReply
	}
	if _, ok := l.limiter.(algorithms.WindowProber); ok {
		return locateByTTL
	}
	if l.behaviourFallback() {
		return locateByBehaviour
	}
	return locateAfterPrime
}

// extraSpan is how much longer than its plan a run whose windows may be
// found by behaviour lasts: up to a window of probing before each
// identity's bursts.
func (l *locator) extraSpan() time.Duration {
	if l.behaviourFallback() {
		return l.window
	}
	return 0
}

// behaviourFallback says whether a window that neither a formula nor the
// reply places is found by behaviour.
func (l *locator) behaviourFallback() bool {
	iw, ok := l.limiter.(algorithms.InstantWindowed)
	return ok && iw.WindowsEndAtInstants()
}

// serverMicros is where the decision in o was made on the server's clock:
// the server time its reply carried, else the middle of its round trip.
func (l *locator) serverMicros(o *event.Outcome) int64 {
	if at := o.Decision.ServerNowMicros; at > 0 {
		return at
	}
	if l.callerClocked() && o.Decision.ClientNowMicros > 0 {
		// Decided by the caller's clock its arguments carried.
		return l.callerToServer(o, o.Decision.ClientNowMicros)
	}
	return l.offset.ServerMicros(o.Sent.Add(o.Done.Sub(o.Sent) / 2))
}

// callerClocked says the limiter decides by its caller's clock (Clocked).
func (l *locator) callerClocked() bool {
	c, ok := l.limiter.(algorithms.Clocked)
	return ok && c.TimeFrom() == algorithms.TimeFromArgs
}

// callerToServer is the server instant of micros on the clock of the
// caller that sent o: the instance's skew taken off (the true time), then
// on the server's clock.
func (l *locator) callerToServer(o *event.Outcome, micros int64) int64 {
	return l.offset.ServerMicros(time.UnixMicro(micros - o.Decision.ClientSkewMicros))
}

// afterPrime tells where the window the prime o opened ends (server
// microseconds), ok; or, with ok false, that it must be found by
// behaviour (probe). key is the identity's.
func (l *locator) afterPrime(ctx context.Context, o *event.Outcome, key string) (end int64, ok bool, err error) {
	at := l.serverMicros(o)
	l.found.Identities++
	if w, ok := l.limiter.(algorithms.Windowed); ok {
		l.found.ByFormula++
		if seen := o.Decision.ClientNowMicros; l.callerClocked() && seen > 0 {
			// The window is on the clock of the caller that opened it.
			return l.callerToServer(o, w.WindowEnd(seen)), true, nil
		}
		return w.WindowEnd(at), true, nil
	}
	if rw, ok := l.limiter.(algorithms.ReplyWindower); ok && rw.ReplyWindowResolution() > 0 {
		if v, has := rw.ReplyWindowEnd(o.Decision); has {
			if l.callerClocked() {
				// On the caller's clock, which the request carried.
				v = l.callerToServer(o, v)
			}
			resolution := rw.ReplyWindowResolution().Microseconds()
			why := l.implausibleEnd(o, at, v, resolution)
			if why == "" {
				l.found.ByReply++
				l.uncertain(resolution)
				return v, true, nil
			}
			// Bursts aimed there would straddle no boundary: the end is
			// found another way, and the result says so.
			l.found.ReplyRefused++
			if l.found.ReplyRefusedExample == "" {
				l.found.ReplyRefusedExample = why
			}
		}
	}
	if p, ok := l.limiter.(algorithms.WindowProber); ok {
		end, has, err := p.ProbeWindowEnd(ctx, key)
		var noTTL *algorithms.WindowKeyWithoutTTLError
		switch {
		case errors.As(err, &noTTL):
			// The limiter's finding, not a failure to measure it: this
			// identity's bursts go a window after the prime.
			l.found.WithoutTTL++
			if l.found.Example == "" {
				l.found.Example = noTTL.Key
			}
		case err != nil:
			return 0, false, err
		case has:
			l.found.ByTTL++
			return end, true, nil
		}
	}
	if l.behaviourFallback() {
		return 0, false, nil
	}
	l.found.AfterPrime++
	return at + l.window.Microseconds(), true, nil
}

// implausibleEnd says why end, the window end the prime o's reply gave
// (server microseconds, counted in units of resolution), cannot be where
// the window the prime fell in ends, or "" when it can: an end must be
// after the prime, and at most a window after it. at is the prime's own
// server time, known within the clock offset's uncertainty, and within
// half the prime's round trip when its reply carries no server time: an
// end that close to the prime is taken for one not after it (a reset_at
// that reports the window's start lands there; an end that truly falls
// that close is found by behaviour as well). An end counted in a unit no
// finer than the window cannot tell one window from the next, and is not
// judged.
func (l *locator) implausibleEnd(o *event.Outcome, at, end, resolution int64) string {
	w := l.window.Microseconds()
	if resolution >= w {
		return ""
	}
	timing := l.offset.Uncertainty.Microseconds()
	if o.Decision.ServerNowMicros <= 0 {
		timing += o.Done.Sub(o.Sent).Microseconds() / 2
	}
	switch d := end - at; {
	case d <= timing:
		return fmt.Sprintf("a window end %s the prime's decision, not after it (the window's start?)", relative(d))
	case d > w+resolution+timing:
		return fmt.Sprintf("a window end %s the prime's decision, more than a window (%s) after it", relative(d), l.window)
	}
	return ""
}

// relative says how far d microseconds is from an instant, in words.
func relative(d int64) string {
	switch {
	case d < 0:
		return (time.Duration(-d) * time.Microsecond).String() + " before"
	case d == 0:
		return "at"
	}
	return (time.Duration(d) * time.Microsecond).String() + " after"
}

// uncertain notes that an end was known only within us microseconds.
func (l *locator) uncertain(us int64) {
	l.found.UncertaintyMaxUs = max(l.found.UncertaintyMaxUs, us)
}

// exhaustRequests is how many requests, right after the prime, exhaust
// any window the prime opened: the limit (the prime makes one more).
func (l *locator) exhaustRequests() int64 { return max(l.limit, 1) }

// startProbing begins the search by behaviour for identity, primed at o.
func (l *locator) startProbing(identity uint64, o *event.Outcome) {
	l.probing[identity] = &probing{primeUs: l.serverMicros(o), giveUp: o.Done.Add(2 * l.window)}
}

// probed takes the outcome of a probe of identity: the end found (server
// microseconds) and done; not done, to probe again; given up, the end is a
// window after the prime, and done.
func (l *locator) probed(identity uint64, o *event.Outcome) (end int64, done bool) {
	p := l.probing[identity]
	if p == nil {
		return 0, true
	}
	switch at := l.serverMicros(o); {
	case o.Err != nil:
	case !o.Decision.Allowed:
		p.deniedUs = at
	case p.deniedUs > 0:
		// Admitted again after a denial: the window ended in between,
		// and the admission opened (or fell in) the next one, which ends
		// a window later.
		delete(l.probing, identity)
		width := at - p.deniedUs
		if o.Decision.ServerNowMicros <= 0 && o.Decision.ClientNowMicros <= 0 {
			width += o.Done.Sub(o.Sent).Microseconds() / 2
		}
		l.uncertain(width)
		l.found.ByBehaviour++
		return at + l.window.Microseconds(), true
	}
	if o.Done.Before(p.giveUp) {
		return 0, false
	}
	// Never denied (it admits past its limit) or never admitted again
	// (its window outlives two of the policy's): a whole number of
	// windows after the prime, the first still ahead.
	delete(l.probing, identity)
	l.found.AfterPrime++
	w := l.window.Microseconds()
	return p.primeUs + w*((l.serverMicros(o)-p.primeUs)/w+2), true
}

// located is what was found, for the result.
func (l *locator) located() *result.WindowLocation {
	if l.found.Identities == 0 {
		return nil
	}
	out := l.found
	return &out
}
