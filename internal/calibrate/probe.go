package calibrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
)

// The policies the probes run under, small so that they take seconds.
// The burst policy's window is a whole second (${window_s} needs one); the
// refill policy's rate per second (2.5) differs from its limit per window
// (10) and from its rate per millisecond, so a rate in the wrong unit
// refills visibly too fast or not at all.
var (
	burstPolicy  = algorithms.Policy{Limit: 10, Window: time.Second}
	refillPolicy = algorithms.Policy{Limit: 10, Window: 4 * time.Second}
)

// The probes' timing. halfway is when the refill policy's identity is
// asked again after its burst: long enough that a whole-second clock's
// step and a bucket's refill differ. The burst policy's identity is asked
// again a little after its window has passed, when every family with a
// model admits its limit again (soon); a limiter of no family (a sliding
// counter, whose previous window still weighs) after twice the window
// (late).
const (
	halfway = 1500 * time.Millisecond
	soon    = 1200 * time.Millisecond
	late    = 2*time.Second + 200*time.Millisecond
)

// againAfter is when the burst identity is asked again, for a limiter of
// family s.
func againAfter(s algorithms.Semantics) time.Duration {
	if s.HasModel() {
		return soon
	}
	return late
}

// costly is what each request of the cost probe asks for.
const costly = 2

// call is one request of a probe: what it carried, and the raw reply.
type call struct {
	req algorithms.Request
	raw any
	err error
}

// burst is requests sent back to back in one pipeline, and when.
type burst struct {
	calls          []call
	sentAt, doneAt time.Time
	// timeBefore and timeAfter are the server's TIME around the burst,
	// in microseconds since the epoch (0 when not read).
	timeBefore, timeAfter int64
}

// topUp is the top-up identity's timing: a few requests at once, one
// more a little later (keeping its keys alive, as a caller's traffic
// does), then a burst after the window.
const (
	topFirst = 5
	topLater = 600 * time.Millisecond
	topAfter = 1200 * time.Millisecond
)

// run is one hypothesis's probes: the burst identity's first burst and
// its burst once its window has passed, the cost identity's burst of
// requests of cost 2, the refill identity's burst and its burst halfway
// on, and the top-up identity's requests.
type run struct {
	h                            *hypothesis
	first, cost, again           burst
	refill, refillHalf           burst
	topA, topB, topC             burst
	burstLim, refillLim          algorithms.Pipelined
	hasCostLim                   bool
	loadErr                      error
	keyBurst, keyCost, keyRefill string
	keyTop                       string
}

// prober runs the probes of every hypothesis on one timeline.
type prober struct {
	rdb       Redis
	namespace string
	calls     int
	unloaders []func(context.Context) error
}

// step is a burst due at a time.
type step struct {
	due  time.Time
	send func()
}

