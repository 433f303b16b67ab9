package profile

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
)

// guessed is what init read from a limiter's Lua, as the profile writes it.
type guessed struct {
	args      string // the templates, in order
	timeFrom  string
	allowed   string            // reply.allowed as written
	reply     map[string]string // the other reply parts as written
	semantics string
}

// guessesOf reads src as init does.
func guessesOf(t *testing.T, src, function string) guessed {
	t.Helper()
	l, err := inspectLua(src, function)
	if err != nil {
		t.Fatal(err)
	}
	g := guessed{timeFrom: string(l.timeFrom), allowed: allowedText(l.reply.layout), reply: map[string]string{}, semantics: string(l.semantics)}
	var args []string
	for _, a := range l.argGuesses {
		if a.Value == "" {
			a.Value = `""`
		}
		args = append(args, a.Value)
	}
	g.args = strings.Join(args, " ")
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		if v, ok := l.reply.layout.Value(part); ok {
			field, value := positionText(part, v)
			g.reply[field] = value
		}
	}
	return g
}

func (g guessed) String() string {
	return strings.Join([]string{"args " + g.args, "time_from " + g.timeFrom, "allowed " + g.allowed,
		"reply " + strings.Join(sortedReply(g.reply), " "), "semantics " + g.semantics}, "; ")
}

