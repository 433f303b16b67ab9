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
	reply, err := s.script.Run(ctx, s.rdb, []string{key}, s.args...)
	return s.Decide(Request{}, reply, err)
}

// Info describes an algorithm for people choosing one.
type Info struct {
	// Name is the registry name used in profiles.
	Name string
	// State is, in a few words, what one identity keeps in Redis; every
	// key has a TTL.
	State string
	// Semantics says in one line how the algorithm reads the policy.
	Semantics string
	// Params names the policy fields the algorithm uses.
	Params string
	// Bound is, in a few words, the most the algorithm admits to one
	// identity within one window: the promise the audit holds it to.
	// BoundWhy says in a sentence what traffic reaches it.
	Bound, BoundWhy string
	// Approximation is empty when the algorithm decides exactly as its
	// semantics say; otherwise it says what it approximates, and how.
	Approximation string
	// Default says whether a profile without an algorithms list runs it.
	Default bool
	// NegativeControl marks a limiter that is wrong on purpose, for the
	// audit to catch; it is not one of the limiters worth comparing.
	NegativeControl bool
	// CallerTime marks a limiter that takes its time from its caller (a
	// Lua argument) instead of Redis TIME: a reference for a fleet whose
	// clocks disagree, which on one clock decides as its family does.
	CallerTime bool
}

type entry struct {
	info Info
	make func(rdb Redis, p Policy) Limiter
	// check, when set, reports why the algorithm cannot enforce a policy
	// that is otherwise valid.
	check func(p Policy) error
}

// registry lists the limiters in the order reports show them.
var registry = []entry{
	{info: Info{
		Name:      FixedWindowName,
		State:     "string counter",
		Semantics: "counts requests in a window that opens at the identity's first hit; a burst across a window boundary may admit 2x limit",
		Params:    "limit, window",
		Bound:     "2 x limit",
		BoundWhy:  "a burst at the end of one window and another at the start of the next",
		Default:   true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewFixedWindow(rdb, p) }},
	{info: Info{
		Name:      SlidingLogName,
		State:     "sorted set, a member per admitted request",
		Semantics: "exact rolling window: never more than limit admitted in any window-long interval",
		Params:    "limit, window",
		Bound:     "limit",
		BoundWhy:  "a request is admitted only while fewer than limit admissions lie in the last window",
		Default:   true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewSlidingLog(rdb, p) }},
	{info: Info{
		Name:      TokenBucketName,
		State:     "hash {tokens, ts}",
		Semantics: "bucket of burst tokens refilled at limit/window; an idle identity may send a whole burst at once",
		Params:    "limit, window, burst",
		Bound:     "burst + limit",
		BoundWhy:  "a full bucket at once, then a window's refill",
		Default:   true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewTokenBucket(rdb, p) }},
	{info: Info{
		Name:      LeakyBucketName,
		State:     "hash {level, ts}",
		Semantics: "policing leaky bucket of size burst draining at limit/window; rejects what would overflow, delays nothing",
		Params:    "limit, window, burst",
		Bound:     "burst + limit",
		BoundWhy:  "an empty bucket filled at once, then a window's drain",
		Default:   true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewLeakyBucket(rdb, p) }},
	{info: Info{
		Name:      FixedWindowNXName,
		State:     "string counter",
		Semantics: "the fixed window without Lua: INCR, EXPIRE ... NX (PEXPIRE for a window of milliseconds) and PTTL in one MULTI/EXEC; the window ends when Redis expires the key, and the reply carries no server time, so the audit judges the bound on the client's clock",
		Params:    "limit, window",
		Bound:     "2 x limit",
		BoundWhy:  "as the fixed window: a burst at the end of one window and another at the start of the next",
	}, make: func(rdb Redis, p Policy) Limiter { return NewFixedWindowNX(rdb, p) }},
	{info: Info{
		Name:      FixedWindowNXPipelinedName,
		State:     "string counter (may lose its TTL)",
		Semantics: "the same commands pipelined without MULTI, as many services send them: other clients' commands may run between INCR and EXPIRE ... NX, and a client that dies in between leaves its key without a TTL until the identity's next request",
		Params:    "limit, window",
		Bound:     "2 x limit",
		BoundWhy:  "as the fixed window: a key lives at least a window from the first EXPIRE NX that finds it without a TTL, and admits at most limit",
	}, make: func(rdb Redis, p Policy) Limiter { return NewFixedWindowNXPipelined(rdb, p) }},
	{info: Info{
		Name:          SlidingBucketsName,
		State:         "hash, a counter per active bucket (at most window/bucket)",
		Semantics:     "a rolling window counted in clock-aligned buckets of the policy's bucket width: admits while the last window/bucket buckets hold fewer than limit",
		Params:        "limit, window, bucket",
		Bound:         "2 x limit",
		BoundWhy:      "limit at the end of one bucket and limit at the start of the bucket a window later, which no longer counts the first: both within a window less a bucket; any interval up to a window less a bucket plus 1us holds at most limit",
		Approximation: "the rolling window at bucket granularity: a bucket's admissions leave the window together, up to a bucket early",
	}, make: func(rdb Redis, p Policy) Limiter { return NewSlidingBuckets(rdb, p) }},
	{info: Info{
		Name:      GCRAName,
		State:     "string, the theoretical arrival time",
		Semantics: "generic cell rate algorithm: requests spaced window/limit apart, burst at once after idle; it decides exactly as the token bucket whose capacity is its burst",
		Params:    "limit, window, burst",
		Bound:     "burst + limit",
		BoundWhy:  "burst + floor(D x limit / window) in any closed interval of length D: burst at once after idle, then one every window/limit",
	}, make: func(rdb Redis, p Policy) Limiter { return NewGCRA(rdb, p) }},
	{info: Info{
		Name:          SlidingCounterName,
		State:         "hash {w, cur, prev}: two window counts",
		Semantics:     "sliding-window counter: the previous clock-aligned window's count, weighted by the share of it the rolling window still covers, plus the current window's; admits while that estimate is below limit",
		Params:        "limit, window",
		Bound:         "2 x limit",
		BoundWhy:      "limit in the last microsecond of a window after a quiet one, then through the next window each request as soon as the shrinking weight admits it (2 x limit - floor(2 x limit / window_us), which is 2 x limit unless a window has under 2us per request)",
		Approximation: "the rolling window, assuming the previous window's admissions were spread evenly over it",
	}, make: func(rdb Redis, p Policy) Limiter { return NewSlidingCounter(rdb, p) }, check: checkCounterPolicy},
	{info: Info{
		Name:       FixedWindowClientTimeName,
		State:      "hash {w, n}: the window and its count",
		Semantics:  "the fixed window as limiters that take the time from their caller write it: the window is the caller's clock divided by the window's length, kept in one key with its count; a request of another window starts it anew, so callers whose clocks disagree across a boundary start the window anew each time one follows the other",
		Params:     "limit, window",
		Bound:      "2 x limit",
		BoundWhy:   "on one clock: a burst at the end of one window and another at the start of the next",
		CallerTime: true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewFixedWindowClientTime(rdb, p) }},
	{info: Info{
		Name:       SlidingLogClientTimeName,
		State:      "sorted set, a member per admitted request",
		Semantics:  "the sliding log stamped with the caller's clock: exact on one clock; a caller whose clock is ahead removes stamps that one behind made within the window",
		Params:     "limit, window",
		Bound:      "limit",
		BoundWhy:   "on one clock: a request is admitted only while fewer than limit admissions lie in the last window",
		CallerTime: true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewSlidingLogClientTime(rdb, p) }},
	{info: Info{
		Name:       TokenBucketClientTimeName,
		State:      "hash {tokens, ts}",
		Semantics:  "the token bucket refilled by the caller's clock: exact on one clock; a caller whose clock is behind sets the bucket's time back, and the next caller ahead refills that difference again",
		Params:     "limit, window, burst",
		Bound:      "burst + limit",
		BoundWhy:   "on one clock: a full bucket at once, then a window's refill",
		CallerTime: true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewTokenBucketClientTime(rdb, p) }},
	{info: Info{
		Name:            NaiveCounterName,
		State:           "string counter",
		Semantics:       "wrong on purpose: GET, decide in Go, then INCR; concurrent requests pass the limit (a negative control for the audit)",
		Params:          "limit, window",
		Bound:           "2 x limit",
		BoundWhy:        "the fixed window's promise, which it means to keep and breaks under concurrency",
		Approximation:   "the fixed window, broken by a race between read and write",
		NegativeControl: true,
	}, make: func(rdb Redis, p Policy) Limiter { return NewNaiveCounter(rdb, p) }},
}