// probe binds each hypothesis, sends every first burst, and the later
// bursts in the order they fall due, each hypothesis timed from its own
// first bursts.
func (p *prober) probe(ctx context.Context, hyps []*hypothesis) ([]*run, error) {
	var runs []*run
	for i, h := range hyps {
		r := &run{h: h}
		ns := fmt.Sprintf("%sv%d:", p.namespace, i)
		r.keyBurst, r.keyCost, r.keyRefill, r.keyTop = ns+"burst:1", ns+"cost:1", ns+"refill:1", ns+"top:1"
		r.loadErr = p.bind(ctx, r)
		if i == 0 && r.loadErr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, r.loadErr
		}
		runs = append(runs, r)
	}
	limit, refillLimit := int(burstPolicy.Limit), int(refillPolicy.Limit)
	var later []step
	for _, r := range runs {
		if r.loadErr != nil {
			continue
		}
		r.first = p.send(ctx, r.burstLim, r.keyBurst, limit+1, true)
		if r.hasCostLim {
			r.cost = p.sendUnits(ctx, r.burstLim, r.keyCost, limit/costly+1, costly)
		}
		r.refill = p.send(ctx, r.refillLim, r.keyRefill, refillLimit+1, false)
		r.topA = p.send(ctx, r.burstLim, r.keyTop, topFirst, false)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		later = append(later,
			step{r.topA.sentAt.Add(topLater), func() { r.topB = p.send(ctx, r.burstLim, r.keyTop, 1, false) }},
			step{r.topA.sentAt.Add(topAfter), func() { r.topC = p.send(ctx, r.burstLim, r.keyTop, limit+1, false) }},
			step{r.refill.sentAt.Add(halfway), func() { r.refillHalf = p.send(ctx, r.refillLim, r.keyRefill, refillLimit+1, false) }},
			step{r.first.sentAt.Add(againAfter(r.h.decl.Semantics)), func() { r.again = p.send(ctx, r.burstLim, r.keyBurst, limit+1, true) }})
	}
	slices.SortStableFunc(later, func(a, b step) int { return a.due.Compare(b.due) })
	for _, st := range later {
		if err := sleepUntil(ctx, st.due); err != nil {
			return nil, err
		}
		st.send()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// bind makes the hypothesis's limiters and loads its script.
func (p *prober) bind(ctx context.Context, r *run) error {
	d := r.h.decl
	var err error
	if r.burstLim, err = p.limiter(ctx, d, burstPolicy, algorithms.Binding{Scenario: "init"}); err != nil {
		return err
	}
	if r.refillLim, err = p.limiter(ctx, d, refillPolicy, algorithms.Binding{Scenario: "init"}); err != nil {
		return err
	}
	r.hasCostLim = d.UsesCost()
	return nil
}

func (p *prober) limiter(ctx context.Context, d *algorithms.Declaration, pol algorithms.Policy, b algorithms.Binding) (algorithms.Pipelined, error) {
	l, err := d.BindWith(p.rdb, pol, b)
	if err != nil {
		return nil, err
	}
	piped, ok := l.(algorithms.Pipelined)
	if !ok {
		return nil, fmt.Errorf("%s cannot be called in a pipeline", d.Name)
	}
	if err := l.Load(ctx); err != nil {
		return nil, fmt.Errorf("loading %s: %w", d.SourcePath, err)
	}
	if u, ok := l.(interface{ Unload(context.Context) error }); ok {
		p.unloaders = append(p.unloaders, u.Unload)
	}
	return piped, nil
}

// unload removes what loading put on the server (a Functions library).
func (p *prober) unload(ctx context.Context) {
	for _, u := range p.unloaders {
		_ = u(ctx)
	}
}

// send sends n requests of one unit of the identity key back to back in
// one pipeline, reading the server's TIME around them when timed.
func (p *prober) send(ctx context.Context, lim algorithms.Pipelined, key string, n int, timed bool) burst {
	return p.burst(ctx, lim, key, n, 1, timed)
}

// sendUnits sends n requests of units each.
func (p *prober) sendUnits(ctx context.Context, lim algorithms.Pipelined, key string, n int, units int64) burst {
	return p.burst(ctx, lim, key, n, units, false)
}

func (p *prober) burst(ctx context.Context, lim algorithms.Pipelined, key string, n int, units int64, timed bool) burst {
	var b burst
	cmds := make([][]any, n)
	reqs := make([]algorithms.Request, n)
	if timed {
		b.timeBefore = p.serverTime(ctx)
	}
	for i := range n {
		cmds[i], reqs[i] = lim.AppendCommand(nil, &key, units)
	}
	b.sentAt = time.Now()
	cmders, err := p.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for _, c := range cmds {
			pipe.Do(ctx, c...)
		}
		return nil
	})
	b.doneAt = time.Now()
	p.calls += n
	for i := range n {
		c := call{req: reqs[i]}
		if i < len(cmders) {
			c.raw, c.err = cmders[i].(*redis.Cmd).Result()
		} else {
			c.err = err
		}
		if errors.Is(c.err, redis.Nil) {
			c.raw, c.err = nil, nil
		}
		b.calls = append(b.calls, c)
	}
	if timed {
		b.timeAfter = p.serverTime(ctx)
	}
	return b
}

// serverTime is Redis TIME in microseconds since the epoch; 0 when it
// cannot be read.
func (p *prober) serverTime(ctx context.Context) int64 {
	t, err := p.rdb.Time(ctx).Result()
	if err != nil {
		return 0
	}
	return t.UnixMicro()
}

// sleepUntil waits until t, or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
