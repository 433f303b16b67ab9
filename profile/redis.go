package profile

import "github.com/rlbench/rlbench/internal/redisconf"

// checkRedis checks the redis section's address and CA file as the
// connection will use them, so that a wrong one is a profile error with
// its line rather than a failure when rlbench first dials.
func checkRedis(f *yamlMap, r *RedisSpec) {
	if f.has("addr") {
		if err := redisconf.CheckAddr(r.Addr); err != nil {
			f.errorf("addr", "%v", err)
		}
	}
	if r.TLSCAFile != "" {
		if _, err := redisconf.LoadCA(r.TLSCAFile); err != nil {
			f.errorf("tls_ca_file", "%v", err)
		}
	}
}
