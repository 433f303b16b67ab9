package redisconf

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxSentinelAddrs bounds how many Sentinels a run may name: any one that
// answers is enough, and a typo must not make rlbench dial hundreds.
const MaxSentinelAddrs = 16

// sentinelMasterName is what a Sentinel-monitored master's name may be
// here: a name that needs no quoting (sentinel monitor NAME ...).
var sentinelMasterName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// CheckSentinelMaster checks the name of a master the Sentinels monitor.
func CheckSentinelMaster(name string) error {
	if !sentinelMasterName.MatchString(name) {
		return fmt.Errorf("%s is not a master's name as Sentinel monitors it (1 to 128 letters, digits, '.', '_' or '-')", strconv.Quote(name))
	}
	return nil
}

// CheckSentinelAddrs checks the addresses of the Sentinels: at least one
// and at most MaxSentinelAddrs, each host:port (a Sentinel is asked
// without TLS or a database; the user and password are the master's).
func CheckSentinelAddrs(addrs []string) error {
	if len(addrs) == 0 {
		return fmt.Errorf("list is empty: name at least one Sentinel")
	}
	if len(addrs) > MaxSentinelAddrs {
		return fmt.Errorf("list names %d Sentinels; at most %d (any one that answers is enough)", len(addrs), MaxSentinelAddrs)
	}
	for _, a := range addrs {
		if err := CheckSentinelAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// CheckSentinelAddr checks one Sentinel's address: host:port.
func CheckSentinelAddr(addr string) error {
	if strings.Contains(addr, "://") {
		return fmt.Errorf("%s: a Sentinel is named by host:port", strconv.Quote(Redact(addr)))
	}
	return CheckAddr(addr)
}

// SplitSentinelAddrs reads a comma-separated list of Sentinels
// (--redis-sentinel) and checks it as CheckSentinelAddrs does.
func SplitSentinelAddrs(list string) ([]string, error) {
	var addrs []string
	for _, a := range strings.Split(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs, CheckSentinelAddrs(addrs)
}