func sortedReply(m map[string]string) []string {
	var out []string
	for _, name := range []string{"remaining", "retry_after", "retry_after_ms", "reset_after", "reset_at", "window_end", "server_time", "server_time_us"} {
		if v, ok := m[name]; ok {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// TestSkeletonReadsTheLua: what init guesses from the Lua of published
// limiters' kind (the shipped examples), of the built-ins, which people
// copy, and of scripts written in other ways: the time from TIME or from
// the caller in every unit, windows in every unit, a cost, a reply in
// seconds with -1 for none, allowed as the units granted or as what is
// left, lists, sorted sets and hashes.
func TestSkeletonReadsTheLua(t *testing.T) {
	file := func(path string) string {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	for _, tc := range []struct {
		why, src, function string
		want               guessed
	}{
		{"a fixed window in a hash, the time from the caller in float seconds, a retry-after in float seconds with -1 for none",
			file("../profiles/examples/hash_fixed_window.lua"), "", guessed{
				args: "${limit} ${window_s} ${now_s_float}", timeFrom: "args", allowed: "1",
				reply:     map[string]string{"remaining": "2", "retry_after": "{position: 3, unit: s, none: -1}", "reset_at": "{position: 4, unit: s}"},
				semantics: "fixed_window"}},
		{"a moving window in a list, with an amount, answering true or false",
			file("../profiles/examples/list_sliding_log.lua"), "", guessed{
				args: "${now_s_float} ${limit} ${window_s} ${cost}", timeFrom: "args", allowed: "1",
				reply: map[string]string{}, semantics: "sliding_log"}},
		{"GCRA with a cost, TIME in seconds since 2017, allowed as the cost",
			file("../profiles/examples/gcra_cost.lua"), "", guessed{
				args: "${burst} ${limit} ${window_s} ${cost}", timeFrom: "redis", allowed: "{position: 1, when: cost}",
				reply:     map[string]string{"remaining": "2", "retry_after": "{position: 3, unit: s, none: -1}", "reset_after": "{position: 4, unit: s}"},
				semantics: "gcra"}},
		{"a token bucket taking microtime(true) and a rate per second",
			file("../profiles/examples/token_bucket_microtime.lua"), "", guessed{
				args: "${burst} ${rate_per_s} ${now_s_float} ${cost}", timeFrom: "args", allowed: "1",
				reply:     map[string]string{"remaining": "2", "retry_after": "{position: 3, unit: s, none: -1}"},
				semantics: "token_bucket"}},
		{"INCR, EXPIRE in seconds, the key's PTTL when denied",
			file("../profiles/examples/textbook_fixed_window.lua"), "", guessed{
				args: "${limit} ${window_s}", timeFrom: "redis", allowed: "1",
				reply: map[string]string{"remaining": "2", "retry_after_ms": "3"}, semantics: "fixed_window"}},
		{"a Functions library, its arguments read as args[n]",
			file("../profiles/examples/token_bucket_function.lua"), "token_bucket_allow", guessed{
				args: "${limit} ${window_us} ${burst}", timeFrom: "redis", allowed: "1",
				reply: map[string]string{"remaining": "2", "retry_after_ms": "3", "server_time_us": "4"}, semantics: "token_bucket"}},
		{"the built-in fixed window", file("../algorithms/fixed_window.lua"), "", guessed{
			args: "${limit} ${window_ms}", timeFrom: "redis", allowed: "1",
			reply: map[string]string{"remaining": "2", "retry_after_ms": "3", "server_time_us": "4"}, semantics: "fixed_window"}},
		{"the built-in sliding log", file("../algorithms/sliding_log.lua"), "", guessed{
			args: "${limit} ${window_us}", timeFrom: "redis", allowed: "1",
			reply: map[string]string{"remaining": "2", "retry_after_ms": "3", "server_time_us": "4"}, semantics: "sliding_log"}},
		{"the built-in leaky bucket", file("../algorithms/leaky_bucket.lua"), "", guessed{
			args: "${limit} ${window_us} ${burst}", timeFrom: "redis", allowed: "1",
			reply: map[string]string{"remaining": "2", "retry_after_ms": "3", "server_time_us": "4"}, semantics: "leaky_bucket"}},
		{"a sorted set, the time from Date.now() in milliseconds, a member per request",
			`local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local id = ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, id)
  redis.call('PEXPIRE', key, window)
  return {1, limit - count - 1}
end
return {0, 0}`, "", guessed{
				args: "${now_ms} ${window_ms} ${limit} ${request_id}", timeFrom: "args", allowed: "1",
				reply: map[string]string{"remaining": "2"}, semantics: "sliding_log"}},
		{"TIME in milliseconds, a window whose name says so, what is left or -1 as the answer, the TTL in every reply",
			`local t = redis.call('TIME')
local now_ms = t[1] * 1000 + math.floor(t[2] / 1000)
local max_requests = tonumber(ARGV[1])
local interval_ms = tonumber(ARGV[2])
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], interval_ms) end
local ttl = redis.call('PTTL', KEYS[1])
if count > max_requests then
  return {-1, ttl, now_ms}
end
return {max_requests - count, ttl, now_ms}`, "", guessed{
				args: "${limit} ${window_ms}", timeFrom: "redis", allowed: "{position: 1, when: nonnegative}",
				reply: map[string]string{"remaining": "1", "reset_after": "{position: 2, unit: ms}", "server_time": "{position: 3, unit: ms}"}, semantics: "fixed_window"}},
		{"arguments read all at once, a window in seconds scaled to the milliseconds of TIME, an argument nobody could name",
			`local limit, window, flavour = unpack(ARGV)
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local start = now - window * 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', start)
if redis.call('ZCARD', KEYS[1]) >= tonumber(limit) then return 0 end
redis.call('ZADD', KEYS[1], now, now .. flavour)
redis.call('PEXPIRE', KEYS[1], window * 1000)
return 1`, "", guessed{
				args: "${limit} ${window_s} ${EDIT_ME}", timeFrom: "redis", allowed: "1",
				reply: map[string]string{}, semantics: "sliding_log"}},
		{"a library whose parameters have their own names, texts for the answer, inline arguments",
			`#!lua name=limits
redis.register_function('hit', function(k, a)
  local n = redis.call('INCRBY', k[1], a[2])
  if n == tonumber(a[2]) then redis.call('EXPIRE', k[1], a[3]) end
  if n > tonumber(a[1]) then return 'THROTTLED' end
  return 'OK'
end)`, "hit", guessed{
				args: "${limit} ${cost} ${window_s}", timeFrom: "redis", allowed: `{position: 1, admit: ["OK"], deny: ["THROTTLED"]}`,
				reply: map[string]string{}, semantics: "fixed_window"}},
		{"whole seconds from the caller, floored into a window's number",
			`local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local bucket = math.floor(now / window)
local key = KEYS[1] .. ':' .. bucket
local n = redis.call('INCR', key)
redis.call('EXPIRE', key, window)
return n <= limit`, "", guessed{
				args: "${now_s} ${window_s} ${limit}", timeFrom: "args", allowed: "1", reply: map[string]string{}, semantics: "fixed_window"}},
		{"a window given in seconds that the script turns into milliseconds, an expiry given in milliseconds that it turns into seconds",
			`local window_ms = tonumber(ARGV[1]) * 1000
local limit = tonumber(ARGV[2])
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], window_ms) end
redis.call('EXPIRE', KEYS[2], math.ceil(ARGV[3] / 1000))
return n <= limit`, "", guessed{
				args: "${window_s} ${limit} ${window_ms}", timeFrom: "redis", allowed: "1", reply: map[string]string{}, semantics: "fixed_window"}},
		{"a reply that says 1 when it throttles and 0 when the request may go, by the branch each return sits in",
			file("testdata/init/limited_flag.lua"), "", guessed{
				args: "${limit} ${window_s} ${now_s_float}", timeFrom: "args", allowed: "{position: 1, when: zero}", reply: map[string]string{}, semantics: "sliding_log"}},
		{"a table whose first element is 0 when admitted; what is left as the limit less the count",
			file("testdata/init/limited_table.lua"), "", guessed{
				args: "${limit} ${window_ms}", timeFrom: "redis", allowed: "{position: 1, when: zero}",
				reply: map[string]string{"remaining": "2", "retry_after": "{position: 3, unit: ms, none: -1}"}, semantics: "fixed_window"}},
		{"a per-request cost named n_tokens, compared with the tokens",
			file("testdata/init/n_tokens_bucket.lua"), "", guessed{
				args: "${burst} ${rate_per_s} ${cost}", timeFrom: "redis", allowed: "1", reply: map[string]string{"remaining": "2"}, semantics: "token_bucket"}},
		{"the caller's clock in milliseconds, read from elapsed * rate / 1000 with a rate per second",
			file("testdata/init/ms_bucket.lua"), "", guessed{
				args: "${burst} ${rate_per_s} ${now_ms} ${cost}", timeFrom: "args", allowed: "1", reply: map[string]string{}, semantics: "token_bucket"}},
		{"tonumber(ARGV[3]) or TIME: the application sends no time, the script takes Redis's",
			file("testdata/init/time_fallback.lua"), "", guessed{
				args: `${limit} ${window_s} ""`, timeFrom: "redis", allowed: "1", reply: map[string]string{"remaining": "2"}, semantics: "fixed_window"}},
		{"an argument the script no longer reads, sent empty as a gateway sends it; TIME in whole seconds",
			file("testdata/init/gateway_bucket.lua"), "", guessed{
				args: `${rate_per_s} ${burst} "" ${cost}`, timeFrom: "redis", allowed: "1", reply: map[string]string{"remaining": "2"}, semantics: "token_bucket"}},
		{"what is left, or a negative number, as the answer; the limit read as what the cost is taken from",
			file("testdata/init/remaining_or_negative.lua"), "", guessed{
				args: "${limit} ${window_s} ${cost}", timeFrom: "redis", allowed: "{position: 1, when: nonnegative}",
				reply: map[string]string{"remaining": "1", "reset_after": "{position: 2, unit: s}"}, semantics: "fixed_window"}},
		{"a bucket refilled in whole intervals, its units read from PEXPIRE ... * interval and the clock set against it: held to its bound",
			file("testdata/init/stepwise_bucket.lua"), "", guessed{
				args: "${burst} ${window_ms} ${limit} ${now_ms} ${cost}", timeFrom: "args", allowed: "{position: 1, when: nonnegative}",
				reply: map[string]string{"remaining": "1"}, semantics: "bound"}},
		{"a window in milliseconds (a comment, and the arithmetic with TIME in microseconds) that also goes to EXPIRE",
			file("testdata/init/sliding_ms.lua"), "", guessed{
				args: "${window_ms} ${limit}", timeFrom: "redis", allowed: "1", reply: map[string]string{"retry_after": "{position: 2, unit: us}"}, semantics: "sliding_log"}},
		{"a rate per second beside a period of its own: not a rate per window",
			file("testdata/init/rate_and_period.lua"), "", guessed{
				args: "${burst} ${rate_per_s} ${window_s}", timeFrom: "redis", allowed: "1", reply: map[string]string{}, semantics: "leaky_bucket"}},
		{"a name it never reads, a flag named blocked at position 3, a block after the limit: held to its bound",
			file("testdata/init/blocking_window.lua"), "", guessed{
				args: `"" ${window_ms} ${limit} ${window_ms}`, timeFrom: "redis", allowed: "{position: 3, when: zero}",
				reply: map[string]string{"reset_after": "{position: 2, unit: ms}"}, semantics: "bound"}},
		{"comments that name commands the code never calls",
			`-- a token bucket? no: ZADD ZREMRANGEBYSCORE tat
--[[ TIME is not called here ]]
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n <= tonumber(ARGV[1]) and 1 or 0`, "", guessed{
				args: "${limit} ${window_s}", timeFrom: "redis", allowed: "1", reply: map[string]string{}, semantics: "fixed_window"}},
	} {
		got := guessesOf(t, tc.src, tc.function)
		if got.String() != tc.want.String() {
			t.Errorf("%s:\n got: %s\nwant: %s", tc.why, got, tc.want)
		}
	}
}

// TestSkeletonIsARunnableProfile: the skeleton of each shipped example
// parses as it is, marks every guess CHECK, and offers more than the
// family's bound on each side of a boundary; one whose Lua rlbench cannot
// place needs its arguments and semantics edited, and validate says where.
func TestSkeletonIsARunnableProfile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		burst string
	}{
		{"textbook_fixed_window", "burst: 201"}, {"token_bucket_function", "burst: 201"}, {"hash_fixed_window", "burst: 201"},
		{"list_sliding_log", "burst: 101"}, {"gcra_cost", "burst: 201"}, {"token_bucket_microtime", "burst: 201"},
	} {
		src, err := os.ReadFile(filepath.Join("../profiles/examples", tc.name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		text, checks, err := Skeleton(SkeletonOptions{Name: tc.name, ScriptPath: "../profiles/examples/" + tc.name + ".lua", Source: string(src)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(tc.name+".yaml", text)
		if err != nil {
			t.Errorf("%s: the skeleton does not parse:\n%v\n%s", tc.name, err, text)
			continue
		}
		if len(p.Declared) != 1 || p.Declared[0].Name != tc.name || len(p.Scenarios) != 3 || len(p.Algorithms) != 2 {
			t.Errorf("%s: declared %d, scenarios %d, algorithms %v", tc.name, len(p.Declared), len(p.Scenarios), p.Algorithms)
		}
		if !strings.Contains(string(text), tc.burst+" ") {
			t.Errorf("%s: the edge scenario does not offer %s:\n%s", tc.name, tc.burst, text)
		}
		// Every guessed line of the declaration says CHECK, and init
		// lists each guess.
		for _, line := range strings.Split(string(text), "\n") {
			trimmed := strings.TrimSpace(line)
			if (strings.HasPrefix(trimmed, `- "$`) || strings.HasPrefix(trimmed, "time_from:") || strings.HasPrefix(trimmed, "allowed:")) && !strings.Contains(line, "CHECK") {
				t.Errorf("%s: a guess without CHECK: %s", tc.name, line)
			}
		}
		if len(checks) < len(p.Declared[0].Args)+2 {
			t.Errorf("%s: %d checks for %d arguments: %q", tc.name, len(checks), len(p.Declared[0].Args), checks)
		}
	}
	// An argument init cannot name, in a lock rather than a limiter.
	lock := "local ok = redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[1])\nreturn ok and 1 or 0\n"
	if err := os.WriteFile(filepath.Join(dir, "lock.lua"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, err := Skeleton(SkeletonOptions{Name: "lock", ScriptPath: "lock.lua", Source: lock})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `- "${window_ms}"`) || !strings.Contains(string(text), `- "${EDIT_ME}"`) || strings.Count(string(text), `"${limit}"`) != 0 {
		t.Errorf("the lock's arguments: an expiry in milliseconds, and one init cannot name (never ${limit}):\n%s", text)
	}
	_, err = Parse(filepath.Join(dir, "lock.yaml"), text)
	var perrs Errors
	if !errors.As(err, &perrs) || len(perrs) != 2 || perrs[0].Field != "algorithms[0].ARGV[2]" || !strings.Contains(perrs[0].Msg, "unknown variable ${EDIT_ME}") ||
		perrs[1].Field != "algorithms[0].semantics" || !strings.Contains(perrs[1].Msg, `"EDIT_ME"`) {
		t.Errorf("a skeleton with an unknown argument and family: %v, want two errors, on ARGV[2] and semantics", err)
	}
}

// TestSkeletonQuotesThePath: a path YAML would read otherwise is quoted,
// and the profile names the file it was written for.
func TestSkeletonQuotesThePath(t *testing.T) {
	src := "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end\nreturn n <= tonumber(ARGV[1])\n"
	for _, path := range []string{"my limiter #1.lua", "a: b.lua", "tab\tand\x1bescape.lua", "- dash.lua", "'quoted'.lua", `back\slash "q".lua`, "üñí.lua", "@at.lua", "{x}.lua"} {
		text, _, err := Skeleton(SkeletonOptions{Name: "mine", ScriptPath: path, Source: src})
		if err != nil {
			t.Fatalf("%q: %v", path, err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, path), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Parse(filepath.Join(dir, "mine.yaml"), text)
		if err != nil {
			t.Errorf("%q: %v\n%s", path, err, text)
			continue
		}
		if got := p.Declared[0].SourcePath; got != path {
			t.Errorf("%q: the profile names %q", path, got)
		}
	}
	if _, _, err := Skeleton(SkeletonOptions{Name: "mine", ScriptPath: "bad\xffname.lua", Source: src}); err == nil {
		t.Error("a path that is not UTF-8 was written into YAML")
	}
}

// TestSkeletonSaysItsOwnPath: the command the profile's first lines give
// names the profile where init wrote it, so that it runs from where init
// was run, as a shell word.
func TestSkeletonSaysItsOwnPath(t *testing.T) {
	src := "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end\nreturn n <= tonumber(ARGV[1])\n"
	tests := []struct{ path, want string }{
		// Written beside the Lua, in a folder of its own.
		{"limiters/bucket.yaml", "rlbench validate limiters/bucket.yaml && rlbench run limiters/bucket.yaml"},
		// No path given: the limiter's name.
		{"", "rlbench validate mine.yaml && rlbench run mine.yaml"},
		// A shell would split or expand these: quoted.
		{"my limiters/a b.yaml", "rlbench validate 'my limiters/a b.yaml' && rlbench run 'my limiters/a b.yaml'"},
		{"it's $HOME.yaml", `rlbench validate 'it'\''s $HOME.yaml'`},
		// A line break would end the comment: the path is not written.
		{"two\nlines.yaml", "rlbench validate PROFILE.yaml && rlbench run PROFILE.yaml"},
	}
	for _, tt := range tests {
		text, _, err := Skeleton(SkeletonOptions{Name: "mine", ScriptPath: "mine.lua", Source: src, ProfilePath: tt.path})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "#   "+tt.want) {
			t.Errorf("%q: want the line %q in\n%s", tt.path, tt.want, text[:min(len(text), 600)])
		}
	}
}

func TestSkeletonRefuses(t *testing.T) {
	lib := "#!lua name=l\nredis.register_function('a', function(keys, args) return 1 end)\n"
	for _, tc := range []struct {
		why string
		o   SkeletonOptions
		err string
	}{
		{"a function the library does not register", SkeletonOptions{Name: "x", ScriptPath: "l.lua", Source: lib, Function: "b"}, `registers no function "b" (it registers: a)`},
		{"a function of a script", SkeletonOptions{Name: "x", ScriptPath: "l.lua", Source: "return 1", Function: "a"}, "not a Functions library"},
		{"a built-in's name", SkeletonOptions{Name: "sliding_log", ScriptPath: "l.lua", Source: "return 1"}, "not a built-in's name"},
	} {
		if _, _, err := Skeleton(tc.o); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.why, err, tc.err)
		}
	}
}

// TestStripLuaComments: comments go, strings stay, lines stay.
func TestStripLuaComments(t *testing.T) {
	src := "local a = '--not a comment' -- a comment\n--[==[ long\ncomment ]==] local b = [[--kept]]\nreturn a"
	got := stripLuaComments(src)
	for _, kept := range []string{"'--not a comment'", "local b = [[--kept]]", "return a"} {
		if !strings.Contains(got, kept) {
			t.Errorf("lost %q: %q", kept, got)
		}
	}
	if strings.Contains(got, "a comment\n") || strings.Contains(got, "long") || strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Errorf("stripped: %q", got)
	}
	if regexp.MustCompile(`\S`).FindString(strings.Split(got, "\n")[1]) != "" {
		t.Errorf("the long comment's first line is not blank: %q", got)
	}
}

// TestDraftCalibrated: a draft revised by a calibration takes the values
// it fixed, writes what it found above each line it speaks of, keeps
// CHECK only where it doubts (and on a clock in seconds whose precision
// no probe can tell), declares a bound it found, and still parses.
func TestDraftCalibrated(t *testing.T) {
	src, err := os.ReadFile("testdata/init/n_tokens_bucket.lua")
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDraft(SkeletonOptions{Name: "bucket", ScriptPath: "bucket.lua", Source: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	decl, unknown, err := d.Declaration()
	if err != nil || len(unknown) != 0 || decl.Semantics != algorithms.SemanticsTokenBucket || len(decl.Args) != 3 || decl.Args[2].String() != "${cost}" {
		t.Fatalf("declaration %+v, unknown %v, %v", decl, unknown, err)
	}
	// As if the probes had found the cost taken for the limit, and doubted
	// what is left.
	fixed := *decl
	fixed.Args = append([]algorithms.Template(nil), decl.Args...)
	fixed.Args[1] = algorithms.MustParseTemplate("${rate_per_ms}", algorithms.ArgVariables)
	notes := map[string]struct {
		text  string
		check bool
	}{
		"ARGV[2]":         {"${rate_per_ms}, not ${rate_per_s}: the probes said so", false},
		"reply.remaining": {"it said 10 after the first request", true},
		"semantics":       {"it refills in steps", true},
	}
	d.Calibrated(Calibration{Declaration: &fixed, BoundOf: algorithms.SemanticsTokenBucket, Where: "a test",
		Note: func(field string) (string, bool, bool) { n, ok := notes[field]; return n.text, n.check, ok }})
	text, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	out := string(text)
	for _, want := range []string{
		"# calibration: ${rate_per_ms}, not ${rate_per_s}: the probes said so\n      - \"${rate_per_ms}\"    # ARGV[2] refill_per_sec: requests per millisecond\n",
		"- \"${cost}\"    # ARGV[3] n_tokens: the units this request takes (a scenario's cost:, 1 by default)\n",
		"remaining: 2    # CHECK: ",
		"semantics: bound    # CHECK\n    bound: {admitted: 200, per: 1s}",
		"checked its reading against a real Redis:\n#   a test\n# Lines marked CHECK",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the profile lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "time_from: redis         # CHECK") || strings.Contains(out, "allowed: 1    # CHECK") {
		t.Errorf("a line the probes confirmed is still marked CHECK:\n%s", out)
	}
	if checks := d.Checks(); len(checks) != 2 || !strings.HasPrefix(checks[0], "reply.remaining: ") || !strings.HasPrefix(checks[1], "semantics: ") {
		t.Errorf("checks %q, want the two doubts", checks)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bucket.lua"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(filepath.Join(dir, "bucket.yaml"), text); err != nil {
		t.Errorf("the calibrated profile does not parse: %v\n%s", err, out)
	}
}
