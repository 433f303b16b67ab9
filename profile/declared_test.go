package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// declaredDir holds a profile's limiter files: limiters/checkout.lua (a
// script) and limiters/lib.lua (a Functions library).
func declaredDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "limiters"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"checkout.lua": "local n = redis.call('INCR', KEYS[1])\nreturn {n <= tonumber(ARGV[1]) and 1 or 0}\n",
		"lib.lua":      "#!lua name=limits\nredis.register_function('allow', function(keys, args) return 1 end)\n",
		"empty.lua":    "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "limiters", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const declaredHead = "policy: {limit: 100, window: 1s, burst: 150}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 1s\n"

func TestParseDeclaredLimiters(t *testing.T) {
	dir := declaredDir(t)
	body := declaredHead + `algorithms:
  - fixed_window
  - name: checkout_limiter
    script: limiters/checkout.lua
    keys: ["checkout:{${identity}}"]
    args: ["${limit}", "${window_ms}", "${burst}"]
    reply:
      allowed: 1
      remaining: 2
      retry_after_ms: 3
      server_time_us: 4
    semantics: token_bucket
  - name: fn
    function: allow
    library: limiters/lib.lua
    keys: ["a:{${identity}}", "b:{${identity}}"]
    reply: {allowed: {position: 2, admit: OK, deny: [LIMITED, BANNED]}}
    semantics: sliding_window
  - name: promised
    script: limiters/checkout.lua
    keys: ["${identity}"]
    reply: {allowed: 1}
    semantics: bound
    bound: {admitted: 10}
thresholds:
  - "checkout_limiter/* audit.model_mismatches == 0"
`
	p, err := Parse(filepath.Join(dir, "p.yaml"), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Algorithms, ","); got != "fixed_window,checkout_limiter,fn,promised" {
		t.Errorf("algorithms %s", got)
	}
	if p.Declaration("fixed_window") != nil || len(p.Declared) != 3 {
		t.Fatalf("declared %d; a built-in has a declaration", len(p.Declared))
	}
	co := p.Declaration("checkout_limiter")
	if co.SourcePath != "limiters/checkout.lua" || !strings.Contains(co.Script, "INCR") || co.Semantics != algorithms.SemanticsTokenBucket ||
		co.Reply.Fields() != (algorithms.ReplyFields{Remaining: true, RetryAfter: true, ServerTime: true}) || co.Reply.RetryAfterMs != 3 ||
		len(co.Keys) != 1 || co.Keys[0].String() != "checkout:{${identity}}" || len(co.Args) != 3 || !co.Exact() {
		t.Errorf("checkout_limiter: %+v", co)
	}
	fn := p.Declaration("fn")
	if fn.Function != "allow" || !strings.HasPrefix(fn.Library, "#!lua name=limits") || fn.Semantics != algorithms.SemanticsSlidingLog ||
		fn.Reply.Allowed != 2 || strings.Join(fn.Reply.Admit, ",") != "OK" || strings.Join(fn.Reply.Deny, ",") != "LIMITED,BANNED" || fn.Exact() {
		t.Errorf("fn: %+v", fn)
	}
	if pr := p.Declaration("promised"); pr.Promise != (algorithms.Promise{Admitted: 10, Per: time.Second}) {
		t.Errorf("a promise without per takes the policy's window: %+v", pr.Promise)
	}
	if len(p.Thresholds) != 1 {
		t.Errorf("a threshold on a declared limiter: %d", len(p.Thresholds))
	}
}

