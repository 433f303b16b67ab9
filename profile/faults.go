package profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/internal/suggest"
	"github.com/rlbench/rlbench/plan"
)

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
	if s.Shape == plan.ShapeBoundary {
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
func parseFault(d *decoder, n *yaml.Node, path string, s *Scenario) (plan.Fault, bool) {
	flt := plan.Fault{Path: path, Line: n.Line}
	m := d.mapping(n, path, faultFields...)
	before := len(d.errs)
	if n.Kind != yaml.MappingNode {
		return flt, false
	}
	kind := ""
	m.str("kind", &kind)
	info := plan.FaultKind(kind).Info()
	switch {
	case !m.has("kind"):
		m.errorf("kind", "missing (known: %s)", strings.Join(plan.FaultKindNames(), ", "))
		return flt, false
	case kind == "":
		return flt, false
	case info.Kind == "":
		hint := ""
		if c := suggest.Closest(kind, plan.FaultKindNames(), 3); c != "" {
			hint = fmt.Sprintf("did you mean %q? ", c)
		}
		m.errorf("kind", "unknown fault %q (%sknown: %s)", kind, hint, strings.Join(plan.FaultKindNames(), ", "))
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
	case plan.FaultLatency:
		if !m.has("add") {
			m.errorf("add", "missing: how much later each reply arrives, e.g. 50ms")
		}
		m.duration("add", &flt.Add, time.Millisecond)
		m.duration("jitter", &flt.Jitter, 0)
		if flt.Jitter > flt.Add {
			m.errorf("jitter", "%s is more than add (%s): a reply cannot arrive before it is sent", flt.Jitter, flt.Add)
		}
	case plan.FaultBandwidth:
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

// anyServerKinds names the kinds that work on a server rlbench did not
// start, with the rights they need.
func anyServerKinds() string {
	var out []string
	for _, i := range plan.FaultKinds() {
		if i.PrivateOnly {
			continue
		}
		switch i.Kind {
		case plan.FaultPause:
			out = append(out, "pause (needs CLIENT PAUSE, an @admin command)")
		case plan.FaultStall:
			out = append(out, "stall (needs DEBUG, an @admin command, and enable-debug-command)")
		default:
			out = append(out, string(i.Kind))
		}
	}
	return strings.Join(out, ", ")
}
