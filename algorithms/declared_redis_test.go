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
				// key itself, as for the built-in.
				if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 1 {
					t.Errorf("key %s: exists %d, %v", key, n, err)
				}
			})
		}
	}
}

// TestDeclaredRepliesOnRedis: scripts that answer the way people write
// them: Lua booleans, a bare value, text; and one whose reply does not
// match its declaration, which fails that call naming the position.
func TestDeclaredRepliesOnRedis(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 2, Window: time.Minute}
	const counter = "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"
	for _, tc := range []struct {
		why    string
		script string
		reply  algorithms.ReplyLayout
		want   string // the answers to four requests, or the error
	}{
		{"a Lua boolean: true is 1, false is nil", counter + "return n <= tonumber(ARGV[1])",
			algorithms.ReplyLayout{Allowed: 1}, "1100"},
		{"a bare number", counter + "if n <= tonumber(ARGV[1]) then return 1 end return 0",
			algorithms.ReplyLayout{Allowed: 1}, "1100"},
		{"declared strings", counter + "if n <= tonumber(ARGV[1]) then return {'OK', n} end return {'SLOW DOWN', n}",
			algorithms.ReplyLayout{Allowed: 1, Admit: []string{"OK"}, Deny: []string{"SLOW DOWN"}}, "1100"},
		{"a reply the declaration does not match", counter + "return {n <= tonumber(ARGV[1]), 'plenty'}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2}, `my_limiter: reply position 2 (remaining): got the string "plenty", want a number`},
	} {
		d := &algorithms.Declaration{
			Name: "my_limiter", Script: tc.script, Reply: tc.reply, Semantics: algorithms.SemanticsFixedWindow,
			Keys: templates(t, algorithms.KeyVariables, "counter:{${identity}}"),
			Args: templates(t, algorithms.ArgVariables, "${limit}", "${window_ms}"),
		}
		l := bind(t, d, rdb, p)
		key := "rlbench:test:replies:" + strconv.Itoa(len(tc.why)) + ":42"
		var got strings.Builder
		for i := 0; i < 4; i++ {
			dec, err := l.Allow(ctx, key)
			if err != nil {
				got.WriteString(err.Error())
				break
			}
			got.WriteString(map[bool]string{true: "1", false: "0"}[dec.Allowed])
		}
		if !strings.HasPrefix(got.String(), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.why, got.String(), tc.want)
		}
		// The key template went behind the namespace.
		k := strings.TrimSuffix(key, "42") + "counter:{42}"
		if ttl, err := rdb.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("%s: key %s: PTTL %s, %v", tc.why, k, ttl, err)
		}
	}
}

// TestDeclaredRequestVariables: ${request_id} differs on every request and
// ${now_ms} is the client's clock.
func TestDeclaredRequestVariables(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	d := &algorithms.Declaration{
		Name:      "echo",
		Script:    "redis.call('RPUSH', KEYS[1], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])\nredis.call('PEXPIRE', KEYS[1], 60000)\nreturn 1",
		Keys:      templates(t, algorithms.KeyVariables, "log:${identity}"),
		Args:      templates(t, algorithms.ArgVariables, "${request_id}", "${now_ms}", "${scenario}/${identity}"),
		Reply:     algorithms.ReplyLayout{Allowed: 1},
		Semantics: algorithms.SemanticsBound, Promise: algorithms.Promise{Admitted: 10, Per: time.Second},
	}
	l := bind(t, d, rdb, algorithms.Policy{Limit: 1, Window: time.Second})
	before := time.Now().UnixMilli()
	for i := 0; i < 3; i++ {
		if _, err := l.Allow(ctx, "rlbench:test:vars:5"); err != nil {
			t.Fatal(err)
		}
	}
	after := time.Now().UnixMilli()
	lines, err := rdb.LRange(ctx, "rlbench:test:vars:log:5", 0, -1).Result()
	if err != nil || len(lines) != 3 {
		t.Fatalf("log %q, %v", lines, err)
	}
	for i, line := range lines {
		f := strings.Fields(line)
		now, _ := strconv.ParseInt(f[1], 10, 64)
		if f[0] != strconv.Itoa(i+1) || now < before || now > after || f[2] != "test/5" {
			t.Errorf("request %d sent %q, want id %d, a time in [%d, %d] and test/5", i, line, i+1, before, after)
		}
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

// TestProbeWindowEnd: a user's fixed window says where its window ends
// through its key's PTTL; for the built-in's own script that is where the
// model says, give or take the millisecond between TIME and PTTL.
func TestProbeWindowEnd(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 3, Window: 2 * time.Second}
	l := bind(t, redeclared(t, algorithms.FixedWindowName, false), rdb, p)
	key := "rlbench:test:probe:1"
	d, err := l.Allow(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	end, ok, err := l.(algorithms.WindowProber).ProbeWindowEnd(ctx, key)
	if err != nil || !ok {
		t.Fatalf("ProbeWindowEnd: %d, %v, %v", end, ok, err)
	}
	want := algorithms.NewFixedWindow(nil, p).WindowEnd(d.ServerNowMicros)
	if diff := end - want; diff < -1000 || diff > 1000 {
		t.Errorf("window end %d, the model's %d (%dus apart)", end, want, diff)
	}
	// Only a fixed window's window ends at an instant.
	b := bind(t, redeclared(t, algorithms.TokenBucketName, false), rdb, p)
	if _, ok, err := b.(algorithms.WindowProber).ProbeWindowEnd(ctx, key); ok || err != nil {
		t.Errorf("a token bucket's window end: ok %v, %v", ok, err)
	}
	// A fixed window whose key never expires cannot say.
	leak := &algorithms.Declaration{Name: "leaky", Script: "redis.call('INCR', KEYS[1]) return 1",
		Keys: templates(t, algorithms.KeyVariables, "${identity}"), Reply: algorithms.ReplyLayout{Allowed: 1},
		Semantics: algorithms.SemanticsFixedWindow}
	ll := bind(t, leak, rdb, p)
	if _, err := ll.Allow(ctx, "rlbench:test:probe:2"); err != nil {
		t.Fatal(err)
	}
	var noTTL *algorithms.WindowKeyWithoutTTLError
	if _, _, err := ll.(algorithms.WindowProber).ProbeWindowEnd(ctx, "rlbench:test:probe:2"); !errors.As(err, &noTTL) || !strings.Contains(err.Error(), "has no TTL") {
		t.Errorf("a key without a TTL: %v", err)
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
