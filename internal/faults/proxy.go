package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	zerologlog "github.com/rs/zerolog/log"

	"github.com/rlbench/rlbench/plan"
)

// faultProxy is the TCP proxy a run with network faults (or a failover)
// sends the limiter's calls through: Toxiproxy's proxy, run in this
// process on a loopback port. Network faults are Toxiproxy toxics added to
// it and removed again; a failover points it at another server.
type faultProxy struct {
	proxy *toxiproxy.Proxy
}

// startProxy starts a proxy on a free loopback port that forwards to
// upstream (host:port).
func startProxy(upstream string) (*faultProxy, error) {
	quietToxics()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, "rlbench", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("starting the fault proxy in front of %s: %w", upstream, err)
	}
	return &faultProxy{proxy: p}, nil
}

// quietToxics silences zerolog's global logger, which some of Toxiproxy's
// toxics (bandwidth) write to on standard error for every interrupted
// write: rlbench reports the faults itself, and nothing else in it logs
// through zerolog.
// Once: a toxic of another run may be reading it.
func quietToxics() { quietOnce.Do(func() { zerologlog.Logger = zerolog.Nop() }) }

var quietOnce sync.Once

// Addr is where the proxy listens.
func (p *faultProxy) Addr() string {
	p.proxy.Lock()
	defer p.proxy.Unlock()
	return p.proxy.Listen
}

// Close stops the proxy and closes every connection through it.
func (p *faultProxy) Close() { p.proxy.Stop() }

// moveTo points the proxy at another server: it closes every connection
// (their calls fail, as when a primary goes away) and listens again on the
// same address, so the clients' next connections reach upstream.
func (p *faultProxy) moveTo(upstream string) error {
	listen := p.Addr()
	return p.proxy.Update(&toxiproxy.Proxy{Listen: listen, Upstream: upstream, Enabled: true})
}

// toxic is one Toxiproxy toxic as its API describes it.
type toxic struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// toxicsFor are the toxics that make fault f: latency and a bandwidth cap
// on the replies (downstream), a reset of every connection a request
// arrives on (upstream), a black hole both ways.
func toxicsFor(f plan.Fault) []toxic {
	switch f.Kind {
	case plan.FaultLatency:
		return []toxic{{Name: "latency", Type: "latency", Stream: "downstream", Toxicity: 1,
			Attributes: map[string]any{"latency": f.Add.Milliseconds(), "jitter": f.Jitter.Milliseconds()}}}
	case plan.FaultBandwidth:
		return []toxic{{Name: "bandwidth", Type: "bandwidth", Stream: "downstream", Toxicity: 1,
			Attributes: map[string]any{"rate": f.RateKBps}}}
	case plan.FaultReset:
		return []toxic{{Name: "reset", Type: "reset_peer", Stream: "upstream", Toxicity: 1,
			Attributes: map[string]any{"timeout": 0}}}
	case plan.FaultTimeout:
		return []toxic{
			{Name: "blackhole_up", Type: "timeout", Stream: "upstream", Toxicity: 1, Attributes: map[string]any{"timeout": 0}},
			{Name: "blackhole_down", Type: "timeout", Stream: "downstream", Toxicity: 1, Attributes: map[string]any{"timeout": 0}},
		}
	}
	return nil
}

// add adds the toxics of f and says what they are.
func (p *faultProxy) add(f plan.Fault) (string, error) {
	var names []string
	for _, t := range toxicsFor(f) {
		body, err := json.Marshal(t)
		if err != nil {
			return "", err
		}
		if _, err := p.proxy.Toxics.AddToxicJson(strings.NewReader(string(body))); err != nil {
			p.remove()
			return "", fmt.Errorf("adding the %s toxic: %w", t.Type, err)
		}
		attrs, _ := json.Marshal(t.Attributes)
		names = append(names, fmt.Sprintf("%s on %s %s", t.Type, t.Stream, attrs))
	}
	return "toxiproxy " + strings.Join(names, ", "), nil
}

// remove removes every toxic; connections a black hole held are closed.
func (p *faultProxy) remove() { p.proxy.Toxics.ResetToxics(context.Background()) }
