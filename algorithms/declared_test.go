package algorithms

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseTemplate(t *testing.T) {
	for _, tc := range []struct {
		why, in string
		allowed []string
		err     string
	}{
		{"the issue's key", "checkout:{${identity}}", KeyVariables, ""},
		{"plain text, a lone dollar is text", "cost$5:${identity}", KeyVariables, ""},
		{"several variables in one argument", "${limit}/${window_ms}", ArgVariables, ""},
		{"empty", "", KeyVariables, "empty template"},
		{"never closed", "k:${identity", KeyVariables, "never closed"},
		{"unknown variable", "${user}", KeyVariables, "unknown variable ${user}"},
		{"a key may not depend on the request", "k:${request_id}", KeyVariables, "unknown variable ${request_id}"},
	} {
		_, err := ParseTemplate(tc.in, tc.allowed)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: ParseTemplate(%q) error %v, want %q", tc.why, tc.in, err, tc.err)
		}
	}
}

// TestTemplateExpansion binds the run's fixed values and fills in the
// request's, and reads identities back out of keys.
func TestTemplateExpansion(t *testing.T) {
	fixed := map[string]string{VarScenario: "steady", VarLimit: "100"}
	for _, tc := range []struct {
		why, template, want string
	}{
		{"identity in a hash tag", "checkout:{${identity}}", "checkout:{42}"},
		{"scenario and policy are fixed for the run", "${scenario}:${limit}:${identity}", "steady:100:42"},
		{"request values", "${request_id}@${now_ms}", "7@1764000000123"},
	} {
		b := MustParseTemplate(tc.template, ArgVariables).bind(fixed)
		got := string(b.appendTo(nil, &requestVars{identity: "42", requestID: 7, nowMs: 1764000000123}))
		if got != tc.want {
			t.Errorf("%s: %q expands to %q, want %q", tc.why, tc.template, got, tc.want)
		}
	}
	if b := MustParseTemplate("${limit}", ArgVariables).bind(fixed); !b.isStatic || b.static != "100" {
		t.Errorf("a template of fixed values is not precomputed: %+v", b)
	}
}

func TestIdentityOf(t *testing.T) {
	d := &Declaration{Name: "co", Script: "return 1", Semantics: SemanticsFixedWindow, Reply: ReplyLayout{Allowed: 1},
		Keys: []Template{
			MustParseTemplate("checkout:{${identity}}", KeyVariables),
			MustParseTemplate("${identity}:${scenario}:${identity}", KeyVariables),
		}}
	lim, err := d.Bind(nil, Policy{Limit: 1, Window: time.Second}, "edge")
	if err != nil {
		t.Fatal(err)
	}
	l := lim.(*Declared)
	const ns = "rlbench:r1:co:edge:"
	for _, tc := range []struct {
		why, key, want string
		ok             bool
	}{
		{"first template", ns + "checkout:{42}", "42", true},
		{"second template, the identity twice", ns + "7:edge:7", "7", true},
		{"the identity must be the same in both places", ns + "7:edge:8", "", false},
		{"another namespace", "rlbench:r1:co:other:checkout:{42}", "", false},
		{"a key no template makes", ns + "checkout:42", "", false},
	} {
		got, ok := l.IdentityOf(ns, tc.key)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: IdentityOf(%q) = %q, %v; want %q, %v", tc.why, tc.key, got, ok, tc.want, tc.ok)
		}
	}
	if got := l.Keys(ns + "42"); strings.Join(got, " ") != ns+"checkout:{42} "+ns+"42:edge:42" {
		t.Errorf("Keys = %q", got)
	}
}

