package profile

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/internal/redisconf"
	"github.com/rlbench/rlbench/plan"
)

var sentinelFields = []string{"master_name", "addrs", "username", "password_env"}

// SentinelSpec is the redis section's sentinel: a primary that Redis
// Sentinel manages, by the name its Sentinels monitor it under, and the
// Sentinels to ask where it is (any one that answers is enough). Username
// and PasswordEnv (the environment variable that holds the password) are
// the Sentinels' own, when they ask for one (requirepass, or an ACL user,
// in the Sentinels' configuration); the redis section's are the primary's.
type SentinelSpec struct {
	MasterName  string
	Addrs       []string
	Username    string
	PasswordEnv string
}

// parseSentinel reads the redis section's sentinel. The section's user
// and password are the primary's, the sentinel's own the Sentinels'; a primary found through Sentinel takes
// the place of addr and cluster, and is reached without TLS.
func parseSentinel(d *decoder, parent *yamlMap) *SentinelSpec {
	f := d.mapping(parent.values["sentinel"], "redis.sentinel", sentinelFields...)
	s := &SentinelSpec{}
	f.str("master_name", &s.MasterName)
	f.str("username", &s.Username)
	f.str("password_env", &s.PasswordEnv)
	if s.PasswordEnv != "" && !envNamePattern.MatchString(s.PasswordEnv) {
		f.errorf("password_env", "%q is not an environment variable name (the password itself never goes in a profile)", s.PasswordEnv)
	}
	switch {
	case !f.has("master_name"):
		f.errorf("master_name", "is required: the name the Sentinels monitor the primary under (sentinel monitor NAME ...)")
	default:
		if err := redisconf.CheckSentinelMaster(s.MasterName); err != nil {
			f.errorf("master_name", "%v", err)
		}
	}
	items := f.sequence("addrs")
	for i, n := range items {
		field := fmt.Sprintf("redis.sentinel.addrs[%d]", i)
		if n.Kind != yaml.ScalarNode {
			d.errorf(n.Line, field, "want host:port, got %s", describe(n))
			continue
		}
		if err := redisconf.CheckSentinelAddr(n.Value); err != nil {
			d.errorf(n.Line, field, "%v", err)
			continue
		}
		s.Addrs = append(s.Addrs, n.Value)
	}
	if !f.has("addrs") {
		f.errorf("addrs", "is required: the Sentinels' host:port")
	} else if err := redisconf.CheckSentinelAddrs(s.Addrs); err != nil && len(s.Addrs) == len(items) {
		f.errorf("addrs", "%v", err)
	}
	for _, k := range []string{"addr", "cluster"} {
		if parent.has(k) {
			parent.errorf(k, "give one of addr (one server), cluster or sentinel (a primary the Sentinels name), not several")
		}
	}
	for _, k := range []string{"tls", "tls_ca_file", "tls_insecure"} {
		if parent.has(k) {
			parent.errorf(k, "TLS through Sentinel is not supported: name the primary by its address (addr) to use TLS")
		}
	}
	return s
}

// checkFaultsOnSentinel refuses, on a primary found through Sentinel, a
// client section and every fault but a failover: faults are injected into
// one server named by its address (or the one connection to it), and the
// Sentinels may move the primary to another. A failover is asked of the
// Sentinels themselves (SENTINEL FAILOVER), and its duration, when given,
// bounds how long they may take.
func checkFaultsOnSentinel(d *decoder, p *Profile, where string) {
	if p.Client != nil {
		d.errorf(p.Client.Line, "client", "the caller's policy wraps a client of one server named by its address, and %s: drop the client section, or name the primary by its address", where)
	}
	for _, s := range p.Scenarios {
		for _, f := range s.Faults {
			if f.Kind == plan.FaultFailover {
				continue
			}
			d.errorf(f.Line, f.Path+".kind", "faults are injected into one server named by its address, and %s, which the Sentinels may move: only a failover (asked of the Sentinels) runs there; name the primary by its address (--redis) to run scenarios with other faults", where)
			return
		}
	}
}
