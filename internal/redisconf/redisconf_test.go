package redisconf

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"redis://bench:s3cret@h:6379/1", "redis://bench:xxxxx@h:6379/1"},  // the usual URL
		{"redis://bench:50%off@h:6379", "redis://bench:xxxxx@h:6379"},      // url.Parse refuses it
		{"redis://bench:p@ss:w/rd#1@h:6379", "redis://bench:xxxxx@h:6379"}, // separators in the password
		{"redis://:s3cret@h:6379", "redis://:xxxxx@h:6379"},                // a password without a user
		{"bench:s3cret@h:6379", "bench:xxxxx@h:6379"},                      // no scheme at all
		{"redis://bench@h:6379", "redis://bench@h:6379"},                   // a user name is no secret
		{"h:6379", "h:6379"}, // nothing to hide
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, err string
	}{
		{"127.0.0.1:6379", ""},                // host:port
		{"[::1]:6379", ""},                    // IPv6
		{"redis://cache.internal:6379/2", ""}, // URL with a database
		{"rediss://bench@cache.internal", ""}, // TLS, a user, the default port
		{"redis://h:06379", ""},               // leading zeros are still the port
		{"just-a-host", `"just-a-host" names no port: write it host:port, as "just-a-host:6379"`},
		{"127.0.0.1:99999", `"127.0.0.1:99999": port "99999" is not a TCP port (a number from 1 to 65535)`},
		{"127.0.0.1:http", `port "http" is not a TCP port`},
		{"h:+6379", `port "+6379" is not a TCP port`},
		{"h:-1", `port "-1" is not a TCP port`},
		// An address with a part missing, as an unset variable leaves it,
		// says which part.
		{"", `"" is empty: name a server as host:port or a redis:// URL`},
		{"127.0.0.1:", `"127.0.0.1:" names no port after the colon: write it host:port, as "127.0.0.1:6379"`},
		{":6379", `":6379" names no host before the colon: write it host:port, as "127.0.0.1:6379" for this machine`},
		{":", `":" names neither a host nor a port`},
		{"[::1]", `"[::1]" names no port: write it host:port, as "[::1]:6379"`},
		{"[::1]:", `"[::1]:" names no port after the colon: write it host:port, as "[::1]:6379"`},
		{"redis://h:", `"redis://h:" names no port after the colon`},
		{"::1:6379", `"::1:6379": an IPv6 address goes in brackets, as "[::1]:6379"`},
		{"fe80::1", `"fe80::1": an IPv6 address goes in brackets, as "[fe80::1]:6379"`},
		{"fe80::1%eth0:7000", `as "[fe80::1%eth0]:7000"`},
		{"redis://::1:6379", `"redis://::1:6379": an IPv6 address goes in brackets, as redis://[::1]:6379`},
		{"h:6379/2", `"h:6379/2": a database is named in a URL, as "redis://h:6379/2", or with redis.db`},
		{" h:6379", `" h:6379" is not host:port or a redis:// URL: it holds white space`},
		{"/tmp/redis.sock", "a unix socket is not supported"},
		{"redis://bench:s3cret@h:1", "put it in an environment variable and name that in redis.password_env (a profile) or --redis-password-env (the command line)"},
		{"http://h:1", `scheme "http" is not redis://`},
		{"redis://h:1/abc", `the path "/abc" is not a database number`},
		{"redis://h:1/0/1", `the path "/0/1" is not a database number`},
		{"redis://h:1/0?protocol=3", "a query (?...) is not supported"},
		{"redis://:6379", "names no host"},
		{"bench:s3cret@h:1", "carries a password"}, // without a scheme too
		{"redis://bench:50%off@h:1", "carries a password"},
		{"redis://h%zz:1", "is not a URL"},
	} {
		err := CheckAddr(tc.addr)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("CheckAddr(%q): %v", tc.addr, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CheckAddr(%q) = %v, want %q", tc.addr, err, tc.err)
		case err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "off")):
			t.Errorf("CheckAddr(%q) printed the password: %v", tc.addr, err)
		}
	}
}

func TestSplitClusterAddrs(t *testing.T) {
	for _, tc := range []struct {
		list string
		n    int
		err  string
	}{
		{"10.0.0.5:7000,10.0.0.6:7000", 2, ""},                   // the flag's form
		{" 10.0.0.5:7000 , ", 1, ""},                             // spaces and a trailing comma
		{"rediss://bench@a:7000,rediss://bench@b:7000/0", 2, ""}, // TLS with a user; database 0 is the only one
		{"", 0, "list is empty"},
		{"a:7000,nope", 0, `"nope" names no port`},
		{"redis://a:7000/2", 0, "names database 2: a Redis Cluster has database 0 only"},
		{"redis://u:s3cret@a:7000", 0, "carries a password"},
		{"redis://a@h:1,redis://b@h:2", 0, "differ in scheme or user"},
		{"redis://h:1,rediss://h:2", 0, "differ in scheme or user"},
		{strings.Repeat("h:1,", MaxClusterAddrs+1), 0, "at most 64"},
	} {
		addrs, err := SplitClusterAddrs(tc.list)
		switch {
		case tc.err == "" && (err != nil || len(addrs) != tc.n):
			t.Errorf("SplitClusterAddrs(%q) = %v, %v", tc.list, addrs, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("SplitClusterAddrs(%q): %v, want %q", tc.list, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("the password is in the message: %v", err)
		}
	}
}

func TestCheckClusterShape(t *testing.T) {
	for _, tc := range []struct {
		masters, replicas int
		ok                bool
	}{
		{3, 0, true},  // the cluster
		{1, 0, true},  // one master serves every slot
		{16, 4, true}, // the largest
		{0, 0, false},
		{17, 0, false},
		{3, -1, false},
		{3, 5, false},
	} {
		if err := CheckClusterShape(tc.masters, tc.replicas); (err == nil) != tc.ok {
			t.Errorf("CheckClusterShape(%d, %d) = %v", tc.masters, tc.replicas, err)
		}
	}
}

func TestEndpointAndAmong(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:6379", "127.0.0.1:6379"},
		{"Cache.Internal:7000", "cache.internal:7000"},            // host names are not case-sensitive
		{"h:06379", "h:6379"},                                     // nor are ports written with zeros in front
		{"redis://bench@cache.internal/2", "cache.internal:6379"}, // a URL without a port dials 6379
		{"rediss://[::1]:7000", "[::1]:7000"},
		{"not an address", ""},
	} {
		if got := Endpoint(tc.addr); got != tc.want {
			t.Errorf("Endpoint(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
	for _, tc := range []struct {
		named, addrs []string
		want         bool
	}{
		{[]string{"redis://h:6379/1"}, []string{"h:6379"}, true},        // one server written two ways
		{[]string{"h:6380"}, []string{"h:6379"}, false},                 // another port
		{[]string{"other:6379"}, []string{"h:6379"}, false},             // another host
		{[]string{"a:1", "b:2"}, []string{"b:2", "a:1", "c:3"}, true},   // every named node is the profile's
		{[]string{"a:1", "evil:2"}, []string{"a:1", "b:2"}, false},      // one that is not takes no credentials
		{nil, []string{"a:1"}, false},                                   // nothing named
		{[]string{"a:1"}, nil, false},                                   // the profile names nothing
		{[]string{"localhost:6379"}, []string{"127.0.0.1:6379"}, false}, // names are compared as written
	} {
		if got := Among(tc.named, tc.addrs); got != tc.want {
			t.Errorf("Among(%q, %q) = %v, want %v", tc.named, tc.addrs, got, tc.want)
		}
	}
}