// Describe says in a few sentences what the algorithm does and promises,
// for a report's paragraph on it.
func (i Info) Describe() string {
	s := i.Semantics + ". At most " + i.Bound + " admitted to one identity within one window: " + i.BoundWhy + "."
	if i.Approximation != "" {
		s += " It approximates " + i.Approximation + "."
	}
	if i.CallerTime {
		s += " It takes the time from its caller (a Lua argument), not Redis TIME: a reference for application servers whose clocks disagree."
	}
	return s
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

// Lookup describes the registered algorithm name; ok is false for any
// other name.
func Lookup(name string) (info Info, ok bool) {
	for _, e := range registry {
		if e.info.Name == name {
			return e.info, true
		}
	}
	return Info{}, false
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

// Comparable names every built-in limiter worth comparing on one clock:
// all but the negative controls and the client-time references (which
// decide as their families do until callers' clocks disagree), in report
// order.
func Comparable() []string {
	var names []string
	for _, e := range registry {
		if !e.info.NegativeControl && !e.info.CallerTime {
			names = append(names, e.info.Name)
		}
	}
	return names
}

// CheckPolicy reports why the named algorithm cannot enforce policy p, or
// nil when it can (an unknown name is New's to report).
func CheckPolicy(name string, p Policy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	for _, e := range registry {
		if e.info.Name == name && e.check != nil {
			return e.check(p)
		}
	}
	return nil
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
		if e.info.Name != name {
			continue
		}
		if e.check != nil {
			if err := e.check(p); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		return e.make(rdb, p), nil
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
