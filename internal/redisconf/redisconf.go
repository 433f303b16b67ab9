// Package redisconf checks Redis connection settings the same way wherever
// they come from (a profile's redis section, the --redis flag), so that a
// wrong one is reported where it was written, before anything is dialled,
// and it keeps credentials out of every message about them.
package redisconf

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/internal/input"
)

// Redacted stands in for a password in messages.
const Redacted = "xxxxx"

// Redact hides the password in the user information of an address, so a
// message can quote it: redis://bench:xxxxx@host:6379. It does not need the
// address to parse: everything after "://" (if any) and before the last
// "@" is user information, and all of it after the first ":" is hidden.
func Redact(s string) string {
	head, info, tail, ok := userinfo(s)
	if !ok {
		return s
	}
	user, _, hasPassword := strings.Cut(info, ":")
	if !hasPassword {
		return s
	}
	return head + user + ":" + Redacted + tail
}

// userinfo splits an address around its user information: head ends with
// "://" (or is empty), tail starts with "@".
func userinfo(s string) (head, info, tail string, ok bool) {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + len("://")
	}
	at := strings.LastIndex(s, "@")
	if at < start {
		return "", "", "", false
	}
	return s[:start], s[start:at], s[at:], true
}

// hasPassword reports whether an address carries a password in its user
// information (see Redact for how it is found).
func hasPassword(s string) bool {
	_, info, _, ok := userinfo(s)
	return ok && strings.Contains(info, ":")
}

// CheckAddr checks a Redis address: host:port, or a redis:// or rediss://
// URL with an optional user name and database number
// (redis://bench@host:6379/2). A URL must not carry a password (it goes in
// the environment variable a profile or --redis-password-env names), a
// query or a fragment. Its errors quote the address with any password
// hidden and say what is wrong with it: no host, no port, a port that is
// not one, an IPv6 address without brackets.
func CheckAddr(addr string) error {
	quoted := strconv.Quote(Redact(addr))
	if hasPassword(addr) {
		return fmt.Errorf("%s carries a password; put it in an environment variable and name that in redis.password_env (a profile) or --redis-password-env (the command line)", quoted)
	}
	if strings.TrimSpace(addr) == "" {
		return fmt.Errorf("%s is empty: name a server as host:port or a redis:// URL", quoted)
	}
	if strings.ContainsAny(addr, " \t\r\n") {
		return fmt.Errorf("%s is not host:port or a redis:// URL: it holds white space", quoted)
	}
	if !strings.Contains(addr, "://") {
		return checkHostPort(addr, quoted)
	}
	u, err := url.Parse(addr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s is not a URL: %w", quoted, err)
	}
	switch {
	case u.Scheme != "redis" && u.Scheme != "rediss":
		return fmt.Errorf("%s: scheme %q is not redis:// or rediss://", quoted, u.Scheme)
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Errorf("%s: a query (?...) is not supported: give the database, user and TLS settings in the profile's redis section", quoted)
	case u.Fragment != "":
		return fmt.Errorf("%s: a fragment (#...) is not supported", quoted)
	case u.Hostname() == "":
		return fmt.Errorf("%s names no host", quoted)
	case strings.Count(u.Host, ":") > 1 && !strings.HasPrefix(u.Host, "["):
		return fmt.Errorf("%s: an IPv6 address goes in brackets, as %s://[::1]:6379", quoted, u.Scheme)
	case strings.HasSuffix(u.Host, ":"):
		return fmt.Errorf("%s names no port after the colon: leave the colon out for Redis's 6379, or name one", quoted)
	}
	if p := u.Port(); p != "" {
		if err := checkPort(p); err != nil {
			return fmt.Errorf("%s: %w", quoted, err)
		}
	}
	if path := strings.Trim(u.Path, "/"); path != "" {
		if db, err := strconv.Atoi(path); err != nil || db < 0 {
			return fmt.Errorf("%s: the path %q is not a database number", quoted, u.Path)
		}
	}
	return nil
}

// checkHostPort checks an address written host:port, its errors starting
// with quoted.
func checkHostPort(addr, quoted string) error {
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, ".") {
		return fmt.Errorf("%s is not host:port or a redis:// URL (a unix socket is not supported)", quoted)
	}
	if strings.Count(addr, ":") > 1 && !strings.HasPrefix(addr, "[") {
		// The last group is the port when what comes before it is an
		// address by itself (::1:6379); else it is the address's own
		// (fe80::1).
		example := "[" + addr + "]:6379"
		i := strings.LastIndex(addr, ":")
		if _, err := netip.ParseAddr(addr[:i]); err == nil && checkPort(addr[i+1:]) == nil {
			example = "[" + addr[:i] + "]:" + addr[i+1:]
		}
		return fmt.Errorf("%s: an IPv6 address goes in brackets, as %s", quoted, strconv.Quote(example))
	}
	if !strings.Contains(addr, ":") || strings.HasSuffix(addr, "]") {
		return fmt.Errorf("%s names no port: write it host:port, as %s", quoted, strconv.Quote(addr+":6379"))
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s is not host:port or a redis:// URL", quoted)
	}
	switch {
	case host == "" && port == "":
		return fmt.Errorf("%s names neither a host nor a port: write it host:port, as \"127.0.0.1:6379\"", quoted)
	case host == "":
		return fmt.Errorf("%s names no host before the colon: write it host:port, as %s for this machine", quoted, strconv.Quote("127.0.0.1:"+port))
	case port == "":
		return fmt.Errorf("%s names no port after the colon: write it host:port, as %s", quoted, strconv.Quote(net.JoinHostPort(host, "6379")))
	case strings.Contains(host, "/"):
		return fmt.Errorf("%s is not host:port or a redis:// URL", quoted)
	case strings.Contains(port, "/"):
		return fmt.Errorf("%s: a database is named in a URL, as %s, or with redis.db", quoted, strconv.Quote("redis://"+addr))
	}
	if err := checkPort(port); err != nil {
		return fmt.Errorf("%s: %w", quoted, err)
	}
	return nil
}

