package redisenv

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Missing is something rlbench could not learn about the server, because
// the user may not run the command that says it.
type Missing struct {
	// What names it: "version", "maxmemory_policy".
	What    string
	Command string
	Reason  string
}

// describe reads what the result records of the server: its version, its
// eviction policy and whether it is a node of a Redis Cluster, as INFO
// fields (redis_version, maxmemory_policy, cluster_enabled). Where INFO
// is refused the version and the mode come from HELLO (which every user
// may send) and the policy from CONFIG GET; what neither may read is
// named in e.Missing, never an error.
func (e *Env) describe(ctx context.Context) (map[string]string, error) {
	fields := map[string]string{}
	if e.Access.Allows(CmdInfo) {
		for _, section := range []string{"server", "memory", "cluster"} {
			info, err := e.Client.Info(ctx, section).Result()
			if err != nil {
				return nil, fmt.Errorf("INFO %s: %w", section, err)
			}
			for k, v := range ParseInfo(info) {
				fields[k] = v
			}
		}
		return fields, nil
	}
	infoRefused, _ := e.Access.Refusal(CmdInfo)
	hello, err := Hello(ctx, e.Client)
	switch {
	case err != nil && isReply(err):
		e.Missing = append(e.Missing, Missing{What: "version", Command: "INFO and HELLO", Reason: infoRefused.Reason + "; " + err.Error()})
	case err != nil:
		return nil, fmt.Errorf("HELLO: %w", err)
	default:
		fields["redis_version"] = hello["version"]
		if hello["mode"] == "cluster" {
			fields["cluster_enabled"] = "1"
		}
	}
	if !e.Access.Allows(CmdConfigGet) {
		cfg, _ := e.Access.Refusal(CmdConfigGet)
		e.Missing = append(e.Missing, Missing{What: "maxmemory_policy", Command: "INFO and CONFIG GET",
			Reason: infoRefused.Reason + "; " + cfg.Reason})
		return fields, nil
	}
	cfg, err := e.Client.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		return nil, fmt.Errorf("CONFIG GET maxmemory-policy: %w", err)
	}
	fields["maxmemory_policy"] = cfg["maxmemory-policy"]
	return fields, nil
}

// Hello is what HELLO (without arguments: the connection keeps its
// protocol) says of the server: version, mode (standalone, cluster or
// sentinel), role (master or replica), among others.
func Hello(ctx context.Context, rdb redis.UniversalClient) (map[string]string, error) {
	v, err := rdb.Do(ctx, "HELLO").Result()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	switch r := v.(type) {
	case []any:
		for i := 0; i+1 < len(r); i += 2 {
			if k, ok := r[i].(string); ok {
				out[strings.ToLower(k)] = fmt.Sprint(r[i+1])
			}
		}
	case map[any]any:
		for k, val := range r {
			out[strings.ToLower(fmt.Sprint(k))] = fmt.Sprint(val)
		}
	default:
		return nil, fmt.Errorf("HELLO replied %T, not a map", v)
	}
	return out, nil
}
