package algorithms

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Limiter decides, per key, whether one more request is admitted. Every
// implementation reads, decides and updates in one server-side step and
// reports the server time it used.
type Limiter interface {
	// Name is the algorithm's registry name, e.g. "fixed_window".
	Name() string
	// Policy is the policy the limiter enforces.
	Policy() Policy
	// Load prepares the server (SCRIPT LOAD) before the timed part of a run.
	Load(ctx context.Context) error
	// Allow decides one request for key.
	Allow(ctx context.Context, key string) (Decision, error)
	// NoScriptReloads counts the times the script had to be loaded again
	// because the server had forgotten it.
	NoScriptReloads() int64
}

// ServerCommander is implemented by limiters that run one Redis command per
// decision, and say which ("evalsha", "fcall"), so server figures read the
// right line of INFO commandstats.
type ServerCommander interface {
	ServerCommand() string
}

// scripted is the binding shared by the Lua limiters: one script, one key,
// and ARGV fixed by the policy (built once, so a call allocates no ARGV).
type scripted struct {
	name   string
	policy Policy
	rdb    Redis
	script *Script
	args   []any
}

func (s *scripted) Name() string                   { return s.name }
func (s *scripted) Policy() Policy                 { return s.policy }
func (s *scripted) Load(ctx context.Context) error { return s.script.Load(ctx, s.rdb) }
func (s *scripted) NoScriptReloads() int64         { return s.script.Reloads() }

// Script is the Lua the limiter runs.
func (s *scripted) Script() *Script { return s.script }

// ReplyFields implements ReplyDescriber: the uniform reply carries every
// part.
func (s *scripted) ReplyFields() ReplyFields {
	return ReplyFields{Remaining: true, RetryAfter: true, ServerTime: true}
}

// ServerCommand implements ServerCommander.
func (s *scripted) ServerCommand() string { return "evalsha" }

func (s *scripted) Allow(ctx context.Context, key string) (Decision, error) {
	return s.Decide(s.script.Run(ctx, s.rdb, []string{key}, s.args...))
}

// Info describes an algorithm for people choosing one.
type Info struct {
	// Name is the registry name used in profiles.
	Name string
	// State is what one identity costs in Redis.
	State string
	// Semantics says in one line how the algorithm reads the policy.
	Semantics string
	// Params names the policy fields the algorithm uses.
	Params string
	// Default says whether a profile without an algorithms list runs it.
	Default bool
}

type entry struct {
	info Info
	make func(rdb Redis, p Policy) Limiter
}

// registry lists the limiters in the order reports show them.
var registry = []entry{
	{Info{
		Name:      FixedWindowName,
		State:     "string counter with a TTL",
		Semantics: "counts requests in a window that opens at the identity's first hit; a burst across a window boundary may admit 2x limit",
		Params:    "limit, window",
		Default:   true,
	}, func(rdb Redis, p Policy) Limiter { return NewFixedWindow(rdb, p) }},
	{Info{
		Name:      SlidingLogName,
		State:     "sorted set of admitted timestamps with a TTL",
		Semantics: "exact rolling window: never more than limit admitted in any window-long interval",
		Params:    "limit, window",
		Default:   true,
	}, func(rdb Redis, p Policy) Limiter { return NewSlidingLog(rdb, p) }},
	{Info{
		Name:      TokenBucketName,
		State:     "hash {tokens, ts} with a TTL",
		Semantics: "bucket of burst tokens refilled at limit/window; an idle identity may send a whole burst at once",
		Params:    "limit, window, burst",
		Default:   true,
	}, func(rdb Redis, p Policy) Limiter { return NewTokenBucket(rdb, p) }},
	{Info{
		Name:      LeakyBucketName,
		State:     "hash {level, ts} with a TTL",
		Semantics: "policing leaky bucket of size burst draining at limit/window; rejects what would overflow, delays nothing",
		Params:    "limit, window, burst",
		Default:   true,
	}, func(rdb Redis, p Policy) Limiter { return NewLeakyBucket(rdb, p) }},
	{Info{
		Name:      NaiveCounterName,
		State:     "string counter with a TTL",
		Semantics: "wrong on purpose: GET, decide in Go, then INCR; concurrent requests pass the limit (a negative control for the audit)",
		Params:    "limit, window",
	}, func(rdb Redis, p Policy) Limiter { return NewNaiveCounter(rdb, p) }},
}

// List describes every known algorithm, in report order.
func List() []Info {
	out := make([]Info, len(registry))
	for i, e := range registry {
		out[i] = e.info
	}
	return out
}

// Default names the algorithms a profile runs when it lists none.
func Default() []string {
	var names []string
	for _, e := range registry {
		if e.info.Default {
			names = append(names, e.info.Name)
		}
	}
	return names
}

// Known reports whether name is a registered algorithm.
func Known(name string) bool {
	for _, e := range registry {
		if e.info.Name == name {
			return true
		}
	}
	return false
}

// Names lists every registered algorithm, for error messages.
func Names() []string {
	names := make([]string, len(registry))
	for i, e := range registry {
		names[i] = e.info.Name
	}
	return names
}

// New builds the named limiter for policy p on rdb.
func New(name string, rdb Redis, p Policy) (Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for _, e := range registry {
		if e.info.Name == name {
			return e.make(rdb, p), nil
		}
	}
	return nil, fmt.Errorf("unknown algorithm %q (known: %s)", name, strings.Join(Names(), ", "))
}

// newScripted binds the built-in script <name>.lua to rdb with ARGV built
// once from args.
func newScripted(name string, rdb Redis, p Policy, args ...int64) scripted {
	argv := make([]any, len(args))
	for i, a := range args {
		argv[i] = strconv.FormatInt(a, 10)
	}
	return scripted{name: name, policy: p, rdb: rdb, script: builtinScript(name), args: argv}
}
