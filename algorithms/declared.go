package algorithms

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits on a declaration, so that what a profile controls stays small.
const (
	MaxDeclaredKeys = 16
	MaxDeclaredArgs = 64
)

// Declaration is a user's own limiter: a Lua script (called with EVALSHA)
// or a function of a Redis Functions library (FCALL), the templates its
// keys and arguments are built from, where its reply carries each answer,
// and what it promises. Bound to a client and a policy (Bind), it is one
// more Limiter, audited by what its semantics allow.
type Declaration struct {
	// Name is unique among a profile's limiters; it names the limiter in
	// keys, reports and thresholds.
	Name string
	// Script is the Lua source of a script. Alternatively Library is the
	// source of a Redis Functions library and Function the function in it
	// to call. Exactly one of Script and Library is given.
	Script   string
	Library  string
	Function string
	// SourcePath is the file the source came from, for messages.
	SourcePath string
	// Keys are the KEYS templates; each names the identity's state, so each
	// uses ${identity}. The caller's namespace goes in front of every one.
	Keys []Template
	// Args are the ARGV templates.
	Args []Template
	// Reply says where the reply carries each answer.
	Reply ReplyLayout
	// Semantics is the algorithm family the limiter implements, or
	// SemanticsBound with the Promise it makes.
	Semantics Semantics
	// Promise is the declared bound, for SemanticsBound only.
	Promise Promise
	// TimeFrom says whose clock the limiter decides by: Redis TIME in the
	// script, or the caller's, passed in its arguments. Empty means args
	// when an argument carries the time (${now_s}, ${now_s_float},
	// ${now_ms}, ${now_us}), else redis (see Clock).
	TimeFrom TimeSource
	// CallsTime says the source calls Redis TIME, as whoever read it
	// found (a profile's declaration does): with TimeFrom and the
	// arguments, it says whose clock the limiter decides by (TimeWhy).
	CallsTime bool
}

// Clock is whose clock the limiter decides by: TimeFrom, or when that is
// not given, the caller's when an argument carries the time, else Redis's.
func (d *Declaration) Clock() TimeSource {
	if d.TimeFrom != "" {
		return d.TimeFrom
	}
	if d.argsUse(NowVariables...) {
		return TimeFromArgs
	}
	return TimeFromRedis
}

// TakesCallerTime reports whether an argument carries the caller's clock
// (${now_s}, ${now_s_float}, ${now_ms}, ${now_us}): a fleet's clocks
// reach the limiter only then.
func (d *Declaration) TakesCallerTime() bool { return d.argsUse(NowVariables...) }

// TimeWhy says, from the declaration and the script, why the limiter
// decides by the clock Clock names: which argument carries the time,
// whether time_from says so, whether the script calls TIME.
func (d *Declaration) TimeWhy() string {
	var carried string
	for i, a := range d.Args {
		for _, v := range NowVariables {
			if a.Uses(v) && carried == "" {
				carried = fmt.Sprintf("ARGV[%d] carries ${%s}", i+1, v)
			}
		}
	}
	var why []string
	if d.TimeFrom != "" {
		why = append(why, "time_from: "+string(d.TimeFrom))
	}
	switch {
	case carried != "":
		why = append(why, carried)
	default:
		why = append(why, "no argument carries the time")
	}
	switch {
	case d.CallsTime:
		why = append(why, "the script calls TIME")
	case carried == "":
		why = append(why, "the script does not call TIME: its windows end where Redis expires its keys")
	default:
		why = append(why, "the script does not call TIME")
	}
	return strings.Join(why, "; ")
}

// UsesCost reports whether the limiter is told each request's cost: an
// argument uses ${cost}.
func (d *Declaration) UsesCost() bool { return d.argsUse(VarCost) }

// argsUse reports whether any argument template uses any of variables.
func (d *Declaration) argsUse(variables ...string) bool {
	for _, a := range d.Args {
		if a.UsesAny(variables) {
			return true
		}
	}
	return false
}