// TestParseDeclaredRealScripts: a declaration as a published limiter
// needs it: the time in seconds from the caller, a cost, a retry-after in
// float seconds with -1 for none, the window's end in seconds, and allowed
// as the units granted; a scenario's cost in each form.
func TestParseDeclaredRealScripts(t *testing.T) {
	dir := declaredDir(t)
	body := `policy: {limit: 100, window: 60s}
algorithms:
  - name: mine
    script: limiters/checkout.lua
    keys: ["rl:{${identity}}"]
    args: ["${limit}", "${window_s}", "${now_s_float}", "${cost}"]
    time_from: args
    reply:
      allowed: {position: 1, when: cost}
      remaining: {position: 2, none: [-1, "n/a"]}
      retry_after: {position: 3, unit: s, none: -1}
      reset_at: {position: 4, unit: s}
      server_time: {position: 5, unit: ms}
    semantics: gcra
scenarios:
  - {name: fixed, shape: steady, rate: 2x, duration: 1s, cost: 3}
  - {name: range, shape: steady, rate: 2x, duration: 1s, cost: {uniform: [1, 5]}}
  - {name: weighted, shape: steady, rate: 2x, duration: 1s, cost: {weights: {1: 90, 5: 9, 20: 1}}}
  - {name: one, shape: steady, rate: 2x, duration: 1s}
`
	p, err := Parse(filepath.Join(dir, "p.yaml"), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Declaration("mine")
	want := algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedCost, Values: map[algorithms.ReplyPart]algorithms.ReplyValue{
		algorithms.PartRemaining:  {Position: 2, None: []string{"-1", "n/a"}},
		algorithms.PartRetryAfter: {Position: 3, Unit: algorithms.Seconds, None: []string{"-1"}},
		algorithms.PartResetAt:    {Position: 4, Unit: algorithms.Seconds},
		algorithms.PartServerTime: {Position: 5, Unit: algorithms.Milliseconds},
	}}
	if d.TimeFrom != algorithms.TimeFromArgs || !d.UsesCost() || fmt.Sprint(d.Reply) != fmt.Sprint(want) || !d.Exact() {
		t.Errorf("declaration: time from %q, cost %v, reply %+v, exact %v", d.TimeFrom, d.UsesCost(), d.Reply, d.Exact())
	}
	costs := map[string]string{}
	for _, s := range p.Scenarios {
		costs[s.Name] = s.Cost.String()
	}
	if costs["fixed"] != "3" || costs["range"] != "uniform 1-5" || costs["weighted"] != "1 (weight 90), 5 (weight 9), 20 (weight 1)" || costs["one"] != "1" {
		t.Errorf("costs %v", costs)
	}
	info := p.ResultInfo().Limiters[0]
	if info.TimeFrom != "args" || info.Reply["retry_after"] != 3 || info.ReplyUnits["retry_after"] != "s" || info.ReplyUnits["server_time"] != "ms" || info.Reply["allowed"] != 1 {
		t.Errorf("the result's limiter info: %+v", info)
	}
	for _, r := range p.Plan(1).Runs {
		if r.Cost.String() != costs[r.Scenario] {
			t.Errorf("%s: the plan's cost %s, want the scenario's %s", r.Key(), r.Cost, costs[r.Scenario])
		}
	}
}

// TestParseCostErrors: a cost that cannot be is named with its line.
func TestParseCostErrors(t *testing.T) {
	dir := declaredDir(t)
	const head = `policy: {limit: 10, window: 1s}
algorithms:
  - name: mine
    script: limiters/checkout.lua
    keys: ["k:{${identity}}"]
    args: ["${cost}"]
    reply: {allowed: 1}
    semantics: fixed_window
scenarios:
  - shape: steady
    rate: 2x
    duration: 1s
`
	for _, tc := range []struct {
		why, yaml, want string
	}{
		{"zero", head + "    cost: 0\n", "p.yaml:13: scenarios[0].cost: cost 0: a request asks for at least 1 unit"},
		{"text", head + "    cost: lots\n", `p.yaml:13: scenarios[0].cost: "lots" is not a whole number`},
		{"a range of one number", head + "    cost: {uniform: [3]}\n", "scenarios[0].cost.uniform: want [lowest, highest]"},
		{"a range backwards", head + "    cost: {uniform: [5, 2]}\n", "scenarios[0].cost: the range 5-2 ends before it starts"},
		{"a weight that is not a number", head + "    cost: {weights: {1: often}}\n", `scenarios[0].cost.weights.1: the weight "often" is not a whole number`},
		{"both forms", head + "    cost: {uniform: [1, 2], weights: {1: 1}}\n", "scenarios[0].cost.weights: give either uniform or weights"},
		{"an unknown form", head + "    cost: {normal: 3}\n", `scenarios[0].cost.normal: unknown field`},
		{"more than the policy ever admits", head + "    cost: {uniform: [11, 12]}\n",
			"p.yaml:13: scenarios[0].cost: the cheapest request asks for 11 units, more than the policy 10 per 1s ever admits at once"},
		{"a cost no limiter is told", strings.Replace(head, `"${cost}"`, `"${limit}"`, 1) + "    cost: 2\n",
			"p.yaml:13: scenarios[0].cost: 2 units per request, but no limiter here takes ${cost} in its args"},
	} {
		_, err := Parse(filepath.Join(dir, "p.yaml"), []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
		}
	}
}