// checkPort checks a TCP port number: digits only, 1 to 65535.
func checkPort(port string) error {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strings.Trim(port, "0123456789") != "" {
		return fmt.Errorf("port %s is not a TCP port (a number from 1 to 65535)", strconv.Quote(port))
	}
	return nil
}

// maxCABytes is the largest CA file rlbench reads: a bundle of every
// public root is about 200 KiB.
const maxCABytes = 4 << 20

// LoadCA reads the PEM certificates in path into a pool to trust. Its
// errors name the file.
func LoadCA(path string) (*x509.CertPool, error) {
	data, err := input.Read(context.Background(), path, "a CA file", maxCABytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// MaxClusterAddrs is the most cluster node addresses rlbench takes: the
// client learns every other node from any one of them.
const MaxClusterAddrs = 64

// CheckClusterAddr checks one address of a Redis Cluster's node: as
// CheckAddr, but without a database (a cluster has database 0 only).
func CheckClusterAddr(addr string) error {
	if err := CheckAddr(addr); err != nil {
		return err
	}
	if !strings.Contains(addr, "://") {
		return nil
	}
	u, _ := url.Parse(addr)
	if path := strings.Trim(u.Path, "/"); path != "" && path != "0" {
		return fmt.Errorf("%s names database %s: a Redis Cluster has database 0 only", strconv.Quote(Redact(addr)), path)
	}
	return nil
}

// CheckClusterAddrs checks the addresses of a Redis Cluster's nodes: at
// least one and at most MaxClusterAddrs, each as CheckClusterAddr wants
// it, and URLs all of one scheme and user (one client talks to every node
// the same way).
func CheckClusterAddrs(addrs []string) error {
	if len(addrs) == 0 {
		return fmt.Errorf("list is empty: name at least one node of the cluster")
	}
	if len(addrs) > MaxClusterAddrs {
		return fmt.Errorf("list names %d nodes; at most %d (any one node is enough)", len(addrs), MaxClusterAddrs)
	}
	var scheme, user, first string
	for _, a := range addrs {
		if err := CheckClusterAddr(a); err != nil {
			return err
		}
		if !strings.Contains(a, "://") {
			continue
		}
		u, _ := url.Parse(a)
		if first == "" {
			scheme, user, first = u.Scheme, u.User.Username(), a
			continue
		}
		if u.Scheme != scheme || u.User.Username() != user {
			return fmt.Errorf("%s and %s differ in scheme or user: every node of one cluster is reached the same way",
				strconv.Quote(Redact(first)), strconv.Quote(Redact(a)))
		}
	}
	return nil
}

// SplitClusterAddrs reads a comma-separated list of cluster node
// addresses (as --redis-cluster takes them) and checks it.
func SplitClusterAddrs(list string) ([]string, error) {
	var addrs []string
	for _, a := range strings.Split(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs, CheckClusterAddrs(addrs)
}

// Bounds of a private cluster: enough masters to see how limiters spread
// over them, few enough that a typo does not start a hundred servers.
const (
	MaxClusterMasters  = 16
	MaxClusterReplicas = 4
)

// CheckClusterShape checks the shape of a private cluster: 1 to
// MaxClusterMasters masters, each with 0 to MaxClusterReplicas replicas.
func CheckClusterShape(masters, replicas int) error {
	switch {
	case masters < 1 || masters > MaxClusterMasters:
		return fmt.Errorf("a private cluster has 1 to %d masters, not %d", MaxClusterMasters, masters)
	case replicas < 0 || replicas > MaxClusterReplicas:
		return fmt.Errorf("a private cluster has 0 to %d replicas per master, not %d", MaxClusterReplicas, replicas)
	}
	return nil
}

// Endpoint is the host:port an address (host:port, or a redis:// or
// rediss:// URL, 6379 when it names no port) dials, its host in lower
// case; "" when the address is not one CheckAddr accepts. It tells
// whether two addresses name one server, whoever wrote them and however.
func Endpoint(addr string) string {
	if CheckAddr(addr) != nil {
		return ""
	}
	host, port := "", "6379"
	if strings.Contains(addr, "://") {
		u, _ := url.Parse(addr)
		host = u.Hostname()
		if p := u.Port(); p != "" {
			port = p
		}
	} else {
		host, port, _ = net.SplitHostPort(addr)
	}
	n, _ := strconv.Atoi(port) // CheckAddr took it: 06379 is 6379
	return net.JoinHostPort(strings.ToLower(host), strconv.Itoa(n))
}

// Among reports whether every one of named dials an endpoint of addrs:
// the credentials written for addrs may go to named. An empty named, or
// one of them that is not a valid address, is not among anything.
func Among(named, addrs []string) bool {
	if len(named) == 0 {
		return false
	}
	known := map[string]bool{}
	for _, a := range addrs {
		if e := Endpoint(a); e != "" {
			known[e] = true
		}
	}
	for _, n := range named {
		if e := Endpoint(n); e == "" || !known[e] {
			return false
		}
	}
	return true
}
