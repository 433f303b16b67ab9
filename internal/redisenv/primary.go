package redisenv

import (
	"context"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// PrimarySwitch is the client of a Sentinel-managed primary moving from
// one server to another: At is when it dialled the new primary for the
// first time (the local clock). go-redis's failover client dials the new
// primary only once it has closed every connection to the old one (it
// hears of the switch from a Sentinel, or a Sentinel names the new
// primary as it dials), so a decision the old server made was made
// before At, and one the new server made after.
type PrimarySwitch struct {
	At       time.Time
	Old, New string
}

// Primaries follows the primary that the client of a Sentinel-managed
// Env talks to. Every connection to the primary (the run's client and
// every client cloned from it) is dialled through it, so it sees the
// primary change, and it closes at once the connections that clones of
// the client still hold to the old primary: go-redis moves the client's
// own pool, not its clones', and a probe left on a demoted primary would
// read a replica. A nil Primaries (a server named by its address, a
// cluster) reports no switch.
type Primaries struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu sync.Mutex
	// sentinels are the Sentinels' addresses, whose connections go
	// through the same dialer and are not the primary's.
	sentinels []string
	// spec names the Sentinels to ask for a failover, and timeout bounds
	// each call to one of them.
	spec      *SentinelSpec
	timeout   time.Duration
	current   string
	switches  []PrimarySwitch
	conns     map[*primaryConn]struct{}
	listeners []func(PrimarySwitch)
}

// newPrimaries follows a primary at addr, dialling with dial; the
// Sentinels at sentinels are told apart from it.
func newPrimaries(addr string, sentinels []string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *Primaries {
	return &Primaries{dial: dial, current: addr, sentinels: slices.Clone(sentinels), conns: map[*primaryConn]struct{}{}}
}

// addSentinels adds Sentinels the client may discover.
func (p *Primaries) addSentinels(addrs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range addrs {
		if !slices.Contains(p.sentinels, a) {
			p.sentinels = append(p.sentinels, a)
		}
	}
}

// dialer dials addr, and when addr is not a Sentinel's and not the
// primary dialled before, records the switch, closes the connections to
// the old primary and tells the listeners.
func (p *Primaries) dialer(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := p.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Contains(p.sentinels, addr) {
		return c, nil
	}
	if addr != p.current {
		sw := PrimarySwitch{At: time.Now(), Old: p.current, New: addr}
		p.switches = append(p.switches, sw)
		p.current = addr
		for pc := range p.conns {
			if pc.addr != addr {
				_ = pc.Conn.Close()
				delete(p.conns, pc)
			}
		}
		for _, l := range p.listeners {
			go l(sw)
		}
	}
	pc := &primaryConn{Conn: c, addr: addr, p: p}
	p.conns[pc] = struct{}{}
	return pc, nil
}

// Current is the primary last dialled.
func (p *Primaries) Current() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current
}

// Switches are the switches seen so far.
func (p *Primaries) Switches() []PrimarySwitch {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.switches)
}

// OnSwitch calls fn, in a goroutine of its own, at each switch from now
// on; the returned function stops that.
func (p *Primaries) OnSwitch(fn func(PrimarySwitch)) (stop func()) {
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, fn)
	i := len(p.listeners) - 1
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.listeners[i] = func(PrimarySwitch) {}
	}
}

// Direct is a client of the one server at addr, with c's settings, that
// does not follow the primary: for reading an old primary after a switch.
func (p *Primaries) Direct(c *redis.Client, addr string) *redis.Client {
	return CloneClient(c, func(o *redis.Options) {
		o.Addr, o.Dialer = addr, p.dial
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1
	})
}

// primaryConn is a connection to a primary, forgotten when it closes.
type primaryConn struct {
	net.Conn
	addr string
	p    *Primaries
}

func (c *primaryConn) Close() error {
	c.p.mu.Lock()
	delete(c.p.conns, c)
	c.p.mu.Unlock()
	return c.Conn.Close()
}
