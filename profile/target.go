package profile

import "fmt"

// Target is which Redis a run uses, as the command line names it.
type Target int

// The targets a command line may name.
const (
	// TargetProfile is the profile's redis section: a server or cluster it
	// names, else a private server.
	TargetProfile Target = iota
	// TargetServer is a server rlbench did not start (--redis).
	TargetServer
	// TargetCluster is a Redis Cluster rlbench did not start
	// (--redis-cluster).
	TargetCluster
	// TargetSentinel is a primary that Redis Sentinel manages
	// (--redis-sentinel).
	TargetSentinel
)

// checkRunTarget is the one place that says what the faults and the client
// section can do on the Redis the run will use, and in a segmented run:
// faults that need control of the server run only on a private one; faults
// and the caller's policy run on a single server, not a cluster; and one
// process injects a scenario's faults for the whole load, so a segment
// schedules none. Each refusal names the fault's (or the section's) line.
func checkRunTarget(d *decoder, p *Profile, o Options) {
	switch {
	case o.Target == TargetServer:
		checkFaultTargets(d, p, "--redis names a server rlbench did not start")
	case o.Target == TargetCluster:
		checkFaultsOnCluster(d, p, "--redis-cluster names a Redis Cluster")
	case o.Target == TargetSentinel:
		checkFaultsOnSentinel(d, p, "--redis-sentinel names a primary found through Sentinel")
	case p.Redis != nil && p.Redis.Sentinel != nil:
		checkFaultsOnSentinel(d, p, "the profile's redis section names a primary found through Sentinel")
	case p.Redis != nil && p.Redis.Cluster != nil:
		checkFaultsOnCluster(d, p, "the profile's redis section names a Redis Cluster")
	case p.Redis != nil && p.Redis.Addr != "":
		checkFaultTargets(d, p, "the profile's redis section names a server rlbench did not start")
	}
	if !o.Segmented {
		return
	}
	seen := map[string]bool{}
	for _, s := range p.Scenarios {
		if len(s.Faults) == 0 || seen[s.Faults[0].Path] {
			continue
		}
		seen[s.Faults[0].Path] = true
		f := s.Faults[0]
		name := s.Name
		if s.PolicyGroup != "" {
			name = s.PolicyGroup
		}
		d.errorf(f.Line, f.Path, "%s", fmt.Sprintf("--segment: scenario %s schedules faults, which one process injects for the whole load: run a profile with faults without --segment", name))
	}
}
