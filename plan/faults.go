package plan

import (
	"fmt"
	"slices"
	"time"
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
	// Needs names the commands it sends to a server rlbench did not
	// start ("CLIENT PAUSE"), which the user rlbench connects as must be
	// allowed to run.
	Needs []string
}

// faultKinds lists every kind, in the order messages name them.
var faultKinds = []FaultInfo{
	{Kind: FaultPause, What: "CLIENT PAUSE <for> ALL: every client's commands wait", For: "required",
		Target: "any server; on one rlbench did not start the user needs CLIENT PAUSE (@admin)", Needs: []string{"CLIENT PAUSE"}},
	{Kind: FaultStall, What: "the server freezes: SIGSTOP then SIGCONT of a private server, DEBUG SLEEP on any other", For: "required",
		Target: "any server; on one rlbench did not start the user needs DEBUG (@admin) and the server enable-debug-command", Needs: []string{"DEBUG"}},
	{Kind: FaultKill, What: "SIGKILL; the server stays down for <for>, then starts again empty", For: "required",
		Target: "a private server only (needs control of the process)", PrivateOnly: true},
	{Kind: FaultRestart, What: "SHUTDOWN NOSAVE and a fresh start at once: every limiter's state is lost", For: "none",
		Target: "a private server only (needs control of the process)", PrivateOnly: true},
	{Kind: FaultFlushScripts, What: "SCRIPT FLUSH: the next calls get NOSCRIPT and load their script again", For: "none",
		Target: "a private server only (it would empty every other client's script cache too)", PrivateOnly: true},
	{Kind: FaultFailover, What: "a private replica is promoted, the clients move to it; for <for> the old primary takes writes that are lost (through Sentinel: SENTINEL FAILOVER, done within <for>, 30s if not given)", For: "optional",
		Target: "a private server (rlbench starts the replica), or a primary the Sentinels manage (rlbench asks them)", PrivateOnly: true},
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

// HoldsCalls reports whether the fault holds the calls themselves back
// until it ends (a pause, a stall): a call sent during it that ran at all
// ran as it ended. (A black hole holds nothing: it drops what it gets, so
// a call it caught ran before it took, if at all.)
func (k FaultKind) HoldsCalls() bool {
	return k == FaultPause || k == FaultStall
}

// FaultKindNames lists the kinds' names, in the order messages name them.
func FaultKindNames() []string {
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

// Faults are a scenario's faults, in order.
type Faults []Fault

// Any reports whether there is a fault.
func (fs Faults) Any() bool { return len(fs) > 0 }

// NeedsProxy reports whether runs with these faults go through the proxy:
// a network fault acts on it, and a failover moves the clients with it.
func (fs Faults) NeedsProxy() bool {
	for _, f := range fs {
		if f.Kind.Network() || f.Kind == FaultFailover {
			return true
		}
	}
	return false
}

// Has reports whether a fault of kind k is among them.
func (fs Faults) Has(k FaultKind) bool {
	for _, f := range fs {
		if f.Kind == k {
			return true
		}
	}
	return false
}
