package workload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// newLimiter builds the limiter of one run, under the policy of its
// scenario: a user's limiter the profile declares, bound to this run's
// scenario, or a built-in by name (through NewLimiter when set).
func (r *Runner) newLimiter(spec profile.RunSpec) (algorithms.Limiter, error) {
	p := r.Profile
	pol := p.PolicyFor(spec.Scenario)
	if decl := p.Declaration(spec.Algorithm); decl != nil {
		return decl.Bind(r.Env.Client, pol, spec.Scenario.Name)
	}
	newLimiter := r.NewLimiter
	if newLimiter == nil {
		newLimiter = algorithms.New
	}
	return newLimiter(spec.Algorithm, r.Env.Client, pol)
}

// unloader is a limiter that put something on the server that outlives a
// run (a Redis Functions library) and takes it away again.
type unloader interface {
	Unload(ctx context.Context) error
}

// unload removes what the run's limiter left on the server, even after
// Ctrl-C.
func (r *Runner) unload(lim algorithms.Limiter) {
	u, ok := lim.(unloader)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Profile.Timeout+5*time.Second)
	defer cancel()
	_ = u.Unload(ctx)
}

// serverCommand is the command INFO commandstats counts each of lim's
// decisions under.
func serverCommand(lim algorithms.Limiter) string {
	if c, ok := lim.(algorithms.ServerCommander); ok {
		return c.ServerCommand()
	}
	return "evalsha"
}

// limiterInfos describes the declared limiters for the result.
func limiterInfos(decls []*algorithms.Declaration) []result.LimiterInfo {
	var out []result.LimiterInfo
	for _, d := range decls {
		info := result.LimiterInfo{
			Name: d.Name, Kind: "script", Source: d.SourcePath, Function: d.Function,
			Semantics: string(d.Semantics), Description: d.Describe(), Reply: map[string]int{},
		}
		src := d.Script
		if d.Library != "" {
			info.Kind, src = "function", d.Library
		}
		sum := sha256.Sum256([]byte(src))
		info.SourceSHA256 = hex.EncodeToString(sum[:])
		for _, k := range d.Keys {
			info.Keys = append(info.Keys, k.String())
		}
		for _, a := range d.Args {
			info.Args = append(info.Args, a.String())
		}
		for part, pos := range map[string]int{"allowed": d.Reply.Allowed, "remaining": d.Reply.Remaining,
			"retry_after_ms": d.Reply.RetryAfterMs, "server_time_us": d.Reply.ServerTimeUs} {
			if pos > 0 {
				info.Reply[part] = pos
			}
		}
		if d.Semantics == algorithms.SemanticsBound {
			info.Bound = d.Promise.String()
		}
		out = append(out, info)
	}
	return out
}