func TestReplyLayoutParse(t *testing.T) {
	const now = int64(1_764_000_000_123_456)
	full := ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}
	text := ReplyLayout{Allowed: 2, Admit: []string{"OK"}, Deny: []string{"LIMITED", "BANNED"}}
	for _, tc := range []struct {
		why    string
		layout ReplyLayout
		reply  any
		want   Decision
		err    string
	}{
		{"the built-ins' reply", full, []any{int64(0), "0.5", int64(12), now},
			Decision{Remaining: "0.5", RetryAfter: 12 * time.Millisecond, ServerNowMicros: now}, ""},
		{"numbers as text", full, []any{"1", int64(3), "12.5", "1764000000123456"},
			Decision{Allowed: true, Remaining: "3", RetryAfter: 12500 * time.Microsecond, ServerNowMicros: now}, ""},
		{"Lua true is 1", ReplyLayout{Allowed: 1}, []any{int64(1)}, Decision{Allowed: true}, ""},
		{"Lua false is nil", ReplyLayout{Allowed: 1}, []any{nil}, Decision{}, ""},
		{"a single value is an array of one", ReplyLayout{Allowed: 1}, int64(1), Decision{Allowed: true}, ""},
		{"a single false", ReplyLayout{Allowed: 1}, nil, Decision{}, ""},
		{"declared strings, admitted", text, []any{"x", "OK"}, Decision{Allowed: true}, ""},
		{"declared strings, one of two denials", text, []any{"x", "BANNED"}, Decision{}, ""},
		{"extra elements are ignored", ReplyLayout{Allowed: 1}, []any{int64(0), "extra"}, Decision{}, ""},

		{"a string the declaration does not list", text, []any{"x", "MAYBE"}, Decision{},
			`reply position 2 (allowed): got the string "MAYBE", want one of ["OK"] (admit) or ["LIMITED", "BANNED"] (deny)`},
		{"text without declared strings", ReplyLayout{Allowed: 1}, []any{"OK"}, Decision{},
			`reply position 1 (allowed): got the string "OK", want 1/0 or true/false; declare the admitting and denying strings`},
		{"a count where a flag goes", ReplyLayout{Allowed: 1}, []any{int64(7)}, Decision{},
			"reply position 1 (allowed): got the integer 7, want 1/0 or true/false"},
		{"too short for the declaration", full, []any{int64(1), "3"}, Decision{},
			"reply: got an array of 2, want at least 4 elements"},
		{"a single value where positions 1-4 are read", full, int64(1), Decision{},
			"reply: got the integer 1, want an array of at least 4"},
		{"remaining not a number", full, []any{int64(1), "lots", int64(0), now}, Decision{},
			`reply position 2 (remaining): got the string "lots", want a number`},
		{"negative retry", full, []any{int64(0), "0", int64(-5), now}, Decision{},
			"reply position 3 (retry_after_ms): got the integer -5"},
		{"server time in milliseconds", full, []any{int64(1), "0", int64(0), now / 1000}, Decision{},
			"reply position 4 (server_time_us): got the integer 1764000000123, which looks like milliseconds"},
		{"server time in seconds", full, []any{int64(1), "0", int64(0), now / 1_000_000}, Decision{},
			"which looks like seconds"},
	} {
		got, err := tc.layout.Parse(tc.reply)
		if tc.err != "" {
			var re *ReplyError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &re) {
				t.Errorf("%s: error %v, want a ReplyError containing %q", tc.why, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.why, got, err, tc.want)
		}
	}
}

func TestDeclarationValidate(t *testing.T) {
	key := []Template{MustParseTemplate("rl:{${identity}}", KeyVariables)}
	ok := func() Declaration {
		return Declaration{Name: "mine", Script: "return 1", Keys: key, Reply: ReplyLayout{Allowed: 1}, Semantics: SemanticsFixedWindow}
	}
	second := Policy{Limit: 10, Window: time.Second}
	for _, tc := range []struct {
		why    string
		change func(d *Declaration)
		policy Policy
		err    string
	}{
		{"as it should be", func(*Declaration) {}, second, ""},
		{"a built-in's name", func(d *Declaration) { d.Name = TokenBucketName }, second, "is a built-in limiter"},
		{"neither script nor library", func(d *Declaration) { d.Script = "" }, second, "give either script"},
		{"both script and library", func(d *Declaration) { d.Library = "#!lua name=x\n" }, second, "give either script"},
		{"a library without the function to call", func(d *Declaration) { d.Script, d.Library = "", "#!lua name=x\n" }, second, "function: missing"},
		{"a library without its name line", func(d *Declaration) { d.Script, d.Library, d.Function = "", "return 1", "f" }, second, "#!lua name=mylib"},
		{"no keys", func(d *Declaration) { d.Keys = nil }, second, "keys: missing"},
		{"a key shared by every identity", func(d *Declaration) {
			d.Keys = append(d.Keys, MustParseTemplate("global", KeyVariables))
		}, second, `keys[1]: "global" does not use ${identity}`},
		{"seconds of a window that has none", func(d *Declaration) {
			d.Args = []Template{MustParseTemplate("${window_s}", ArgVariables)}
		}, Policy{Limit: 10, Window: 1500 * time.Millisecond}, "${window_s} needs a window of whole seconds"},
		{"no allowed position", func(d *Declaration) { d.Reply = ReplyLayout{Remaining: 2} }, second, "reply.allowed: missing"},
		{"two parts at one position", func(d *Declaration) { d.Reply.Remaining = 1 }, second, "remaining: position 1 is already allowed"},
		{"admitting strings without denying ones", func(d *Declaration) { d.Reply.Admit = []string{"OK"} }, second, "give both the admitting and the denying values"},
		{"no semantics", func(d *Declaration) { d.Semantics = "" }, second, "semantics: missing"},
		{"unknown semantics", func(d *Declaration) { d.Semantics = "token_bukket" }, second, `unknown semantics "token_bukket"`},
		{"bound without a promise", func(d *Declaration) { d.Semantics = SemanticsBound }, second, "bound: admitted must be at least 1"},
		{"a promise a family does not take", func(d *Declaration) { d.Promise = Promise{Admitted: 1, Per: time.Second} }, second, "only semantics: bound takes"},
	} {
		d := ok()
		tc.change(&d)
		err := d.Validate(tc.policy)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: Validate error %v, want %q", tc.why, err, tc.err)
		}
	}
}