// Validate reports the first thing that keeps the declaration from running
// under policy p.
func (d *Declaration) Validate(p Policy) error {
	switch {
	case d.Name == "":
		return errors.New("name: missing")
	case Known(d.Name):
		return fmt.Errorf("name: %q is a built-in limiter; give your limiter a name of its own", d.Name)
	case (d.Script == "") == (d.Library == ""):
		return errors.New("give either script (a Lua script) or function and library (a Redis Function)")
	case d.Library != "" && d.Function == "":
		return errors.New("function: missing: name the function of the library to call")
	case d.Script != "" && d.Function != "":
		return errors.New("function: a script is called as a whole; give function only with library")
	case len(d.Keys) == 0:
		return errors.New(`keys: missing: give at least one key template, e.g. ["limiter:{${identity}}"]`)
	case len(d.Keys) > MaxDeclaredKeys:
		return fmt.Errorf("keys: %d templates; at most %d", len(d.Keys), MaxDeclaredKeys)
	case len(d.Args) > MaxDeclaredArgs:
		return fmt.Errorf("args: %d templates; at most %d", len(d.Args), MaxDeclaredArgs)
	}
	if d.Library != "" {
		if _, err := libraryName(d.Library); err != nil {
			return fmt.Errorf("library: %w", err)
		}
	}
	for i, k := range d.Keys {
		if !k.Uses(VarIdentity) {
			return fmt.Errorf("KEYS[%d]: %q does not use ${identity}: every key must belong to one identity, or the audit cannot tell whose decision it was", i+1, k)
		}
	}
	if p.Window%time.Second != 0 {
		for i, a := range d.Args {
			if a.Uses(VarWindowS) {
				return fmt.Errorf("ARGV[%d]: ${window_s} needs a window of whole seconds, and the policy's is %s", i+1, p.Window)
			}
		}
	}
	if err := d.Reply.Validate(); err != nil {
		return fmt.Errorf("reply.%w", err)
	}
	if d.Reply.When == AllowedCost && !d.UsesCost() {
		return errors.New("reply.allowed: when: cost reads the answer as the request's cost, but no argument passes ${cost} to the script")
	}
	if d.TimeFrom != "" {
		if _, err := ParseTimeSource(string(d.TimeFrom)); err != nil {
			return fmt.Errorf("time_from: %w", err)
		}
		if d.TimeFrom == TimeFromArgs && !d.argsUse(NowVariables...) {
			return errors.New("time_from: args, but no argument carries the time: pass ${now_s}, ${now_s_float}, ${now_ms} or ${now_us}")
		}
	}
	switch {
	case d.Semantics == "":
		return fmt.Errorf("semantics: missing (known: %s)", strings.Join(SemanticsNames(), ", "))
	case d.Semantics == SemanticsBound:
		if err := d.Promise.Validate(); err != nil {
			return fmt.Errorf("bound: %w", err)
		}
	case d.Promise != Promise{}:
		return fmt.Errorf("bound: only semantics: bound takes a declared bound; %s has its own", d.Semantics)
	}
	if _, err := ParseSemantics(string(d.Semantics)); err != nil {
		return fmt.Errorf("semantics: %w", err)
	}
	return nil
}

// Exact reports whether the audit can replay the limiter's decisions
// through a reference model: its semantics has one and its reply carries
// the server time each decision used. A limiter that decides by the
// caller's clock is judged by its bound at the times its arguments carry:
// a script's own rounding of that time (a window that ends at the very
// microsecond, where the family's model ends it at a millisecond) is not
// the model's, and would show as mismatches that are not errors.
func (d *Declaration) Exact() bool {
	return d.Semantics.HasModel() && d.Reply.Has(PartServerTime)
}

// clockUnitMicros is the unit of the finest caller's time its arguments
// carry (${now_us} and ${now_s_float}: a microsecond; ${now_ms}: a
// millisecond; ${now_s}: a second): the time the script decides by is the
// caller's clock rounded down to it.
func (d *Declaration) clockUnitMicros() int64 {
	switch {
	case d.argsUse(VarNowUs, VarNowSFloat):
		return 1
	case d.argsUse(VarNowMs):
		return 1000
	case d.argsUse(VarNowS):
		return 1_000_000
	}
	return 1
}

