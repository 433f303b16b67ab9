package profile

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/plan"
)

const clusterScenarios = "policy: {limit: 10, window: 1s}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 1s\n"

func TestParseCluster(t *testing.T) {
	for _, tc := range []struct {
		why, redis string
		want       ClusterSpec
	}{
		{"the issue's private cluster", "redis: {cluster: {masters: 3, replicas: 0}}", ClusterSpec{Masters: 3}},
		{"an empty cluster section is the default private cluster", "redis: {cluster: {}}", ClusterSpec{Masters: 3}},
		{"masters with replicas", "redis: {cluster: {masters: 2, replicas: 1}}", ClusterSpec{Masters: 2, Replicas: 1}},
		{"someone else's cluster, with a user, a password and TLS as for one server",
			"redis: {cluster: {addrs: [10.0.0.5:7000, \"10.0.0.6:7000\"]}, username: bench, password_env: RL_PASS, tls: true}",
			ClusterSpec{Addrs: []string{"10.0.0.5:7000", "10.0.0.6:7000"}}},
		{"URLs of one scheme and user", "redis: {cluster: {addrs: [\"rediss://bench@a:7000\", \"rediss://bench@b:7000/0\"]}}",
			ClusterSpec{Addrs: []string{"rediss://bench@a:7000", "rediss://bench@b:7000/0"}}},
	} {
		p, err := Parse("c.yaml", []byte(clusterScenarios+tc.redis+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		c := p.Redis.Cluster
		if c == nil || c.Masters != tc.want.Masters || c.Replicas != tc.want.Replicas || !slices.Equal(c.Addrs, tc.want.Addrs) || c.Private() != (len(tc.want.Addrs) == 0) {
			t.Errorf("%s: cluster %+v, want %+v", tc.why, c, tc.want)
		}
	}
}

func TestParseClusterErrors(t *testing.T) {
	for _, tc := range []struct {
		why, redis, want string
	}{
		{"one server and a cluster at once", "redis: {addr: \"a:1\", cluster: {}}", "c.yaml:6: redis.addr: give either addr (one server) or cluster, not both"},
		{"no masters", "redis: {cluster: {masters: 0}}", "redis.cluster.masters: must be at least 1"},
		{"a typo's hundred masters", "redis: {cluster: {masters: 100}}", "redis.cluster.masters: a private cluster has 1 to 16 masters, not 100"},
		{"too many replicas", "redis: {cluster: {replicas: 9}}", "redis.cluster.replicas: a private cluster has 0 to 4 replicas per master, not 9"},
		{"a cluster has one database", "redis: {db: 2, cluster: {}}", "redis.db: a Redis Cluster has database 0 only"},
		{"a database in a node's URL", "redis: {cluster: {addrs: [\"redis://a:7000/3\"]}}", `c.yaml:6: redis.cluster.addrs[0]: "redis://a:7000/3" names database 3: a Redis Cluster has database 0 only`},
		{"a password in a node's URL, not printed", "redis: {cluster: {addrs: [\"redis://u:s3cret@a:7000\"]}}", `redis.cluster.addrs[0]: "redis://u:xxxxx@a:7000" carries a password`},
		{"not an address", "redis: {cluster: {addrs: [nowhere]}}", `redis.cluster.addrs[0]: "nowhere" names no port`},
		{"no nodes at all", "redis: {cluster: {addrs: []}}", "redis.cluster.addrs: list is empty: name at least one node of the cluster"},
		{"nodes reached two ways", "redis: {cluster: {addrs: [\"redis://a:1\", \"rediss://b:1\"]}}", "differ in scheme or user"},
		{"the shape of someone else's cluster", "redis: {cluster: {addrs: [\"a:1\"], masters: 3}}", "redis.cluster.masters: describes a private cluster rlbench starts"},
		{"a private cluster has no users", "redis: {username: bench, cluster: {}}", "redis.username: a private cluster has no users, passwords or TLS"},
		{"a misspelt field", "redis: {cluster: {master: 3}}", `redis.cluster.master: unknown field (did you mean "masters"?`},
	} {
		_, err := Parse("c.yaml", []byte(clusterScenarios+tc.redis+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the password is in the message: %v", tc.why, err)
		}
	}
}

func TestParseHashTag(t *testing.T) {
	for _, tc := range []struct {
		why, scenario string
		want          plan.HashTag
		err           string
	}{
		{"unset: the runner decides by the server", "", plan.HashTagDefault, ""},
		{"the default spelled out", "    hash_tag: identity\n", plan.HashTagIdentity, ""},
		{"whole keys hashed", "    hash_tag: none\n", plan.HashTagNone, ""},
		{"the bad tag, run anyway", "    hash_tag: fixed\n", plan.HashTagFixed, ""},
		{"anything else", "    hash_tag: tenant\n", "", `c.yaml:6: scenarios[0].hash_tag: "tenant" is not identity, none or fixed`},
	} {
		p, err := Parse("c.yaml", []byte(clusterScenarios+tc.scenario))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.why, err)
		case tc.err == "" && p.Scenarios[0].HashTag != tc.want:
			t.Errorf("%s: hash tag %q, want %q", tc.why, p.Scenarios[0].HashTag, tc.want)
		}
	}
	for _, shape := range []string{"  - shape: boundary\n    identities: 2\n", "  - shape: cardinality\n    identities: 100\n    rate: max\n    requests: 10\n",
		"  - shape: ramp\n    stages: [{rate: 1x, duration: 1s}]\n"} {
		if _, err := Parse("c.yaml", []byte("policy: {limit: 10, window: 1s}\nscenarios:\n"+shape+"    hash_tag: fixed\n")); err != nil {
			t.Errorf("every shape takes hash_tag: %v", err)
		}
	}
}