// TestDeclaredCapabilities: what a declared limiter can be audited by
// follows from its semantics and whether its reply carries server time.
func TestDeclaredCapabilities(t *testing.T) {
	p := Policy{Limit: 100, Window: time.Second, Burst: 150}
	for _, tc := range []struct {
		why        string
		semantics  Semantics
		serverTime bool
		promise    Promise
		exact      bool
		bound      int64
		interval   time.Duration
	}{
		{"a family with server time is replayed", SemanticsTokenBucket, true, Promise{}, true, 250, time.Second},
		{"a family without server time is judged by its bound", SemanticsFixedWindow, false, Promise{}, false, 200, time.Second},
		{"gcra with server time is replayed through the built-in gcra's model; its bound is burst + limit", SemanticsGCRA, true, Promise{}, true, 250, time.Second},
		{"gcra without server time is judged by its bound", SemanticsGCRA, false, Promise{}, false, 250, time.Second},
		{"a declared promise over its own interval", SemanticsBound, true, Promise{Admitted: 7, Per: 100 * time.Millisecond}, false, 70, 100 * time.Millisecond},
	} {
		d := &Declaration{Name: "mine", Script: "return 1", Semantics: tc.semantics, Promise: tc.promise,
			Keys: []Template{MustParseTemplate("${identity}", KeyVariables)}, Reply: ReplyLayout{Allowed: 1}}
		if tc.serverTime {
			d.Reply.ServerTimeUs = 2
		}
		lim, err := d.Bind(nil, p, "s")
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		_, exact := lim.(Auditable)
		b := lim.(Bounded)
		if exact != tc.exact || b.Bound(time.Second) != tc.bound || lim.(BoundIntervaler).BoundInterval() != tc.interval {
			t.Errorf("%s: exact %v, Bound(1s) %d, interval %s; want %v, %d, %s", tc.why, exact, b.Bound(time.Second),
				lim.(BoundIntervaler).BoundInterval(), tc.exact, tc.bound, tc.interval)
		}
	}
}

func TestParseSemantics(t *testing.T) {
	if s, err := ParseSemantics("sliding_window"); err != nil || s != SemanticsSlidingLog {
		t.Errorf("sliding_window is %q, %v; want the sliding log", s, err)
	}
	if _, err := ParseSemantics("fixed"); err == nil || !strings.Contains(err.Error(), "known: fixed_window, sliding_log") {
		t.Errorf("unknown semantics: %v", err)
	}
}

func TestLibraryName(t *testing.T) {
	for _, tc := range []struct {
		src, want, err string
	}{
		{"#!lua name=limits\nredis.register_function('f', f)", "limits", ""},
		{"#!lua engine=lua name=limits\n", "limits", ""},
		{"-- a library\n#!lua name=limits\n", "", "starts with a line like"},
		{"#!lua\n", "", "gives no name="},
	} {
		got, err := libraryName(tc.src)
		if got != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("libraryName(%q) = %q, %v; want %q, %q", tc.src, got, err, tc.want, tc.err)
		}
	}
}
