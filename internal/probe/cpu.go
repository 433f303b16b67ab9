package probe

import (
	"context"
	"strconv"

	"github.com/rlbench/rlbench/internal/redisenv"
)

// ServerCPUSeconds is the CPU time the server has used since it started,
// in seconds (INFO cpu: used_cpu_sys + used_cpu_user, the main thread's
// and every other's), summed over the masters of a cluster; false when it
// cannot be read (the embedded server has none). Two readings around a
// stretch of traffic give the share of a CPU the server used for it.
func ServerCPUSeconds(ctx context.Context, t Target) (float64, bool) {
	if t.Env.Mode == redisenv.Embedded || !t.allows(redisenv.CmdInfo) {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Timeout)
	defer cancel()
	masters, err := redisenv.Masters(ctx, t.Env.Client)
	if err != nil {
		return 0, false
	}
	var total float64
	for _, m := range masters {
		info, err := m.Client.Info(ctx, "cpu").Result()
		if err != nil {
			return 0, false
		}
		fields := redisenv.ParseInfo(info)
		for _, name := range []string{"used_cpu_sys", "used_cpu_user"} {
			v, err := strconv.ParseFloat(fields[name], 64)
			if err != nil {
				return 0, false
			}
			total += v
		}
	}
	return total, true
}
