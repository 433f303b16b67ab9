package profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/internal/suggest"
)

// FaultKind names one kind of fault a scenario may schedule.
type FaultKind string

// The fault kinds. Server-side kinds act on the Redis server; network
// kinds act on an in-process TCP proxy between rlbench and Redis.
const (
	// FaultPause is CLIENT PAUSE <for> ALL: every client's commands wait.
	FaultPause FaultKind = "pause"
	// FaultStall freezes the server: SIGSTOP and SIGCONT of a private
	// server, DEBUG SLEEP on any other.
	FaultStall FaultKind = "stall"
	// FaultKill is SIGKILL of a private server, which stays down for
	// <for> and is then started again, empty (a crash and a supervisor's
	// restart).
	FaultKill FaultKind = "kill"
	// FaultRestart stops a private server (SHUTDOWN NOSAVE) and starts it
	// again at once: every limiter's state is lost.
	FaultRestart FaultKind = "restart"
	// FaultFlushScripts is SCRIPT FLUSH: the next calls get NOSCRIPT and
	// load their script again.
	FaultFlushScripts FaultKind = "flush_scripts"
	// FaultFailover promotes a private replica and moves the clients to it;
	// for <for> after the promotion the old primary still takes the
	// clients' writes, which the new one never sees.
	FaultFailover FaultKind = "failover"
	// FaultLatency holds every reply <add> (give or take <jitter>) longer.
	FaultLatency FaultKind = "latency"
	// FaultTimeout is a black hole: nothing gets through either way, and
	// connections stay open until the fault ends.
	FaultTimeout FaultKind = "timeout"
	// FaultReset resets every connection as soon as a request arrives on it.
	FaultReset FaultKind = "reset"
	// FaultBandwidth caps the replies at <rate> kilobytes a second.
	FaultBandwidth FaultKind = "bandwidth"
)

// FaultInfo describes a fault kind for people choosing one.
type FaultInfo struct {
	Kind FaultKind
	// What says what rlbench does.
	What string
	// Target says which servers it works on, and the rights it needs on a
	// server rlbench did not start.
	Target string
	// For says whether the fault takes a duration: "required",
	// "optional" or "none".
	For string
	// Params are the fields it takes besides at, for and kind.
	Params []string
	// PrivateOnly kinds need control of the server process (or replicas
	// rlbench starts), or change what other clients of a shared server
	// rely on: they run only on a private redis-server.
	PrivateOnly bool
	// Network kinds act on the proxy between rlbench and Redis.
	Network bool
}

// faultKinds lists every kind, in the order messages name them.
var faultKinds = []FaultInfo{
	{Kind: FaultPause, What: "CLIENT PAUSE <for> ALL: every client's commands wait", For: "required",
		Target: "any server; on one rlbench did not start the user needs CLIENT PAUSE (@admin)"},
	{Kind: FaultStall, What: "the server freezes: SIGSTOP then SIGCONT of a private server, DEBUG SLEEP on any other", For: "required",
		Target: "any server; on one rlbench did not start the user needs DEBUG (@admin) and the server enable-debug-command"},
	{Kind: FaultKill, What: "SIGKILL; the server stays down for <for>, then starts again empty", For: "required",
		Target: "a private server only (needs control of the process)", PrivateOnly: true},
	{Kind: FaultRestart, What: "SHUTDOWN NOSAVE and a fresh start at once: every limiter's state is lost", For: "none",
		Target: "a private server only (needs control of the process)", PrivateOnly: true},
	{Kind: FaultFlushScripts, What: "SCRIPT FLUSH: the next calls get NOSCRIPT and load their script again", For: "none",
		Target: "a private server only (it would empty every other client's script cache too)", PrivateOnly: true},
	{Kind: FaultFailover, What: "a private replica is promoted, the clients move to it; for <for> the old primary takes writes that are lost", For: "optional",
		Target: "a private server only (rlbench starts the replica)", PrivateOnly: true},
	{Kind: FaultLatency, What: "every reply is held <add> longer (give or take <jitter>)", For: "required", Params: []string{"add", "jitter"},
		Target: "any server (an in-process proxy between rlbench and Redis)", Network: true},
	{Kind: FaultTimeout, What: "a black hole: nothing gets through either way, connections stay open", For: "required",
		Target: "any server (an in-process proxy between rlbench and Redis)", Network: true},
	{Kind: FaultReset, What: "every connection is reset as soon as a request arrives on it", For: "required",
		Target: "any server (an in-process proxy between rlbench and Redis)", Network: true},
	{Kind: FaultBandwidth, What: "replies are capped at <rate> (kilobytes a second, e.g. 10KB/s)", For: "required", Params: []string{"rate"},
		Target: "any server (an in-process proxy between rlbench and Redis)", Network: true},
}

// FaultKinds describes every fault kind, in the order messages name them.
func FaultKinds() []FaultInfo { return slices.Clone(faultKinds) }

