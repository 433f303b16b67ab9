package algorithms_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// familyArgs are the ARGV templates each built-in script reads.
var familyArgs = map[string][]string{
	algorithms.FixedWindowName: {"${limit}", "${window_ms}"},
	algorithms.SlidingLogName:  {"${limit}", "${window_us}"},
	algorithms.TokenBucketName: {"${limit}", "${window_us}", "${burst}"},
	algorithms.LeakyBucketName: {"${limit}", "${window_us}", "${burst}"},
	algorithms.GCRAName:        {"${limit}", "${window_us}", "${burst}"},
}

// builtinSource is the Lua text of a built-in limiter.
func builtinSource(t *testing.T, name string) string {
	t.Helper()
	l, err := algorithms.New(name, nil, algorithms.Policy{Limit: 1, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return l.(interface{ Script() *algorithms.Script }).Script().Source()
}

// asFunction turns a script into a Redis Functions library of one
// function, fn: the body reads KEYS and ARGV, which become its arguments.
func asFunction(lib, fn, script string) string {
	return fmt.Sprintf("#!lua name=%s\nlocal function allow(KEYS, ARGV)\n%s\nend\nredis.register_function('%s', allow)\n", lib, script, fn)
}

func templates(t *testing.T, allowed []string, ss ...string) []algorithms.Template {
	t.Helper()
	var out []algorithms.Template
	for _, s := range ss {
		tpl, err := algorithms.ParseTemplate(s, allowed)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tpl)
	}
	return out
}

// redeclared declares a copy of built-in name as a user's limiter: its own
// Lua (a script, or wrapped as a Redis Function), the reply declared
// position by position, and its family as the semantics.
func redeclared(t *testing.T, name string, function bool) *algorithms.Declaration {
	t.Helper()
	d := &algorithms.Declaration{
		Name:      "my_" + name,
		Keys:      templates(t, algorithms.KeyVariables, "${identity}"),
		Args:      templates(t, algorithms.ArgVariables, familyArgs[name]...),
		Reply:     algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4},
		Semantics: algorithms.Semantics(name),
	}
	if function {
		d.Library, d.Function = asFunction("rlbench_test_"+name, "allow_"+name, builtinSource(t, name)), "allow_"+name
	} else {
		d.Script = builtinSource(t, name)
	}
	return d
}

func bind(t *testing.T, d *algorithms.Declaration, rdb algorithms.Redis, p algorithms.Policy) algorithms.Limiter {
	t.Helper()
	l, err := d.Bind(rdb, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRedeclaredBuiltinsAgreeWithTheirModels: a copy of each built-in,
// declared as a user's limiter with its family's semantics (gcra included),
// as a script and as a Redis Function, is replayed exactly: every decision,
// remaining and retry hint agrees with the family's model on random traces.
func TestRedeclaredBuiltinsAgreeWithTheirModels(t *testing.T) {
	rdb := redistest.Client(t)
	// 30ms / 7 is not a whole microsecond: gcra keeps its fraction.
	p := algorithms.Policy{Limit: 7, Window: 30 * time.Millisecond, Burst: 9}
	const requests = 120
	for _, name := range append(algorithms.Default(), algorithms.GCRAName) {
		for _, function := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/function=%v", name, function), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				l := auditable(t, bind(t, redeclared(t, name, function), rdb, p))
				if got := l.(algorithms.ServerCommander).ServerCommand(); (got == "fcall") != function {
					t.Errorf("server command %q", got)
				}
				key := fmt.Sprintf("rlbench:test:redeclared:%s:%v:7", name, function)
				replayRandomTrace(t, l, key, rand.New(rand.NewPCG(uint64(len(name)), 9)), requests)
				// The template ${identity} under the key's namespace is the
				// key itself, as for the built-in. The replay's keys live
				// for 30 ms, which a busy machine can outlast before a
				// check: an hour's window on a fresh identity keeps its key
				// for the check, whatever the machine does.
				long := p
				long.Window = time.Hour
				fresh := key + ":fresh"
				if _, err := bind(t, redeclared(t, name, function), rdb, long).Allow(ctx, fresh); err != nil {
					t.Fatal(err)
				}
				if n, err := rdb.Exists(ctx, fresh).Result(); err != nil || n != 1 {
					t.Errorf("key %s: exists %d, %v", fresh, n, err)
				}
			})
		}
	}
}

