package redisenv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MinVersion is the oldest Redis the limiters run on: the scripts call TIME
// before writing, which needs script effects replication (the default since
// 5.0), the fixed window reads PEXPIRETIME and the fixed window without Lua
// sends EXPIRE ... NX (both 7.0).
const MinVersion = "7.0.0"

// CheckVersion refuses a server older than MinVersion, clearly.
func CheckVersion(v string) error {
	if v == "" {
		return errors.New("server did not report redis_version")
	}
	if compareVersions(v, MinVersion) < 0 {
		return fmt.Errorf("Redis %s is too old: rlbench's scripts need %s or newer", v, MinVersion)
	}
	return nil
}

// compareVersions compares dotted numeric versions ("7.0.15" vs "5.0.0").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
