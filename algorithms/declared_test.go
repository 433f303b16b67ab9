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
		{"empty: an argument sent as the empty string", "", ArgVariables, ""},
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
	fixed := map[string]string{VarScenario: "steady", VarLimit: "100", VarRatePerS: "0.5", VarRatePerMs: "0.0005"}
	for _, tc := range []struct {
		why, template, want string
	}{
		{"identity in a hash tag", "checkout:{${identity}}", "checkout:{42}"},
		{"scenario and policy are fixed for the run", "${scenario}:${limit}:${identity}", "steady:100:42"},
		{"request values", "${request_id}@${now_ms}", "7@1764000000123"},
		{"every unit of one clock reading", "${now_s} ${now_s_float} ${now_ms} ${now_us}",
			"1764000000 1764000000.123046 1764000000123 1764000000123046"},
		{"microseconds below 100000 keep their leading zeros", "${now_s_float}", "1764000000.123046"},
		{"the request's cost", "cost=${cost}", "cost=3"},
		{"the policy's rate per second", "${rate_per_s}/s", "0.5/s"},
		{"and per millisecond", "${rate_per_ms}/ms", "0.0005/ms"},
	} {
		b := MustParseTemplate(tc.template, ArgVariables).bind(fixed)
		got := string(b.appendTo(nil, &requestVars{identity: "42", requestID: 7, nowMicros: 1764000000123046, cost: 3}))
		if got != tc.want {
			t.Errorf("%s: %q expands to %q, want %q", tc.why, tc.template, got, tc.want)
		}
	}
	if b := MustParseTemplate("${limit}", ArgVariables).bind(fixed); !b.isStatic || b.static != "100" {
		t.Errorf("a template of fixed values is not precomputed: %+v", b)
	}
	if b := MustParseTemplate("", ArgVariables).bind(fixed); !b.isStatic || b.static != "" {
		t.Errorf("the empty template is not the empty argument: %+v", b)
	}
	// A whole second, and a microsecond before one: six decimals each.
	for us, want := range map[int64]string{1764000000_000000: "1764000000.000000", 1764000000_999999: "1764000000.999999", 5: "0.000005"} {
		if got := string(appendSecondsFloat(nil, us)); got != want {
			t.Errorf("appendSecondsFloat(%d) = %q, want %q", us, got, want)
		}
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
	// A library's reply: allowed, remaining, a retry-after in float
	// seconds with -1 for none, and the window's end in seconds.
	seconds := ReplyLayout{Allowed: 1, Remaining: 2, Values: map[ReplyPart]ReplyValue{
		PartRetryAfter: {Position: 3, Unit: Seconds, None: []string{"-1"}},
		PartResetAt:    {Position: 4, Unit: Seconds},
		PartWindowEnd:  {Position: 5, Unit: Milliseconds},
		PartServerTime: {Position: 6, Unit: Seconds},
	}}
	const sec = int64(1_764_000_060)
	for _, tc := range []struct {
		why    string
		layout ReplyLayout
		req    Request
		reply  any
		want   Decision
		// bad is the malformed optional part's error, err the error that
		// loses the decision.
		bad, err string
	}{
		{"the built-ins' reply", full, Request{}, []any{int64(0), "0.5", int64(12), now},
			Decision{Remaining: "0.5", RetryAfter: 12 * time.Millisecond, ServerNowMicros: now}, "", ""},
		{"numbers as text", full, Request{}, []any{"1", int64(3), "12.5", "1764000000123456"},
			Decision{Allowed: true, Remaining: "3", RetryAfter: 12500 * time.Microsecond, ServerNowMicros: now}, "", ""},
		{"Lua true is 1", ReplyLayout{Allowed: 1}, Request{}, []any{int64(1)}, Decision{Allowed: true}, "", ""},
		{"Lua false is nil", ReplyLayout{Allowed: 1}, Request{}, []any{nil}, Decision{}, "", ""},
		{"a single value is an array of one", ReplyLayout{Allowed: 1}, Request{}, int64(1), Decision{Allowed: true}, "", ""},
		{"a single false", ReplyLayout{Allowed: 1}, Request{}, nil, Decision{}, "", ""},
		{"declared strings, admitted", text, Request{}, []any{"x", "OK"}, Decision{Allowed: true}, "", ""},
		{"declared strings, one of two denials", text, Request{}, []any{"x", "BANNED"}, Decision{}, "", ""},
		{"extra elements are ignored", ReplyLayout{Allowed: 1}, Request{}, []any{int64(0), "extra"}, Decision{}, "", ""},
		{"the request's cost and clock stay with the decision", ReplyLayout{Allowed: 1}, Request{Cost: 3, NowMicros: now}, []any{int64(1)},
			Decision{Allowed: true, Cost: 3, ClientNowMicros: now}, "", ""},

		{"float seconds and instants in seconds and milliseconds", seconds, Request{}, []any{int64(0), "0", "0.25", sec, "1764000060000", "1764000000.123456"},
			Decision{Remaining: "0", RetryAfter: 250 * time.Millisecond, ResetAtMicros: sec * 1_000_000, WindowEndMicros: sec * 1_000_000, ServerNowMicros: now}, "", ""},
		{"-1 means no retry-after", seconds, Request{}, []any{int64(1), "9", int64(-1), sec, sec * 1000, "1764000000.123456"},
			Decision{Allowed: true, Remaining: "9", ResetAtMicros: sec * 1_000_000, WindowEndMicros: sec * 1_000_000, ServerNowMicros: now, Unread: ReplyParts(0).With(PartRetryAfter)}, "", ""},
		{"-1 written as a float still means none", seconds, Request{}, []any{int64(1), "9", "-1.0", sec, sec * 1000, "1764000000.123456"},
			Decision{Allowed: true, Remaining: "9", ResetAtMicros: sec * 1_000_000, WindowEndMicros: sec * 1_000_000, ServerNowMicros: now, Unread: ReplyParts(0).With(PartRetryAfter)}, "", ""},
		{"a reply that ends early leaves the later parts unread", seconds, Request{}, []any{int64(1), "9"},
			Decision{Allowed: true, Remaining: "9", Unread: ReplyParts(0).With(PartRetryAfter).With(PartResetAt).With(PartWindowEnd).With(PartServerTime)}, "", ""},
		{"an exponent keeps every microsecond", ReplyLayout{Allowed: 1, Values: map[ReplyPart]ReplyValue{PartServerTime: {Position: 2, Unit: Seconds}}},
			Request{}, []any{int64(1), "1.764000000123456e+09"}, Decision{Allowed: true, ServerNowMicros: now}, "", ""},

		{"allowed as any non-zero number", ReplyLayout{Allowed: 1, When: AllowedNonZero}, Request{}, []any{int64(-3)}, Decision{Allowed: true}, "", ""},
		{"allowed as a positive number, 0 denies", ReplyLayout{Allowed: 1, When: AllowedPositive}, Request{}, []any{int64(0)}, Decision{}, "", ""},
		{"allowed as what is left, -1 denies", ReplyLayout{Allowed: 1, When: AllowedNonNegative}, Request{}, []any{int64(-1)}, Decision{}, "", ""},
		{"allowed as what is left, 0 admits", ReplyLayout{Allowed: 1, When: AllowedNonNegative}, Request{}, []any{"0"}, Decision{Allowed: true}, "", ""},
		{"allowed as whether it limited: 0 admits", ReplyLayout{Allowed: 1, When: AllowedZero}, Request{}, []any{int64(0), "9"}, Decision{Allowed: true}, "", ""},
		{"allowed as whether it limited: 1 denies", ReplyLayout{Allowed: 1, When: AllowedZero}, Request{}, int64(1), Decision{}, "", ""},
		{"allowed as whether it limited: Lua false admits", ReplyLayout{Allowed: 1, When: AllowedZero}, Request{}, nil, Decision{Allowed: true}, "", ""},
		{"allowed as a wait: nil admits, a wait denies", ReplyLayout{Allowed: 1, When: AllowedZero}, Request{}, []any{int64(250)}, Decision{}, "", ""},
		{"what is left at the answer's position, admitted", ReplyLayout{Allowed: 1, When: AllowedNonNegative, Remaining: 1}, Request{}, []any{int64(7), int64(1764000000123)},
			Decision{Allowed: true, Remaining: "7"}, "", ""},
		{"what is left at the answer's position, denied: no remaining", ReplyLayout{Allowed: 1, When: AllowedNonNegative, Remaining: 1}, Request{}, []any{int64(-1), int64(1764000000123)},
			Decision{Unread: ReplyParts(0).With(PartRemaining)}, "", ""},
		{"allowed as the cost", ReplyLayout{Allowed: 1, When: AllowedCost}, Request{Cost: 4}, []any{int64(4)}, Decision{Allowed: true, Cost: 4}, "", ""},
		{"denied as 0 units", ReplyLayout{Allowed: 1, When: AllowedCost}, Request{Cost: 4}, []any{int64(0)}, Decision{Cost: 4}, "", ""},
		{"a count up to the limit admits", ReplyLayout{Allowed: 1, When: AllowedCount}, Request{Limit: 20}, []any{int64(20)}, Decision{Allowed: true}, "", ""},
		{"a count past the limit denies", ReplyLayout{Allowed: 1, When: AllowedCount}, Request{Limit: 20}, []any{"21"}, Decision{}, "", ""},
		{"a count of several units at once", ReplyLayout{Allowed: 1, When: AllowedCount}, Request{Cost: 3, Limit: 20}, []any{int64(22)}, Decision{Cost: 3}, "", ""},
		{"admitting texts alone: anything else denies", ReplyLayout{Allowed: 1, Admit: []string{"OK"}}, Request{}, []any{"SLOW DOWN"}, Decision{}, "", ""},
		{"denying texts alone: anything else admits", ReplyLayout{Allowed: 1, Deny: []string{"LIMITED"}}, Request{}, []any{"go"}, Decision{Allowed: true}, "", ""},

		{"a string the declaration does not list", text, Request{}, []any{"x", "MAYBE"}, Decision{}, "",
			`reply position 2 (allowed): got the string "MAYBE", want one of ["OK"] (admit) or ["LIMITED", "BANNED"] (deny)`},
		{"text without declared strings", ReplyLayout{Allowed: 1}, Request{}, []any{"OK"}, Decision{}, "",
			`reply position 1 (allowed): got the string "OK", want 1/0 or true/false; declare the admitting and denying strings`},
		{"a count where a flag goes", ReplyLayout{Allowed: 1}, Request{}, []any{int64(7)}, Decision{}, "",
			"reply position 1 (allowed): got the integer 7, want 1/0 or true/false (declare when: nonzero"},
		{"a grant that is not the cost", ReplyLayout{Allowed: 1, When: AllowedCost}, Request{Cost: 4}, []any{int64(2)}, Decision{}, "",
			"want the request's cost 4 (admitted) or 0 (denied)"},
		{"a count without a limit to read it by", ReplyLayout{Allowed: 1, When: AllowedCount}, Request{}, []any{int64(3)}, Decision{}, "",
			"want a count, read against a limit the request did not carry"},
		{"too short for the answer", ReplyLayout{Allowed: 3}, Request{}, []any{int64(1), "3"}, Decision{}, "",
			"reply: got an array of 2, want at least 3 elements"},
		{"a single value where positions 1-4 are read", full, Request{}, int64(1), Decision{}, "",
			"reply: got the integer 1, want an array of at least 4"},

		{"remaining not a number: the decision stands", full, Request{}, []any{int64(1), "lots", int64(0), now},
			Decision{Allowed: true, ServerNowMicros: now, Unread: ReplyParts(0).With(PartRemaining)},
			`reply position 2 (remaining): got the string "lots", want a number`, ""},
		{"negative retry", full, Request{}, []any{int64(0), "0", int64(-5), now},
			Decision{Remaining: "0", ServerNowMicros: now, Unread: ReplyParts(0).With(PartRetryAfter)},
			"reply position 3 (retry_after_ms): got the integer -5, want milliseconds from 0 to a year", ""},
		{"a sentinel not declared is named in the error", seconds, Request{}, []any{int64(0), "0", "soon", sec, sec * 1000, "1764000000.123456"},
			Decision{Remaining: "0", ResetAtMicros: sec * 1_000_000, WindowEndMicros: sec * 1_000_000, ServerNowMicros: now, Unread: ReplyParts(0).With(PartRetryAfter)},
			`reply position 3 (retry_after): got the string "soon", want seconds from 0 to a year, or ["-1"] for none`, ""},
		{"server time in milliseconds", full, Request{}, []any{int64(1), "0", int64(0), now / 1000},
			Decision{Allowed: true, Remaining: "0", Unread: ReplyParts(0).With(PartServerTime)},
			"reply position 4 (server_time_us): got the integer 1764000000123, want the Redis TIME the decision used, in microseconds since the epoch (seconds * 1000000 + microseconds); it looks like milliseconds (declare unit: ms)", ""},
		{"server time in seconds", full, Request{}, []any{int64(1), "0", int64(0), now / 1_000_000},
			Decision{Allowed: true, Remaining: "0", Unread: ReplyParts(0).With(PartServerTime)}, "it looks like seconds (declare unit: s)", ""},
		{"a window end declared in seconds that came in milliseconds", seconds, Request{}, []any{int64(1), "0", int64(-1), sec * 1000, sec * 1000, "1764000000.123456"},
			Decision{Allowed: true, Remaining: "0", WindowEndMicros: sec * 1_000_000, ServerNowMicros: now, Unread: ReplyParts(0).With(PartRetryAfter).With(PartResetAt)},
			"reply position 4 (reset_at): got the integer 1764000060000, want seconds since the epoch; it looks like milliseconds (declare unit: ms)", ""},
	} {
		got, bad, err := tc.layout.Parse(tc.req, tc.reply)
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
		switch {
		case tc.bad == "" && len(bad) > 0:
			t.Errorf("%s: malformed %v, want none", tc.why, bad)
		case tc.bad != "" && (len(bad) != 1 || !strings.Contains(bad[0].Error(), tc.bad)):
			t.Errorf("%s: malformed %v, want one containing %q", tc.why, bad, tc.bad)
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
		}, second, `KEYS[2]: "global" does not use ${identity}`},
		{"seconds of a window that has none", func(d *Declaration) {
			d.Args = []Template{MustParseTemplate("${window_s}", ArgVariables)}
		}, Policy{Limit: 10, Window: 1500 * time.Millisecond}, "${window_s} needs a window of whole seconds"},
		{"no allowed position", func(d *Declaration) { d.Reply = ReplyLayout{Remaining: 2} }, second, "reply.allowed: missing"},
		{"two parts at one position", func(d *Declaration) { d.Reply.Remaining = 1 }, second, "remaining: position 1 is already allowed"},
		{"a reading of numbers beside texts", func(d *Declaration) {
			d.Reply.Admit, d.Reply.When = []string{"OK"}, AllowedNonZero
		}, second, "give either when"},
		{"allowed as the cost, with no cost passed", func(d *Declaration) { d.Reply.When = AllowedCost }, second, "no argument passes ${cost}"},
		{"a retry-after without its unit", func(d *Declaration) {
			d.Reply.Values = map[ReplyPart]ReplyValue{PartRetryAfter: {Position: 2}}
		}, second, "retry_after: unit: missing"},
		{"a count with a unit", func(d *Declaration) {
			d.Reply.Values = map[ReplyPart]ReplyValue{PartRemaining: {Position: 2, Unit: Seconds}}
		}, second, "remaining: a count takes no unit"},
		{"a part in full and in short", func(d *Declaration) {
			d.Reply.RetryAfterMs = 2
			d.Reply.Values = map[ReplyPart]ReplyValue{PartRetryAfter: {Position: 3, Unit: Seconds}}
		}, second, "retry_after: given twice"},
		{"an unknown unit", func(d *Declaration) {
			d.Reply.Values = map[ReplyPart]ReplyValue{PartResetAt: {Position: 2, Unit: "minutes"}}
		}, second, `reset_at: unknown unit "minutes"`},
		{"two parts at one position, in full", func(d *Declaration) {
			d.Reply.Values = map[ReplyPart]ReplyValue{PartResetAt: {Position: 2, Unit: Seconds}, PartWindowEnd: {Position: 2, Unit: Seconds}}
		}, second, "window_end: position 2 is already reset_at"},
		{"time from the args, with none passed", func(d *Declaration) { d.TimeFrom = TimeFromArgs }, second, "time_from: args, but no argument carries the time"},
		{"an unknown time source", func(d *Declaration) { d.TimeFrom = "ntp" }, second, `unknown time source "ntp"`},
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