// TestDeclaredRepliesOnRedis: scripts that answer the way people write
// them: Lua booleans, a bare value, text, the units granted, a retry-after
// in float seconds with -1 for none; and one whose optional part does not
// match its declaration, which is counted while its decisions stand.
func TestDeclaredRepliesOnRedis(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 2, Window: time.Minute}
	const counter = "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"
	for i, tc := range []struct {
		why    string
		script string
		reply  algorithms.ReplyLayout
		want   string // the answers to four requests, or the error
		// malformed is the count of replies whose optional part did not
		// read.
		malformed int64
	}{
		{"a Lua boolean: true is 1, false is nil", counter + "return n <= tonumber(ARGV[1])",
			algorithms.ReplyLayout{Allowed: 1}, "1100", 0},
		{"a bare number", counter + "if n <= tonumber(ARGV[1]) then return 1 end return 0",
			algorithms.ReplyLayout{Allowed: 1}, "1100", 0},
		{"declared strings", counter + "if n <= tonumber(ARGV[1]) then return {'OK', n} end return {'SLOW DOWN', n}",
			algorithms.ReplyLayout{Allowed: 1, Admit: []string{"OK"}, Deny: []string{"SLOW DOWN"}}, "1100", 0},
		{"the units granted, or 0", counter + "if n <= tonumber(ARGV[1]) then return 1 end return 0",
			algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedCost}, "1100", 0},
		{"what is left, -1 when denied", counter + "if n <= tonumber(ARGV[1]) then return tonumber(ARGV[1]) - n end return -1",
			algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedNonNegative}, "1100", 0},
		{"a retry-after in float seconds, -1 for none", counter +
			"if n <= tonumber(ARGV[1]) then return {1, -1} end return {0, tostring(redis.call('PTTL', KEYS[1]) / 1000)}",
			algorithms.ReplyLayout{Allowed: 1, Values: map[algorithms.ReplyPart]algorithms.ReplyValue{
				algorithms.PartRetryAfter: {Position: 2, Unit: algorithms.Seconds, None: []string{"-1"}}}}, "1100", 0},
		{"whether it limited: 0 when admitted, 1 when not", counter + "if n <= tonumber(ARGV[1]) then return 0 end return 1",
			algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedZero}, "1100", 0},
		{"what is left or -1, read as remaining too", counter + "if n <= tonumber(ARGV[1]) then return {tonumber(ARGV[1]) - n} end return {-1}",
			algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedNonNegative, Remaining: 1}, "1100", 0},
		{"an argument sent empty reaches the script empty", counter + "if ARGV[4] ~= '' then return 0 end return n <= tonumber(ARGV[1])",
			algorithms.ReplyLayout{Allowed: 1}, "1100", 0},
		{"a reply the declaration does not match", counter + "return {n <= tonumber(ARGV[1]) and 1 or 0, 'plenty'}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2}, "1100", 4},
	} {
		d := &algorithms.Declaration{
			Name: "my_limiter", Script: tc.script, Reply: tc.reply, Semantics: algorithms.SemanticsFixedWindow,
			Keys: templates(t, algorithms.KeyVariables, "counter:{${identity}}"),
			Args: templates(t, algorithms.ArgVariables, "${limit}", "${window_ms}", "${cost}", ""),
		}
		l := bind(t, d, rdb, p)
		key := "rlbench:test:replies:" + strconv.Itoa(i) + ":42"
		var got strings.Builder
		for j := 0; j < 4; j++ {
			dec, err := l.Allow(ctx, key)
			if err != nil {
				got.WriteString(err.Error())
				break
			}
			got.WriteString(map[bool]string{true: "1", false: "0"}[dec.Allowed])
			if tc.reply.Has(algorithms.PartRetryAfter) && dec.Allowed == dec.Carries(algorithms.PartRetryAfter) {
				t.Errorf("%s: request %d allowed %v carries a retry-after %v (%s)", tc.why, j, dec.Allowed, dec.Carries(algorithms.PartRetryAfter), dec.RetryAfter)
			}
			if tc.reply.Has(algorithms.PartRetryAfter) && !dec.Allowed && (dec.RetryAfter <= 50*time.Second || dec.RetryAfter > time.Minute) {
				t.Errorf("%s: request %d: retry after %s, want the key's TTL of about a minute", tc.why, j, dec.RetryAfter)
			}
		}
		if !strings.HasPrefix(got.String(), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.why, got.String(), tc.want)
		}
		var malformed int64
		for _, m := range l.(algorithms.MalformedCounter).MalformedReplies() {
			malformed += m.Count
		}
		if malformed != tc.malformed {
			t.Errorf("%s: %d malformed replies counted, want %d: %+v", tc.why, malformed, tc.malformed, l.(algorithms.MalformedCounter).MalformedReplies())
		}
		// The key template went behind the namespace.
		k := strings.TrimSuffix(key, "42") + "counter:{42}"
		if ttl, err := rdb.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("%s: key %s: PTTL %s, %v", tc.why, k, ttl, err)
		}
	}
}