// TestParseDeclaredLimiterErrors: every wrong declaration names the file,
// the line and the field.
func TestParseDeclaredLimiterErrors(t *testing.T) {
	dir := declaredDir(t)
	const ok = "  - name: mine\n    script: limiters/checkout.lua\n    keys: [\"k:{${identity}}\"]\n    reply: {allowed: 1}\n    semantics: fixed_window\n"
	for _, tc := range []struct {
		why, algs, want string
	}{
		{"today's mistake: a file where a name goes",
			"  - ./my_limiter.lua\n", `p.yaml:7: algorithms[0]: "./my_limiter.lua" is a file: declare your own limiter as a mapping`},
		{"a missing file, resolved against the profile",
			strings.Replace(ok, "checkout.lua", "nope.lua", 1), `p.yaml:8: algorithms[0].script: cannot read ` + filepath.Join(dir, "limiters/nope.lua") + `: no such file or directory`},
		{"an empty file",
			strings.Replace(ok, "checkout.lua", "empty.lua", 1), `algorithms[0].script: ` + filepath.Join(dir, "limiters/empty.lua") + ` is empty`},
		{"no name",
			strings.Replace(ok, "name: mine", "semantic: x", 1), `p.yaml:7: algorithms[0].semantic: unknown field (did you mean "semantics"?`},
		{"a built-in's name",
			strings.Replace(ok, "name: mine", "name: token_bucket", 1), `p.yaml:7: algorithms[0].name: "token_bucket" is a built-in limiter`},
		{"the same name twice",
			ok + ok, `p.yaml:12: algorithms[1].name: "mine" is listed twice`},
		{"neither script nor library",
			"  - name: mine\n    keys: [\"k:{${identity}}\"]\n    reply: {allowed: 1}\n    semantics: fixed_window\n", `algorithms[0].script: missing: give script: <file.lua>, or function: <name> with library`},
		{"a library without the function to call",
			strings.Replace(ok, "script: limiters/checkout.lua", "library: limiters/lib.lua", 1), `algorithms[0].function: missing: name the function of the library`},
		{"a library without its #!lua line",
			strings.Replace(ok, "script: limiters/checkout.lua", "library: limiters/checkout.lua\n    function: f", 1), `p.yaml:7: algorithms[0]: library: a Redis Functions library starts with a line like "#!lua name=mylib"`},
		{"a key without the identity",
			strings.Replace(ok, `"k:{${identity}}"`, `"k:{${identity}}", "global"`, 1), `p.yaml:9: algorithms[0].KEYS[2]: "global" does not use ${identity}`},
		{"two keys without a shared hash tag: every call would fail CROSSSLOT on a cluster",
			strings.Replace(ok, `"k:{${identity}}"`, `"count:${identity}", "seen:${identity}"`, 1),
			`p.yaml:9: algorithms[0].KEYS[2]: "seen:${identity}" puts identity 0 in hash slot `},
		{"the second key's tag forgotten, and how to fix it",
			strings.Replace(ok, `"k:{${identity}}"`, `"count:{${identity}}", "seen:${identity}"`, 1),
			`on a Redis Cluster the keys of one call must share a slot; give every key the same hash tag, the identity in braces: e.g. "count:{${identity}}" and "seen:{${identity}}"`},
		{"an unknown variable",
			strings.Replace(ok, `"k:{${identity}}"`, `"k:{${user}}"`, 1), `p.yaml:9: algorithms[0].KEYS[1]: "k:{${user}}": unknown variable ${user} (known here: ${identity}, ${scenario})`},
		{"seconds of a window that has none",
			strings.Replace(ok, "    reply", "    args: [\"${window_s}\"]\n    reply", 1), ""},
		{"no allowed position",
			strings.Replace(ok, "{allowed: 1}", "{remaining: 2}", 1), `p.yaml:10: algorithms[0].reply.allowed: missing`},
		{"two parts at one position",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, remaining: 1}", 1), `p.yaml:10: algorithms[0].reply.remaining: position 1 is already allowed (remaining may share it when allowed reads when: nonnegative`},
		{"what is left, or -1 when denied, at one position",
			strings.Replace(ok, "{allowed: 1}", "{allowed: {position: 1, when: nonnegative}, remaining: 1}", 1), ""},
		{"an argument sent empty, as some applications send one their script no longer reads",
			strings.Replace(ok, "    reply", "    args: [\"${limit}\", \"\"]\n    reply", 1), ""},
		{"ARGV counted from 1, as the script counts it",
			strings.Replace(ok, "    reply", "    args: [\"${limit}\", \"\", \"${nope}\"]\n    reply", 1), `algorithms[0].ARGV[3]: "${nope}": unknown variable ${nope}`},
		{"admitting values alone: anything else denies",
			strings.Replace(ok, "{allowed: 1}", "{allowed: {position: 1, admit: OK}}", 1), ""},
		{"a reading of numbers beside texts",
			strings.Replace(ok, "{allowed: 1}", "{allowed: {position: 1, when: nonzero, admit: OK}}", 1), `p.yaml:10: algorithms[0].reply.allowed.when: give either when`},
		{"an unknown reading",
			strings.Replace(ok, "{allowed: 1}", "{allowed: {position: 1, when: truthy}}", 1), `algorithms[0].reply.allowed.when: unknown reading "truthy" (known: one, nonzero, positive, nonnegative, cost, zero, count)`},
		{"allowed as the cost, which the script is not told",
			strings.Replace(ok, "{allowed: 1}", "{allowed: {position: 1, when: cost}}", 1), `algorithms[0]: reply.allowed: when: cost reads the answer as the request's cost, but no argument passes ${cost}`},
		{"a retry-after without a unit",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, retry_after: {position: 2}}", 1), `p.yaml:10: algorithms[0].reply.retry_after.unit: missing: s, ms or us`},
		{"a retry-after as a bare position",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, retry_after: 2}", 1), `algorithms[0].reply.retry_after: want {position: N, unit: s|ms|us, none: ...}, got "2" (or retry_after_ms: N for milliseconds)`},
		{"an unknown unit",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, reset_at: {position: 2, unit: sec}}", 1), `algorithms[0].reply.reset_at.unit: unknown unit "sec" (known: s, ms, us)`},
		{"a count with a unit",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, remaining: {position: 2, unit: s}}", 1), `algorithms[0].reply.remaining.unit: a count takes no unit`},
		{"one part in full and short",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, retry_after: {position: 2, unit: s}, retry_after_ms: 3}", 1), `algorithms[0].reply.retry_after_ms: retry_after is given in full already`},
		{"two parts at one position, in full",
			strings.Replace(ok, "{allowed: 1}", "{allowed: 1, reset_at: {position: 2, unit: s}, window_end: {position: 2, unit: ms}}", 1), `algorithms[0].reply.window_end: position 2 is already reset_at`},
		{"a time source that is neither",
			ok + "    time_from: client\n", `p.yaml:12: algorithms[0].time_from: unknown time source "client"`},
		{"time from the args without a time in them",
			ok + "    time_from: args\n", `algorithms[0]: time_from: args, but no argument carries the time`},
		{"a misspelt semantics, with a hint",
			strings.Replace(ok, "fixed_window", "token_bukket", 1), `p.yaml:11: algorithms[0].semantics: unknown semantics "token_bukket" (known: fixed_window, sliding_log, token_bucket, leaky_bucket, gcra, bound) (did you mean "token_bucket"?)`},
		{"bound without the promise",
			strings.Replace(ok, "fixed_window", "bound", 1), `algorithms[0].bound: missing: semantics: bound checks the promise you give here`},
		{"a promise a family does not take",
			ok + "    bound: {admitted: 5}\n", `p.yaml:12: algorithms[0].bound: only semantics: bound takes a declared bound; fixed_window has its own`},
	} {
		yaml := "policy: {limit: 100, window: 1s}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 1s\nalgorithms:\n" + tc.algs
		_, err := Parse(filepath.Join(dir, "p.yaml"), []byte(yaml))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.why, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
		}
	}
	// ${window_s} with a window of 1.5s.
	yaml := "policy: {limit: 100, window: 1500ms}\nscenarios:\n  - shape: steady\n    rate: 2x\n    duration: 1s\nalgorithms:\n" +
		strings.Replace(ok, "    reply", "    args: [\"${window_s}\"]\n    reply", 1)
	_, err := Parse(filepath.Join(dir, "p.yaml"), []byte(yaml))
	if want := "p.yaml:7: algorithms[0]: ARGV[1]: ${window_s} needs a window of whole seconds, and the policy's is 1.5s"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("window_s:\n got: %v\nwant: %s", err, want)
	}
}