// Describe says in one line what the limiter is and how it is judged.
func (d *Declaration) Describe() string {
	var what string
	if d.Library != "" {
		what = fmt.Sprintf("your Redis Function %s (library %s)", d.Function, d.SourcePath)
	} else {
		what = "your Lua script " + d.SourcePath
	}
	switch {
	case d.Clock() == TimeFromArgs && d.CallsTime && d.TimeFrom == "":
		what += ", which takes its time from its arguments (the caller's clock; its script calls TIME too: declare time_from: redis if it decides by that)"
	case d.Clock() == TimeFromArgs:
		what += ", which takes its time from its arguments (the caller's clock)"
	default:
		what += ", which takes its time from Redis (TIME in the script)"
	}
	switch {
	case d.Semantics == SemanticsBound:
		return fmt.Sprintf("%s and promises at most %s to one identity; the audit checks only that promise", what, d.Promise)
	case d.Exact():
		return fmt.Sprintf("%s, declared a %s; its reply carries server time, so the audit replays every decision through the %s reference model", what, d.Semantics, d.Semantics)
	case d.Reply.Has(PartServerTime):
		return fmt.Sprintf("%s, declared a %s; it is judged by the %s bound at the server times its replies carry", what, d.Semantics, d.Semantics)
	case d.Clock() == TimeFromArgs && d.argsUse(NowVariables...):
		return fmt.Sprintf("%s, declared a %s; it is judged by the %s bound at the times its arguments carry", what, d.Semantics, d.Semantics)
	default:
		return fmt.Sprintf("%s, declared a %s; its reply carries no server time, so the audit judges the %s bound on client times, reporting only what holds however each decision is placed within its round trip", what, d.Semantics, d.Semantics)
	}
}

// Binding is what a declared limiter decides in besides its client and
// policy: the scenario, what each request costs, and the caller's clock.
type Binding struct {
	// Scenario stands for ${scenario}.
	Scenario string
	// Cost is what each request asks for, passed as ${cost}; the zero Cost
	// asks for one unit.
	Cost Cost
	// Seed makes the costs drawn repeatable: the n-th request of a seed
	// always draws the same cost.
	Seed int64
	// Now is the caller's clock the time templates read; nil is time.Now.
	Now func() time.Time
}

// Bind makes the declared limiter for policy p on rdb, with ${scenario}
// standing for scenario and every request asking for one unit: BindWith
// for a Binding of the scenario alone.
func (d *Declaration) Bind(rdb Redis, p Policy, scenario string) (Limiter, error) {
	return d.BindWith(rdb, p, Binding{Scenario: scenario})
}

// BindWith makes the declared limiter for policy p on rdb, in the run b
// describes. The limiter is Bounded always, Auditable when its decisions
// can be replayed exactly (Exact), an InstantWindowed for fixed_window
// semantics, and a ReplyWindower whose reply says where its window ends.
func (d *Declaration) BindWith(rdb Redis, p Policy, b Binding) (Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(p); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	if err := b.Cost.Validate(); err != nil {
		return nil, fmt.Errorf("%s: cost: %w", d.Name, err)
	}
	if !b.Cost.IsOne() && !d.UsesCost() {
		return nil, fmt.Errorf("%s: cost: requests ask for %s units, but no argument passes ${cost} to the script", d.Name, b.Cost)
	}
	fixed := map[string]string{
		VarScenario:  b.Scenario,
		VarLimit:     strconv.FormatInt(p.Limit, 10),
		VarWindowMs:  strconv.FormatInt(p.WindowMillis(), 10),
		VarWindowS:   strconv.FormatInt(int64(p.Window/time.Second), 10),
		VarWindowUs:  strconv.FormatInt(p.WindowMicros(), 10),
		VarBurst:     strconv.FormatInt(p.Capacity(), 10),
		VarRatePerS:  strconv.FormatFloat(p.RatePerSecond(), 'f', -1, 64),
		VarRatePerMs: strconv.FormatFloat(float64(p.Limit)/(float64(p.WindowMicros())/1000), 'f', -1, 64),
	}
	l := &Declared{decl: d, policy: p, rdb: rdb, cost: b.Cost, seed: uint64(b.Seed), now: b.Now, reader: d.Reply.reader()}
	if l.now == nil {
		l.now = time.Now
	}
	for _, k := range d.Keys {
		l.keys = append(l.keys, k.bind(fixed))
	}
	l.staticArgs = make([]any, len(d.Args))
	for i, a := range d.Args {
		bt := a.bind(fixed)
		l.args = append(l.args, bt)
		if bt.isStatic {
			l.staticArgs[i] = bt.static
		}
		l.usesRequestID = l.usesRequestID || bt.uses(VarRequestID)
		l.usesNow = l.usesNow || bt.uses(NowVariables...)
	}
	if d.Library != "" {
		fn, err := NewFunction(d.Function, d.Library)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		l.fn, l.callee = fn, fn
	} else {
		l.callee = NewScript(d.Name, d.Script)
	}
	if d.Exact() {
		return &declaredExact{l}, nil
	}
	return l, nil
}

