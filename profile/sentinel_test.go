package profile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

func TestParseSentinel(t *testing.T) {
	p, err := Parse("s.yaml", []byte(clusterScenarios+"redis: {sentinel: {master_name: mymaster, addrs: [\"10.0.0.5:26379\", \"10.0.0.6:26379\"]}, username: app, password_env: RL_PASS, db: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Redis.Sentinel
	if s == nil || s.MasterName != "mymaster" || !slices.Equal(s.Addrs, []string{"10.0.0.5:26379", "10.0.0.6:26379"}) || p.Redis.DB != 2 {
		t.Errorf("sentinel %+v, db %d", s, p.Redis.DB)
	}
}

// TestParseSentinelCredentials: the Sentinels' own user and password are
// the sentinel section's (the password by the variable that holds it),
// apart from the primary's in the redis section.
func TestParseSentinelCredentials(t *testing.T) {
	p, err := Parse("s.yaml", []byte(clusterScenarios+"redis: {sentinel: {master_name: m, addrs: [\"a:26379\"], username: watcher, password_env: RL_SENTINEL_PASS}, username: app, password_env: RL_PASS}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Redis.Sentinel
	if s.Username != "watcher" || s.PasswordEnv != "RL_SENTINEL_PASS" || p.Redis.Username != "app" || p.Redis.PasswordEnv != "RL_PASS" {
		t.Errorf("sentinel %+v, redis user %q and password_env %q", s, p.Redis.Username, p.Redis.PasswordEnv)
	}
}

func TestParseSentinelErrors(t *testing.T) {
	for _, tc := range []struct {
		why, redis, want string
	}{
		{"no master name", "redis: {sentinel: {addrs: [\"a:26379\"]}}", "s.yaml:6: redis.sentinel.master_name: is required"},
		{"no Sentinels", "redis: {sentinel: {master_name: m}}", "redis.sentinel.addrs: is required"},
		{"an empty list", "redis: {sentinel: {master_name: m, addrs: []}}", "redis.sentinel.addrs: list is empty: name at least one Sentinel"},
		{"a URL", "redis: {sentinel: {master_name: m, addrs: [\"redis://a:26379\"]}}", `redis.sentinel.addrs[0]: "redis://a:26379": a Sentinel is named by host:port`},
		{"not an address", "redis: {sentinel: {master_name: m, addrs: [nowhere]}}", `redis.sentinel.addrs[0]: "nowhere" names no port`},
		{"a name with a space", "redis: {sentinel: {master_name: \"my master\", addrs: [\"a:1\"]}}", `redis.sentinel.master_name: "my master" is not a master's name`},
		{"a server as well", "redis: {addr: \"a:1\", sentinel: {master_name: m, addrs: [\"a:2\"]}}", "redis.addr: give one of addr (one server), cluster or sentinel"},
		{"TLS", "redis: {tls: true, sentinel: {master_name: m, addrs: [\"a:2\"]}}", "redis.tls: TLS through Sentinel is not supported"},
		{"a password in place of its variable", "redis: {sentinel: {master_name: m, addrs: [\"a:2\"], password_env: \"s3cr:t\"}}", `redis.sentinel.password_env: "s3cr:t" is not an environment variable name`},
		{"a misspelt field", "redis: {sentinel: {master: m, addrs: [\"a:2\"]}}", `redis.sentinel.master: unknown field`},
	} {
		_, err := Parse("s.yaml", []byte(clusterScenarios+tc.redis+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.why, err, tc.want)
		}
	}
}

func TestFaultsRefusedThroughSentinel(t *testing.T) {
	body := "policy: {limit: 10, window: 1s}\nredis: {sentinel: {master_name: m, addrs: [\"a:26379\"]}}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 1s\n    faults:\n      - {at: 100ms, for: 100ms, kind: pause}\n"
	_, err := Parse("s.yaml", []byte(body))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:8: scenarios[0].faults[0].kind: faults are injected into one server named by its address") {
		t.Errorf("error %v", err)
	}
}

// TestFailoverAllowedThroughSentinel: a failover, which rlbench asks the
// Sentinels for, is the one fault a primary found through Sentinel takes,
// named in the profile or on the command line; another fault beside it
// is still refused at its line.
func TestFailoverAllowedThroughSentinel(t *testing.T) {
	body := "policy: {limit: 10, window: 1s}\nredis: {sentinel: {master_name: m, addrs: [\"a:26379\"]}}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 10s\n    faults:\n      - {at: 1s, for: 5s, kind: failover}\n"
	p, err := Parse("s.yaml", []byte(body))
	if err != nil {
		t.Fatalf("a failover through Sentinel refused: %v", err)
	}
	if f := p.Scenarios[0].Faults; len(f) != 1 || f[0].Kind != plan.FaultFailover || f[0].For != 5*time.Second {
		t.Errorf("faults %+v, want the failover at 1s for 5s", f)
	}
	cli := strings.Replace(body, "redis: {sentinel: {master_name: m, addrs: [\"a:26379\"]}}\n", "", 1)
	if _, err := ParseWith("s.yaml", []byte(cli), Options{Target: TargetSentinel}); err != nil {
		t.Errorf("a failover with --redis-sentinel refused: %v", err)
	}
	both := body + "      - {at: 7s, for: 1s, kind: pause}\n"
	_, err = Parse("s.yaml", []byte(both))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:9: scenarios[0].faults[1].kind: faults are injected into one server named by its address") ||
		!strings.Contains(err.Error(), "only a failover (asked of the Sentinels) runs there") {
		t.Errorf("a pause beside the failover: error %v", err)
	}
}
