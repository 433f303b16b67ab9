package profile

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/internal/redisconf"
	"github.com/rlbench/rlbench/plan"
)

var clusterFields = []string{"masters", "replicas", "addrs"}

// Defaults of a private cluster.
const (
	DefaultClusterMasters  = 3
	DefaultClusterReplicas = 0
)

// parseCluster reads the redis section's cluster: a private cluster's
// shape (masters, replicas per master), or the nodes of a cluster someone
// else runs (addrs), never both; r is the rest of the redis section, which
// a cluster must agree with.
func parseCluster(d *decoder, parent *yamlMap, r *RedisSpec) *ClusterSpec {
	f := d.mapping(parent.values["cluster"], "redis.cluster", clusterFields...)
	c := &ClusterSpec{Masters: DefaultClusterMasters, Replicas: DefaultClusterReplicas}
	f.intField("masters", &c.Masters, 1)
	f.intField("replicas", &c.Replicas, 0)
	if items := f.sequence("addrs"); f.has("addrs") {
		c.Masters, c.Replicas = 0, 0
		for i, n := range items {
			field := fmt.Sprintf("redis.cluster.addrs[%d]", i)
			if n.Kind != yaml.ScalarNode {
				d.errorf(n.Line, field, "want host:port, got %s", describe(n))
				continue
			}
			if err := redisconf.CheckClusterAddr(n.Value); err != nil {
				d.errorf(n.Line, field, "%v", err)
				continue
			}
			c.Addrs = append(c.Addrs, n.Value)
		}
		if err := redisconf.CheckClusterAddrs(c.Addrs); err != nil && len(c.Addrs) == len(items) {
			f.errorf("addrs", "%v", err)
		}
		for _, k := range []string{"masters", "replicas"} {
			if f.has(k) {
				f.errorf(k, "describes a private cluster rlbench starts; with addrs the cluster is someone else's, and its shape is what it is")
			}
		}
	} else {
		if err := redisconf.CheckClusterShape(c.Masters, 0); err != nil {
			f.errorf("masters", "%v", err)
		}
		if err := redisconf.CheckClusterShape(1, c.Replicas); err != nil {
			f.errorf("replicas", "%v", err)
		}
		for _, k := range []string{"username", "password_env", "tls", "tls_ca_file", "tls_insecure"} {
			if parent.has(k) {
				parent.errorf(k, "a private cluster has no users, passwords or TLS: these settings go with redis.cluster.addrs (a cluster someone else runs)")
			}
		}
	}
	if parent.has("addr") {
		parent.errorf("addr", "give either addr (one server) or cluster, not both")
	}
	if r.DB != 0 {
		parent.errorf("db", "a Redis Cluster has database 0 only")
	}
	return c
}

// Private reports whether the cluster is one rlbench starts.
func (c *ClusterSpec) Private() bool { return len(c.Addrs) == 0 }

// hashTags lists the values hash_tag takes, for messages.
var hashTags = []plan.HashTag{plan.HashTagIdentity, plan.HashTagNone, plan.HashTagFixed}

// parseHashTag reads a scenario's hash_tag.
func parseHashTag(f *yamlMap, s *Scenario) {
	n := f.scalar("hash_tag")
	if n == nil {
		return
	}
	for _, t := range hashTags {
		if plan.HashTag(n.Value) == t {
			s.HashTag = t
			return
		}
	}
	f.errorf("hash_tag", "%q is not identity, none or fixed", n.Value)
}