// TestDeclaredRequestVariables: ${request_id} differs on every request,
// the time variables carry one reading of the client's clock in every
// unit, and ${cost} the cost drawn for the request, which the decision
// keeps.
func TestDeclaredRequestVariables(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	d := &algorithms.Declaration{
		Name: "echo",
		Script: "redis.call('RPUSH', KEYS[1], table.concat(ARGV, ' '))\nredis.call('PEXPIRE', KEYS[1], 60000)\n" +
			"return {1, ARGV[7]}",
		Keys: templates(t, algorithms.KeyVariables, "log:${identity}"),
		Args: templates(t, algorithms.ArgVariables, "${request_id}", "${now_ms}", "${scenario}/${identity}",
			"${now_s}", "${now_s_float}", "${now_us}", "${cost}"),
		Reply:     algorithms.ReplyLayout{Allowed: 1, Remaining: 2},
		Semantics: algorithms.SemanticsBound, Promise: algorithms.Promise{Admitted: 10, Per: time.Second},
	}
	lim, err := d.BindWith(rdb, algorithms.Policy{Limit: 1, Window: time.Second},
		algorithms.Binding{Scenario: "test", Cost: algorithms.Cost{Values: []int64{2, 7}, Weights: []int64{1, 1}}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().UnixMicro()
	var decisions []algorithms.Decision
	for i := 0; i < 20; i++ {
		dec, err := lim.Allow(ctx, "rlbench:test:vars:5")
		if err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, dec)
	}
	after := time.Now().UnixMicro()
	lines, err := rdb.LRange(ctx, "rlbench:test:vars:log:5", 0, -1).Result()
	if err != nil || len(lines) != 20 {
		t.Fatalf("log %q, %v", lines, err)
	}
	costs := map[string]bool{}
	for i, line := range lines {
		f := strings.Fields(line)
		us, _ := strconv.ParseInt(f[5], 10, 64)
		dec := decisions[i]
		same := f[1] == strconv.FormatInt(us/1000, 10) && f[3] == strconv.FormatInt(us/1_000_000, 10) &&
			f[4] == fmt.Sprintf("%d.%06d", us/1_000_000, us%1_000_000)
		if f[0] != strconv.Itoa(i+1) || us < before || us > after || f[2] != "test/5" || !same ||
			dec.ClientNowMicros != us || strconv.FormatInt(dec.Units(), 10) != f[6] || dec.Remaining != f[6] {
			t.Errorf("request %d sent %q, decided %+v; want id %d, one time in [%d, %d] in every unit, test/5, and the cost it decided",
				i, line, dec, i+1, before, after)
		}
		costs[f[6]] = true
	}
	if !costs["2"] || !costs["7"] || len(costs) != 2 {
		t.Errorf("costs sent: %v, want 2 and 7", costs)
	}
}

// TestDeclaredUnitsFromTheCaller: a request whose caller sets its units
// (a trace's weights) asks for those, not for a draw of the binding's
// cost, whether it is called alone (the units in its context) or in a
// pipeline (the units beside its key); its decision keeps them. A
// declaration not told its cost ignores them, as a built-in does.
func TestDeclaredUnitsFromTheCaller(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	decl := func(args ...string) *algorithms.Declaration {
		return &algorithms.Declaration{
			Name: "units", Script: "return {1, ARGV[1]}",
			Keys:      templates(t, algorithms.KeyVariables, "u:${identity}"),
			Args:      templates(t, algorithms.ArgVariables, args...),
			Reply:     algorithms.ReplyLayout{Allowed: 1, Remaining: 2},
			Semantics: algorithms.SemanticsBound, Promise: algorithms.Promise{Admitted: 10, Per: time.Second},
		}
	}
	bind := func(d *algorithms.Declaration, cost algorithms.Cost) algorithms.Pipelined {
		lim, err := d.BindWith(rdb, algorithms.Policy{Limit: 1, Window: time.Second}, algorithms.Binding{Scenario: "s", Cost: cost, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return lim.(algorithms.Pipelined)
	}
	told, deaf := bind(decl("${cost}"), algorithms.FixedCost(2)), bind(decl("${limit}"), algorithms.Cost{})
	for _, tc := range []struct {
		why   string
		lim   algorithms.Pipelined
		units int64
		want  int64 // the units sent and decided
	}{
		{"the caller's units replace the binding's cost", told, 9, 9},
		{"no units from the caller: the binding's cost", told, 0, 2},
		{"a script not told its cost decides one unit, whatever the caller says", deaf, 9, 1},
	} {
		d, err := tc.lim.Allow(algorithms.WithUnits(ctx, tc.units), "rlbench:test:units:1")
		if err != nil || d.Units() != tc.want {
			t.Errorf("%s: alone: decided %+v (%v), want %d units", tc.why, d, err, tc.want)
		}
		key := "rlbench:test:units:1"
		cmd, req := tc.lim.AppendCommand(nil, &key, tc.units)
		reply, err := rdb.Do(ctx, cmd...).Result()
		d, err = tc.lim.Decide(req, reply, err)
		if err != nil || d.Units() != tc.want || (tc.lim == told && cmd[len(cmd)-1] != strconv.FormatInt(tc.want, 10)) {
			t.Errorf("%s: pipelined: sent %v, decided %+v (%v), want %d units", tc.why, cmd, d, err, tc.want)
		}
	}
	if algorithms.UnitsFrom(algorithms.WithUnits(ctx, 0)) != 0 || algorithms.UnitsFrom(algorithms.WithUnits(ctx, 4)) != 4 {
		t.Errorf("units in a context do not read back")
	}
}

// TestDeclaredFunctionLifecycle: FUNCTION LOAD before the run, a reload
// (counted) after FUNCTION FLUSH, and FUNCTION DELETE at the end only of a
// library the limiter loaded itself. A library of the same name with other
// code is never replaced.
func TestDeclaredFunctionLifecycle(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 3, Window: time.Second}
	d := redeclared(t, algorithms.TokenBucketName, true)
	lib := "rlbench_test_" + algorithms.TokenBucketName
	l := bind(t, d, rdb, p)
	if _, err := l.Allow(ctx, "rlbench:test:fn:1"); err != nil {
		t.Fatal(err)
	}
	if err := rdb.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Allow(ctx, "rlbench:test:fn:1"); err != nil {
		t.Fatalf("after FUNCTION FLUSH: %v", err)
	}
	if got := l.NoScriptReloads(); got != 1 {
		t.Errorf("reloads %d, want 1", got)
	}
	unload := func(l algorithms.Limiter) {
		t.Helper()
		if err := l.(interface{ Unload(context.Context) error }).Unload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	libraries := func() int {
		t.Helper()
		libs, err := rdb.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: lib}).Result()
		if err != nil {
			t.Fatal(err)
		}
		return len(libs)
	}
	unload(l)
	if n := libraries(); n != 0 {
		t.Errorf("the library the limiter loaded is still there after Unload")
	}

	// Someone else's library of the same name and code: used, and left.
	if err := rdb.FunctionLoad(ctx, d.Library).Err(); err != nil {
		t.Fatal(err)
	}
	unload(bind(t, d, rdb, p))
	if n := libraries(); n != 1 {
		t.Errorf("a library the limiter did not load was deleted")
	}
	// ... and with other code: refused, not replaced.
	other := *d
	other.Library = strings.Replace(d.Library, "local function", "-- changed\nlocal function", 1)
	lo, err := other.Bind(rdb, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := lo.Load(ctx); err == nil || !strings.Contains(err.Error(), "does not replace a library it did not load") {
		t.Errorf("loading over another library: %v", err)
	}
	// A function the library does not register.
	missing := *d
	missing.Function = "nope"
	lm, _ := missing.Bind(rdb, p, "test")
	if err := lm.Load(ctx); err == nil || !strings.Contains(err.Error(), `has no function "nope" (it registers: allow_token_bucket)`) {
		t.Errorf("a missing function: %v", err)
	}
}

// TestProbeWindowEnd: the fixed window without Lua says where its window
// ends through its key's PTTL, where the model says, give or take the
// millisecond between TIME and PTTL. A user's fixed window is not asked
// (its script may keep its key longer than its window): its windows end at
// instants a boundary run finds from its decisions; a bucket's do not.
func TestProbeWindowEnd(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 3, Window: 2 * time.Second}
	nx := algorithms.NewFixedWindowNX(rdb, p)
	key := "rlbench:test:probe:1"
	before := rdb.Time(ctx).Val().UnixMicro()
	if _, err := nx.Allow(ctx, key); err != nil {
		t.Fatal(err)
	}
	after := rdb.Time(ctx).Val().UnixMicro()
	end, ok, err := nx.ProbeWindowEnd(ctx, key)
	if err != nil || !ok {
		t.Fatalf("ProbeWindowEnd: %d, %v, %v", end, ok, err)
	}
	// The window opened between the two TIMEs, and its key lives through
	// the millisecond it expires in.
	if lo, hi := before+p.WindowMicros()-1000, after+p.WindowMicros()+1000; end < lo || end > hi {
		t.Errorf("window end %d, want within [%d, %d]", end, lo, hi)
	}
	l := bind(t, redeclared(t, algorithms.FixedWindowName, false), rdb, p)
	if _, ok := l.(algorithms.WindowProber); ok {
		t.Error("a declared fixed window is asked for its key's TTL")
	}
	if iw, ok := l.(algorithms.InstantWindowed); !ok || !iw.WindowsEndAtInstants() {
		t.Error("a declared fixed window's windows do not end at instants")
	}
	b := bind(t, redeclared(t, algorithms.TokenBucketName, false), rdb, p)
	if b.(algorithms.InstantWindowed).WindowsEndAtInstants() {
		t.Error("a token bucket's windows end at instants")
	}
}

// TestDeclaredErrorsPassThrough: an error the script raises is the call's
// error, not a reply to parse.
func TestDeclaredErrorsPassThrough(t *testing.T) {
	rdb := redistest.Client(t)
	d := &algorithms.Declaration{Name: "broken", Script: "return redis.error_reply('limiter offline')",
		Keys: templates(t, algorithms.KeyVariables, "${identity}"), Reply: algorithms.ReplyLayout{Allowed: 1},
		Semantics: algorithms.SemanticsFixedWindow}
	l := bind(t, d, rdb, algorithms.Policy{Limit: 1, Window: time.Second})
	_, err := l.Allow(context.Background(), "rlbench:test:err:1")
	var re *algorithms.ReplyError
	if err == nil || !strings.Contains(err.Error(), "limiter offline") || errors.As(err, &re) {
		t.Errorf("error %v", err)
	}
}