// Declared is a declared limiter bound to a client and a policy.
type Declared struct {
	decl          *Declaration
	policy        Policy
	rdb           Redis
	keys, args    []boundTemplate
	staticArgs    []any
	usesRequestID bool
	usesNow       bool
	requestIDs    atomic.Uint64
	// cost is drawn for each request, the n-th draw from seed and n.
	cost  Cost
	seed  uint64
	draws atomic.Uint64
	now   func() time.Time
	// reader reads replies by the declared layout; malformed counts, per
	// part, the replies whose value it could not read.
	reader    *replyReader
	malformed [replyPartCount]malformedCount
	// callee is what a decision calls: the script, or the function fn
	// (nil for a script).
	callee callee
	fn     *Function

	matchOnce sync.Once
	matchers  []*regexp.Regexp
}

var (
	_ Bounded          = (*Declared)(nil)
	_ BoundIntervaler  = (*Declared)(nil)
	_ ReplyDescriber   = (*Declared)(nil)
	_ ServerCommander  = (*Declared)(nil)
	_ InstantWindowed  = (*Declared)(nil)
	_ ReplyWindower    = (*Declared)(nil)
	_ Clocked          = (*Declared)(nil)
	_ MalformedCounter = (*Declared)(nil)
	_ Auditable        = (*declaredExact)(nil)
)

// callee is what a declared limiter calls on the server: a *Script or a
// *Function, each loaded again (counted) when the server lost it.
type callee interface {
	lossy
	Run(ctx context.Context, rdb Redis, keys []string, args ...any) (any, error)
	Reload(ctx context.Context, rdb Redis) error
	Reloads() int64
	AppendCommand(dst []any, keys []string, args ...any) []any
}

var (
	_ callee = (*Script)(nil)
	_ callee = (*Function)(nil)
)

// declaredExact is a declared limiter whose decisions the audit replays
// through its family's reference model.
type declaredExact struct{ *Declared }

// Model implements Auditable: the family's model for the policy.
func (l *declaredExact) Model() Model { return l.decl.Semantics.family(l.policy).Model() }

// Declaration is what the limiter was declared as.
func (l *Declared) Declaration() *Declaration { return l.decl }

// Name implements Limiter: the declared name.
func (l *Declared) Name() string { return l.decl.Name }

// Policy implements Limiter.
func (l *Declared) Policy() Policy { return l.policy }

// Load implements Limiter: SCRIPT LOAD, or FUNCTION LOAD.
func (l *Declared) Load(ctx context.Context) error { return l.callee.Load(ctx, l.rdb) }

// Unload removes what Load put on the server and would otherwise outlive
// the run: a Functions library Load created (scripts live in the script
// cache only, and need nothing).
func (l *Declared) Unload(ctx context.Context) error {
	if l.fn != nil {
		return l.fn.Unload(ctx, l.rdb)
	}
	return nil
}

// NoScriptReloads implements Limiter: reloads after NOSCRIPT, or after the
// server lost the function.
func (l *Declared) NoScriptReloads() int64 { return l.callee.Reloads() }

// ServerCommand implements ServerCommander.
func (l *Declared) ServerCommand() string {
	if l.fn != nil {
		return "fcall"
	}
	return "evalsha"
}

// ReplyFields implements ReplyDescriber: what the reply was declared to
// carry.
func (l *Declared) ReplyFields() ReplyFields {
	f := l.decl.Reply.Fields()
	_, f.WindowEnd = l.windowPart()
	return f
}

// TimeFrom implements Clocked: the declaration's Clock.
func (l *Declared) TimeFrom() TimeSource { return l.decl.Clock() }

// Bound implements Bounded: the bound of the declared semantics, or the
// declared promise.
func (l *Declared) Bound(d time.Duration) int64 {
	return l.decl.Semantics.bound(l.policy, l.decl.Promise, d)
}

// BoundInterval implements BoundIntervaler: a declared promise's interval,
// otherwise the policy's window.
func (l *Declared) BoundInterval() time.Duration {
	if l.decl.Semantics == SemanticsBound {
		return l.decl.Promise.Per
	}
	return l.policy.Window
}

// splitIdentity splits an identity key into the caller's namespace (up to
// and including the last ':') and the identity after it.
func splitIdentity(key string) (namespace, identity string) {
	i := strings.LastIndexByte(key, ':')
	return key[:i+1], key[i+1:]
}

// Keys are the Redis keys the limiter uses for the identity key: each key
// template with the identity filled in, behind the key's namespace.
func (l *Declared) Keys(key string) []string {
	ns, id := splitIdentity(key)
	return l.expandKeys(ns, &requestVars{identity: id})
}

func (l *Declared) expandKeys(namespace string, v *requestVars) []string {
	keys := make([]string, len(l.keys))
	buf := make([]byte, 0, len(namespace)+32)
	for i, t := range l.keys {
		buf = t.appendTo(append(buf[:0], namespace...), v)
		keys[i] = string(buf)
	}
	return keys
}