// Info describes the kind; the zero FaultInfo for an unknown one.
func (k FaultKind) Info() FaultInfo {
	for _, i := range faultKinds {
		if i.Kind == k {
			return i
		}
	}
	return FaultInfo{}
}

// Network reports whether the fault acts on the proxy between rlbench and
// Redis rather than on the server.
func (k FaultKind) Network() bool { return k.Info().Network }

// LosesState reports whether the fault takes the limiters' state away:
// the server that held it is gone (kill, restart) or replaced by one that
// may lack the last writes (failover).
func (k FaultKind) LosesState() bool {
	return k == FaultKill || k == FaultRestart || k == FaultFailover
}

func faultKindNames() []string {
	names := make([]string, len(faultKinds))
	for i, f := range faultKinds {
		names[i] = string(f.Kind)
	}
	return names
}

// Fault is one fault a scenario schedules.
type Fault struct {
	Kind FaultKind
	// At is when it starts, from the start of the run's measured traffic.
	At time.Duration
	// For is how long it lasts (zero for the kinds that happen at once).
	For time.Duration
	// Add and Jitter are a latency fault's extra delay and its variation.
	Add, Jitter time.Duration
	// RateKBps is a bandwidth fault's cap in kilobytes a second.
	RateKBps int64
	// Path and Line locate it in the profile, for messages.
	Path string
	Line int
}

// End is when the fault is scheduled to end.
func (f Fault) End() time.Duration { return f.At + f.For }

// String says it as a profile would: "latency at 14s for 1s (add 50ms)".
func (f Fault) String() string {
	s := fmt.Sprintf("%s at %s", f.Kind, f.At)
	if f.For > 0 {
		s += " for " + f.For.String()
	}
	switch f.Kind {
	case FaultLatency:
		s += " (add " + f.Add.String()
		if f.Jitter > 0 {
			s += " ± " + f.Jitter.String()
		}
		s += ")"
	case FaultBandwidth:
		s += fmt.Sprintf(" (%dKB/s)", f.RateKBps)
	}
	return s
}

// maxFaults bounds a scenario's list of faults.
const maxFaults = 100

var faultFields = []string{"at", "for", "kind", "add", "jitter", "rate"}

// parseFaults reads a scenario's faults: each inside the scenario's run,
// in order, none overlapping another.
func parseFaults(f *yamlMap, s *Scenario) {
	items := f.sequence("faults")
	if !f.has("faults") {
		return
	}
	if s.Shape == ShapeBoundary {
		f.errorf("faults", "the boundary shape schedules its requests around each identity's window, not in time: schedule faults in a steady, ramp or cardinality scenario")
		return
	}
	if len(items) > maxFaults {
		f.errorf("faults", "%d faults is more than %d", len(items), maxFaults)
		return
	}
	for i, n := range items {
		path := fmt.Sprintf("%s[%d]", f.join("faults"), i)
		if flt, ok := parseFault(f.d, n, path, s); ok {
			s.Faults = append(s.Faults, flt)
		}
	}
	for i := 1; i < len(s.Faults); i++ {
		prev, cur := s.Faults[i-1], s.Faults[i]
		if cur.At < prev.End() || (cur.At == prev.At) {
			f.d.errorf(cur.Line, cur.Path+".at", "%s starts before %s (%s) is over: list faults in order, one at a time", cur.At, prev.Path, prev)
		}
	}
}

// parseFault reads one fault.
func parseFault(d *decoder, n *yaml.Node, path string, s *Scenario) (Fault, bool) {
	flt := Fault{Path: path, Line: n.Line}
	m := d.mapping(n, path, faultFields...)
	before := len(d.errs)
	if n.Kind != yaml.MappingNode {
		return flt, false
	}
	kind := ""
	m.str("kind", &kind)
	info := FaultKind(kind).Info()
	switch {
	case !m.has("kind"):
		m.errorf("kind", "missing (known: %s)", strings.Join(faultKindNames(), ", "))
		return flt, false
	case kind == "":
		return flt, false
	case info.Kind == "":
		hint := ""
		if c := suggest.Closest(kind, faultKindNames(), 3); c != "" {
			hint = fmt.Sprintf("did you mean %q? ", c)
		}
		m.errorf("kind", "unknown fault %q (%sknown: %s)", kind, hint, strings.Join(faultKindNames(), ", "))
		return flt, false
	}
	flt.Kind = info.Kind
	if !m.has("at") {
		m.errorf("at", "missing: when the fault starts, from the start of the run, e.g. 5s")
	}
	m.duration("at", &flt.At, 0)
	m.duration("for", &flt.For, time.Millisecond)
	switch info.For {
	case "required":
		if !m.has("for") {
			m.errorf("for", "missing: how long the %s lasts, e.g. 2s", info.Kind)
		}
	case "none":
		if m.has("for") {
			m.errorf("for", "a %s happens at once and takes as long as it takes; it has no duration", info.Kind)
		}
	}
	for _, p := range []string{"add", "jitter", "rate"} {
		if m.has(p) && !slices.Contains(info.Params, p) {
			m.errorf(p, "has no meaning for a %s fault", info.Kind)
		}
	}
	switch info.Kind {
	case FaultLatency:
		if !m.has("add") {
			m.errorf("add", "missing: how much later each reply arrives, e.g. 50ms")
		}
		m.duration("add", &flt.Add, time.Millisecond)
		m.duration("jitter", &flt.Jitter, 0)
		if flt.Jitter > flt.Add {
			m.errorf("jitter", "%s is more than add (%s): a reply cannot arrive before it is sent", flt.Jitter, flt.Add)
		}
	case FaultBandwidth:
		if !m.has("rate") {
			m.errorf("rate", "missing: the cap in kilobytes a second, e.g. 10KB/s")
		} else if v := m.scalar("rate"); v != nil {
			kbps, err := parseKBps(v.Value)
			if err != nil {
				m.errorf("rate", "%v", err)
			}
			flt.RateKBps = kbps
		}
	}
	if len(d.errs) > before {
		return flt, false
	}
	if length := s.Duration; flt.At >= length || flt.End() > length {
		m.errorf("at", "%s does not fit in the scenario's %s: a fault must start and end while its run's traffic goes on", flt, length)
		return flt, false
	}
	return flt, true
}

