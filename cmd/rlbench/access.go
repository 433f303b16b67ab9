package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
)

// planLimiters binds each limiter of pl once, to no client: what it sends
// and runs can be read from it, and nothing is dialled.
func planLimiters(pl *plan.Plan) ([]algorithms.Limiter, error) {
	var out []algorithms.Limiter
	seen := map[string]bool{}
	for _, run := range pl.Runs {
		if seen[run.Algorithm] {
			continue
		}
		seen[run.Algorithm] = true
		var lim algorithms.Limiter
		var err error
		if d := run.Declaration; d != nil {
			lim, err = d.BindWith(nil, run.Policy, algorithms.Binding{Scenario: run.Scenario, Cost: run.Cost, Seed: pl.Seed})
		} else {
			lim, err = algorithms.New(run.Algorithm, nil, run.Policy)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", run.Algorithm, err)
		}
		out = append(out, lim)
	}
	return out, nil
}

// accessChecks are the commands beyond those checked on every server that
// the user must be allowed for pl to run at all: the limiters' calls
// (EVALSHA, FCALL, on a key under the run's prefix) and what the faults it
// schedules send.
func accessChecks(pl *plan.Plan) ([]string, error) {
	lims, err := planLimiters(pl)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(c string) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, lim := range lims {
		switch algorithms.CommandOf(lim) {
		case "evalsha":
			add(redisenv.CmdEvalSha)
		case "fcall":
			add(redisenv.CmdFCall)
		}
	}
	for _, run := range pl.Runs {
		for _, f := range run.Faults {
			for _, c := range f.Kind.Info().Needs {
				add(c)
			}
		}
	}
	return out, nil
}

// refusedByServer checks, before any traffic, what the server refused the
// user against what pl needs: a fault whose command is refused is refused
// at its line of the profile (profile.Errors, exit 2: the profile asks
// for what this server does not allow); a limiter whose call is refused
// can measure nothing there (a runtime failure, exit 3).
func refusedByServer(prof *profile.Profile, pl *plan.Plan, env *redisenv.Env) error {
	if env.Access == nil {
		return nil
	}
	var errs profile.Errors
	seen := map[string]bool{}
	for _, run := range pl.Runs {
		for _, f := range run.Faults {
			if seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			for _, c := range f.Kind.Info().Needs {
				if r, refused := env.Access.Refusal(c); refused {
					errs = append(errs, &profile.Error{File: prof.Path, Line: f.Line, Field: f.Path + ".kind",
						Msg: fmt.Sprintf("a %s fault sends %s, which redis at %s refused user %s: %s (%s)", f.Kind, c, env.Addr, env.Access.User, r.Reason, f.Kind.Info().Target)})
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	lims, err := planLimiters(pl)
	if err != nil {
		return err
	}
	for _, lim := range lims {
		var c string
		switch algorithms.CommandOf(lim) {
		case "evalsha":
			c = redisenv.CmdEvalSha
		case "fcall":
			c = redisenv.CmdFCall
		default:
			continue
		}
		if r, refused := env.Access.Refusal(c); refused {
			return &redisenv.RefusedError{Addr: env.Addr, Command: c + " on a key under " + redisenv.KeyPrefixRoot + "*", What: lim.Name() + " calls for every decision", Reason: r.Reason}
		}
	}
	return nil
}

// unknownTimeout bounds the one COMMAND INFO unknownToServer sends.
const unknownTimeout = 5 * time.Second

// unknownToServer checks, on a server rlbench did not start, that the
// server knows every command the limiters send and their Lua calls. One
// renamed or removed (rename-command TIME "") would fail every decision
// with "Unknown Redis command called from script", which names no
// command and reads as the limiter's own error; found here, it is a
// runtime failure before any traffic, naming the command. COMMAND INFO
// answers nothing for a name the server does not know; where COMMAND
// itself is refused, nothing is checked.
func unknownToServer(ctx context.Context, pl *plan.Plan, env *redisenv.Env) error {
	if env.Access == nil {
		return nil
	}
	lims, err := planLimiters(pl)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, unknownTimeout)
	defer cancel()
	for _, lim := range lims {
		cmds, _ := algorithms.ACLCommands(lim)
		args := []any{"COMMAND", "INFO"}
		for _, c := range cmds {
			if !strings.Contains(c, "|") {
				args = append(args, c)
			}
		}
		if len(args) == 2 {
			continue
		}
		known, err := env.Client.Do(ctx, args...).Slice()
		if err != nil || len(known) != len(args)-2 {
			return nil
		}
		for i, k := range known {
			if k == nil {
				return &redisenv.RefusedError{Addr: env.Addr, Command: strings.ToUpper(args[i+2].(string)), What: lim.Name() + " calls for every decision",
					Reason: "the server knows no such command (renamed or removed, as rename-command does)"}
			}
		}
	}
	return nil
}