// Allow implements Limiter. key is the identity key <namespace>:<identity>,
// as the built-in limiters take it: the declared key templates are filled
// in with the identity (what follows the last ':') and put behind the
// namespace, so `checkout:{${identity}}` under rlbench:r1:co:steady:42 is
// the key rlbench:r1:co:steady:checkout:{42}.
func (l *Declared) Allow(ctx context.Context, key string) (Decision, error) {
	return l.allowOn(ctx, key, CallerClockFrom(ctx))
}

// allowOn decides the identity key for a caller whose clock is c.
func (l *Declared) allowOn(ctx context.Context, key string, c CallerClock) (Decision, error) {
	keys, args, req := l.call(key, c, UnitsFrom(ctx))
	reply, err := l.callee.Run(ctx, l.rdb, keys, args...)
	return l.Decide(req, reply, err)
}

// call is the keys and arguments of the call deciding the identity key
// for a caller whose clock is c: the templates filled in for this
// request, its cost (units when its caller set them and the script is
// told its cost, else drawn) and the clock read once.
func (l *Declared) call(key string, c CallerClock, units int64) (keys []string, args []any, req Request) {
	ns, id := splitIdentity(key)
	v := requestVars{identity: id, cost: 1}
	if l.usesRequestID {
		v.requestID = l.requestIDs.Add(1)
	}
	var skew time.Duration
	if l.usesNow {
		var now time.Time
		now, skew = c.read(l.now)
		v.nowMicros = now.Add(skew).UnixMicro()
	}
	switch {
	case units > 0 && l.decl.UsesCost():
		v.cost = units
	case !l.cost.IsOne():
		v.cost = l.cost.Draw(splitmix64(l.seed ^ l.draws.Add(1)*0x9e3779b97f4a7c15))
	}
	keys = l.expandKeys(ns, &v)
	args = make([]any, len(l.args))
	copy(args, l.staticArgs)
	for i, a := range l.args {
		if !a.isStatic {
			args[i] = string(a.appendTo(nil, &v))
		}
	}
	// The time the script decides by: the clock rounded down to the unit
	// its arguments carry.
	unit := l.decl.clockUnitMicros()
	return keys, args, Request{Cost: v.cost, NowMicros: floorDiv(v.nowMicros, unit) * unit, SkewMicros: skew.Microseconds(), Limit: l.policy.Limit}
}

// OnClock implements CallerTimed: the limiter as an application instance
// whose clock is c calls it. A limiter none of whose arguments carries
// the time is the same from every instance.
func (l *Declared) OnClock(c CallerClock) Limiter {
	if !l.usesNow {
		return l
	}
	return &declaredOnClock{Declared: l, clock: c}
}

// declaredOnClock is a declared limiter called from one application
// instance: its requests read that instance's clock.
type declaredOnClock struct {
	*Declared
	clock CallerClock
}

var (
	_ CallerTimed = (*Declared)(nil)
	_ Pipelined   = (*declaredOnClock)(nil)
)

// Allow implements Limiter on the instance's clock.
func (v *declaredOnClock) Allow(ctx context.Context, key string) (Decision, error) {
	return v.allowOn(ctx, key, v.clock)
}

// AppendCommand implements Pipelined on the instance's clock.
func (v *declaredOnClock) AppendCommand(dst []any, key *string, units int64) ([]any, Request) {
	return v.appendCommandOn(dst, *key, v.clock, units)
}

// WindowsEndAtInstants implements InstantWindowed: a fixed window's
// windows end at instants, which a boundary run finds from its replies
// when they say, else from its decisions. Its key's TTL is not asked: a
// script may keep its key longer than its window.
func (l *Declared) WindowsEndAtInstants() bool { return l.decl.Semantics == SemanticsFixedWindow }

// IdentityOf reports which identity a key under namespace belongs to,
// reading it back through the key templates.
func (l *Declared) IdentityOf(namespace, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, namespace)
	if !ok {
		return "", false
	}
	l.matchOnce.Do(func() {
		for _, t := range l.keys {
			l.matchers = append(l.matchers, t.matcher())
		}
	})
	for i, m := range l.matchers {
		sub := m.FindStringSubmatch(rest)
		if sub == nil {
			continue
		}
		if string(l.keys[i].appendTo(nil, &requestVars{identity: sub[1]})) == rest {
			return sub[1], true
		}
	}
	return "", false
}