// parseKBps reads a bandwidth like 10KB/s (kilobytes a second, the unit
// the proxy counts in) as a whole number of kilobytes a second.
func parseKBps(s string) (int64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "KB/s")
	v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || v < 1 || v > 10_000_000 {
		return 0, fmt.Errorf("%q is not a bandwidth like 10KB/s (whole kilobytes a second, 1 to 10000000)", s)
	}
	return v, nil
}

// HasFaults reports whether the scenario schedules faults.
func (s Scenario) HasFaults() bool { return len(s.Faults) > 0 }

// NeedsProxy reports whether the scenario's runs go through the proxy:
// a network fault acts on it, and a failover moves the clients with it.
func (s Scenario) NeedsProxy() bool {
	for _, f := range s.Faults {
		if f.Kind.Network() || f.Kind == FaultFailover {
			return true
		}
	}
	return false
}

// HasFaultKind reports whether the scenario schedules a fault of kind k.
func (s Scenario) HasFaultKind(k FaultKind) bool {
	for _, f := range s.Faults {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// checkFaultTargets refuses, on a server rlbench did not start, the faults
// that need a private one.
func checkFaultTargets(d *decoder, p *Profile, where string) {
	seen := map[string]bool{}
	for _, s := range p.Scenarios {
		for _, f := range s.Faults {
			info := f.Kind.Info()
			if !info.PrivateOnly || seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			d.errorf(f.Line, f.Path+".kind", "%s runs only on a private redis-server, and %s: %s; on any server: %s",
				f.Kind, where, info.Target, anyServerKinds())
		}
	}
}

// checkFaultsOnCluster refuses faults and a client section on a Redis
// Cluster: faults are injected into one server (or the one connection to
// it), the caller's policy wraps a single server's client, and a cluster's
// own failure modes (a master lost, slots moving) are another matter.
func checkFaultsOnCluster(d *decoder, p *Profile, where string) {
	if p.Client != nil {
		d.errorf(p.Client.Line, "client", "the caller's policy runs on a single redis-server, and %s: drop the client section, or run on a single server", where)
	}
	for _, s := range p.Scenarios {
		for _, f := range s.Faults {
			d.errorf(f.Line, f.Path+".kind", "faults run on a single redis-server, and %s: run scenarios with faults on a single server", where)
			return
		}
	}
}

// CheckFaultsOnCluster refuses a profile's faults and client section for a run on a Redis
// Cluster named on the command line (--redis-cluster), naming the file and
// line of the first.
func (p *Profile) CheckFaultsOnCluster() error {
	d := &decoder{file: p.Path}
	checkFaultsOnCluster(d, p, "--redis-cluster names a Redis Cluster")
	if len(d.errs) > 0 {
		return d.errs
	}
	return nil
}

// anyServerKinds names the kinds that work on a server rlbench did not
// start, with the rights they need.
func anyServerKinds() string {
	var out []string
	for _, i := range faultKinds {
		if i.PrivateOnly {
			continue
		}
		switch i.Kind {
		case FaultPause:
			out = append(out, "pause (needs CLIENT PAUSE, an @admin command)")
		case FaultStall:
			out = append(out, "stall (needs DEBUG, an @admin command, and enable-debug-command)")
		default:
			out = append(out, string(i.Kind))
		}
	}
	return strings.Join(out, ", ")
}

// CheckFaultsOnExternal refuses the faults that need a private server, for
// a profile run against a server rlbench does not start (--redis); each
// error names the fault's file and line.
func (p *Profile) CheckFaultsOnExternal() error {
	d := &decoder{file: p.Path}
	checkFaultTargets(d, p, "--redis names a server rlbench did not start")
	if len(d.errs) > 0 {
		return d.errs
	}
	return nil
}
