package profile

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/rlbench/rlbench/algorithms"
)

// SkeletonOptions describe the limiter a profile skeleton is written for.
type SkeletonOptions struct {
	// Name names the limiter (and the profile).
	Name string
	// ScriptPath is the Lua file as the profile will name it: relative to
	// the profile's directory.
	ScriptPath string
	// Source is the file's Lua.
	Source string
	// Function is the function of a Functions library to call; empty picks
	// the library's first registered function.
	Function string
}

// Skeleton writes a commented profile that runs a user's Lua limiter (a
// script, or a Functions library) beside the built-in of the same family,
// through the steady, boundary and cardinality shapes. It reads the Lua
// for what it can: how many KEYS and ARGV it uses and what their local
// variables are called, the shape of its reply, whether it uses TIME, and
// which family its commands suggest. Every guess it could not make with
// confidence is marked "CHECK" in the profile and listed in checks; an
// unknown family leaves semantics for the user to fill in.
func Skeleton(o SkeletonOptions) (text []byte, checks []string, err error) {
	l, err := inspectLua(o.Source, o.Function)
	if err != nil {
		return nil, nil, err
	}
	if !namePattern.MatchString(o.Name) || algorithms.Known(o.Name) {
		return nil, nil, fmt.Errorf("%q cannot name a limiter: use 1-64 letters, digits, '.', '_' or '-', and not a built-in's name", o.Name)
	}
	v := skeletonView{Name: o.Name, Script: o.ScriptPath, Function: l.function, Functions: strings.Join(l.functions, ", "), Lua: l}
	for i := 1; i <= max(l.keys, 1); i++ {
		v.Keys = append(v.Keys, strconv.Quote(keyTemplate(i)))
	}
	if l.keys == 0 {
		checks = append(checks, "keys: the Lua reads no KEYS; a limiter must take the keys it touches in KEYS, so rlbench can put them under its run prefix")
	}
	for i := 1; i <= l.args; i++ {
		a := argTemplate(i, l.argNames[i], l)
		if a.check != "" {
			checks = append(checks, fmt.Sprintf("args[%d] (ARGV[%d]): %s", i-1, i, a.check))
		}
		v.Args = append(v.Args, a)
	}
	v.Reply = l.reply
	if l.replyCheck != "" {
		checks = append(checks, "reply: "+l.replyCheck)
	}
	v.Semantics = string(l.semantics)
	switch {
	case l.semantics == "":
		v.Semantics = "EDIT_ME"
		checks = append(checks, fmt.Sprintf("semantics: say which algorithm the limiter implements (%s)", strings.Join(algorithms.SemanticsNames(), ", ")))
	case l.semantics.HasModel():
		v.Builtin = string(l.semantics)
	}
	if v.Semantics != "EDIT_ME" {
		checks = append(checks, fmt.Sprintf("semantics: %s, guessed from %s", v.Semantics, l.semanticsWhy))
	}
	v.WholeSeconds = slices.ContainsFunc(v.Args, func(a skeletonArg) bool { return strings.Contains(a.Value, "${window_s}") })
	var buf bytes.Buffer
	if err := skeletonTemplate.Execute(&buf, v); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), checks, nil
}

// keyTemplate is the template a skeleton gives KEYS[i]: the identity in a
// hash tag, so a Redis Cluster keeps an identity's keys in one slot.
func keyTemplate(i int) string {
	if i == 1 {
		return "limiter:{${identity}}"
	}
	return fmt.Sprintf("limiter%d:{${identity}}", i)
}

// skeletonArg is one ARGV template of a skeleton, with what to check.
type skeletonArg struct {
	Value, Comment string
	check          string
}

// argTemplate guesses the template of ARGV[i] from the name of the
// variable the Lua reads it into, or from the command it is passed to.
func argTemplate(i int, name string, l *luaLimiter) skeletonArg {
	n := strings.ToLower(name)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(n, w) })
	}
	note := fmt.Sprintf("ARGV[%d] %s", i, name)
	switch {
	case name == "":
		return skeletonArg{Value: "${limit}", Comment: fmt.Sprintf("ARGV[%d]; CHECK: what it is", i), check: "not named in the Lua; guessed ${limit}"}
	case n == "(pexpire)":
		return skeletonArg{Value: "${window_ms}", Comment: fmt.Sprintf("ARGV[%d], passed to PEXPIRE", i)}
	case n == "(expire)":
		return skeletonArg{Value: "${window_s}", Comment: fmt.Sprintf("ARGV[%d], passed to EXPIRE", i)}
	case has("burst", "capacity", "bucket", "size", "full", "cap"):
		return skeletonArg{Value: "${burst}", Comment: note}
	case has("limit", "max", "quota", "rate", "count", "allowed"):
		return skeletonArg{Value: "${limit}", Comment: note}
	case has("window", "period", "interval", "ttl", "expire", "duration", "span"):
		switch {
		case strings.HasSuffix(n, "_us") || has("micro"):
			return skeletonArg{Value: "${window_us}", Comment: note}
		case strings.HasSuffix(n, "_ms") || has("milli", "pexpire"):
			return skeletonArg{Value: "${window_ms}", Comment: note}
		case strings.HasSuffix(n, "_s") || has("sec"):
			return skeletonArg{Value: "${window_s}", Comment: note}
		case l.expiresInSeconds:
			return skeletonArg{Value: "${window_s}", Comment: note + "; CHECK: seconds, as the Lua's EXPIRE takes", check: "the window's unit: guessed seconds, as the Lua calls EXPIRE"}
		}
		return skeletonArg{Value: "${window_ms}", Comment: note + "; CHECK: the unit (${window_s}, ${window_ms} or ${window_us})", check: "the window's unit: guessed milliseconds"}
	case has("now", "time", "clock", "ts"):
		return skeletonArg{Value: "${now_ms}", Comment: note + "; the client's clock, in ms", check: "the Lua takes the time from the client: guessed ${now_ms} (milliseconds)"}
	case has("id", "uuid", "member", "request", "nonce"):
		return skeletonArg{Value: "${request_id}", Comment: note + "; unique per request"}
	}
	return skeletonArg{Value: "${limit}", Comment: note + "; CHECK: what it is", check: fmt.Sprintf("%q: no guess; wrote ${limit}", name)}
}

// luaLimiter is what Skeleton could read from a limiter's Lua.
type luaLimiter struct {
	// function and functions: a library's chosen and registered functions.
	function  string
	functions []string
	keys      int
	args      int
	argNames  map[int]string
	// reply is the declared layout guessed from the return tables.
	reply      algorithms.ReplyLayout
	replyCheck string
	// usesTime says the script reads Redis TIME.
	usesTime         bool
	expiresInSeconds bool
	semantics        algorithms.Semantics
	semanticsWhy     string
}

var (
	registerFunction = regexp.MustCompile(`register_function\s*\(?\s*(?:\{\s*function_name\s*=\s*)?['"]([A-Za-z0-9_]+)['"]`)
	keyIndex         = regexp.MustCompile(`\b(?:KEYS|keys)\[(\d+)\]`)
	argIndex         = regexp.MustCompile(`\b(?:ARGV|args|argv)\[(\d+)\]`)
	argLocal         = regexp.MustCompile(`local\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:tonumber\s*\(\s*)?(?:ARGV|args|argv)\[(\d+)\]`)
	argExpiry        = regexp.MustCompile(`(?i)['"](p?expire)['"]\s*,\s*[^,]+,\s*(?:tonumber\s*\(\s*)?(?:ARGV|args|argv)\[(\d+)\]`)
	returnTable      = regexp.MustCompile(`return\s*\{([^{}]*)\}`)
	usesCommand      = func(cmd string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)redis\.p?call\s*\(\s*['"]` + cmd + `['"]`)
	}
)

// inspectLua reads what it can of a limiter's Lua.
func inspectLua(src, function string) (*luaLimiter, error) {
	l := &luaLimiter{argNames: map[int]string{}}
	if strings.HasPrefix(strings.TrimSpace(src), "#!lua") {
		for _, m := range registerFunction.FindAllStringSubmatch(src, -1) {
			l.functions = append(l.functions, m[1])
		}
		switch {
		case function != "" && !slices.Contains(l.functions, function):
			return nil, fmt.Errorf("the library registers no function %q (it registers: %s)", function, strings.Join(l.functions, ", "))
		case function != "":
			l.function = function
		case len(l.functions) == 0:
			return nil, fmt.Errorf("the library registers no function (redis.register_function)")
		default:
			l.function = l.functions[0]
		}
	} else if function != "" {
		return nil, fmt.Errorf("a function is given, but the file is a script, not a Functions library (its first line would be #!lua name=...)")
	}
	for _, m := range keyIndex.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[1])
		l.keys = max(l.keys, min(n, algorithms.MaxDeclaredKeys))
	}
	for _, m := range argIndex.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[1])
		l.args = max(l.args, min(n, algorithms.MaxDeclaredArgs))
	}
	for _, m := range argLocal.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[2])
		if _, seen := l.argNames[n]; !seen {
			l.argNames[n] = m[1]
		}
	}
	// An argument passed straight to EXPIRE or PEXPIRE is the window.
	for _, m := range argExpiry.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[2])
		if _, seen := l.argNames[n]; !seen {
			l.argNames[n] = "(" + strings.ToUpper(m[1]) + ")"
		}
	}
	l.usesTime = usesCommand("TIME").MatchString(src)
	l.expiresInSeconds = usesCommand("EXPIRE").MatchString(src) && !usesCommand("PEXPIRE").MatchString(src)
	l.readReply(src)
	l.guessSemantics(src)
	return l, nil
}

// readReply guesses the reply layout from the longest tables the Lua
// returns: the first element is taken for the answer, and each other
// position by what it holds in any of them.
func (l *luaLimiter) readReply(src string) {
	l.reply = algorithms.ReplyLayout{Allowed: 1}
	var tables [][]string
	for _, m := range returnTable.FindAllStringSubmatch(src, -1) {
		elems := splitTopLevel(m[1])
		switch {
		case len(tables) == 0 || len(elems) > len(tables[0]):
			tables = [][]string{elems}
		case len(elems) == len(tables[0]):
			tables = append(tables, elems)
		}
	}
	if len(tables) == 0 || len(tables[0]) == 0 {
		l.replyCheck = "no table returned: guessed a single value, 1/0 or true/false, at position 1"
		return
	}
	var unknown []string
	for pos := 2; pos <= len(tables[0]); pos++ {
		found := false
		for _, t := range tables {
			if found = l.readReplyElement(pos, strings.ToLower(t[pos-1])); found {
				break
			}
		}
		if !found {
			unknown = append(unknown, fmt.Sprintf("position %d (%s)", pos, strings.TrimSpace(tables[0][pos-1])))
		}
	}
	if len(unknown) > 0 {
		l.replyCheck = "not read: " + strings.Join(unknown, ", ")
	}
}

// readReplyElement places reply position pos by what its element e says.
func (l *luaLimiter) readReplyElement(pos int, e string) bool {
	switch {
	case strings.Contains(e, "remain") || strings.Contains(e, "left") || strings.Contains(e, "limit -") || strings.Contains(e, "tokens"):
		l.reply.Remaining = pos
	case strings.Contains(e, "retry") || strings.Contains(e, "wait") || strings.Contains(e, "ttl"):
		l.reply.RetryAfterMs = pos
	case l.usesTime && (strings.Contains(e, "now") || strings.Contains(e, "time")):
		l.reply.ServerTimeUs = pos
	default:
		return false
	}
	return true
}

// splitTopLevel splits a Lua table's elements at the commas outside any
// brackets or strings.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			depth--
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// guessSemantics names the family the Lua's commands and words suggest.
func (l *luaLimiter) guessSemantics(src string) {
	lower := strings.ToLower(src)
	word := func(w string) bool { return regexp.MustCompile(`\b` + w + `\b`).MatchString(lower) }
	switch {
	case word("tat") || strings.Contains(lower, "theoretical arrival") || strings.Contains(lower, "gcra"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsGCRA, "its theoretical arrival time (tat)"
	case usesCommand("ZADD").MatchString(src) && usesCommand("ZREMRANGEBYSCORE").MatchString(src):
		l.semantics, l.semanticsWhy = algorithms.SemanticsSlidingLog, "ZADD and ZREMRANGEBYSCORE (a log of request times)"
	case strings.Contains(lower, "leak") || word("level") || strings.Contains(lower, "drain"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsLeakyBucket, "its level and leak"
	case strings.Contains(lower, "token") && (usesCommand("HSET").MatchString(src) || usesCommand("HMSET").MatchString(src) || usesCommand("HMGET").MatchString(src)):
		l.semantics, l.semanticsWhy = algorithms.SemanticsTokenBucket, "its tokens in a hash"
	case usesCommand("INCR").MatchString(src) || usesCommand("INCRBY").MatchString(src):
		l.semantics, l.semanticsWhy = algorithms.SemanticsFixedWindow, "INCR with an expiry (a counter per window)"
	}
}

// skeletonView is what the profile template fills in.
type skeletonView struct {
	Name, Script, Function, Functions string
	Keys                              []string
	Args                              []skeletonArg
	Reply                             algorithms.ReplyLayout
	Semantics                         string
	Builtin                           string
	WholeSeconds                      bool
	Lua                               *luaLimiter
}

var skeletonTemplate = template.Must(template.New("profile").Funcs(template.FuncMap{"quote": strconv.Quote}).Parse(`# A profile for your own limiter, written by rlbench init. Check the lines
# marked CHECK, then:
#
#   rlbench validate {{.Name}}.yaml && rlbench run {{.Name}}.yaml
#
# rlbench runs your limiter beside {{if .Builtin}}its built-in {{.Builtin}}{{else}}nothing else{{end}} through three
# traffic shapes and audits every decision against what its semantics
# promise (see rlbench's docs/your-limiter.md, "Benchmark your own limiter").
name: {{.Name}}
policy:                      # the one policy every limiter here interprets
  limit: 100                 #   requests admitted per window, per identity
  window: 1s                 #   {{if .WholeSeconds}}whole seconds: ${window_s} needs them{{else}}a whole number of milliseconds{{end}}
  # burst: 100               #   bucket capacity (default: limit)
algorithms:
{{- if .Builtin}}
  - {{.Builtin}}              # rlbench's own, for comparison
{{- end}}
  - name: {{.Name}}
{{- if .Function}}
    function: {{.Function}}{{if .Functions}}  # registered: {{.Functions}}{{end}}
    library: {{.Script}}
{{- else}}
    script: {{.Script}}      # relative to this file
{{- end}}
    # KEYS: rlbench puts its run prefix in front of each; ${identity} in a
    # {hash tag} keeps one identity's keys in one Redis Cluster slot.
    keys: [{{range $i, $k := .Keys}}{{if $i}}, {{end}}{{$k}}{{end}}]
{{- if .Args}}
    args:                    # ARGV, in order: ${limit} ${window_ms} ${window_s} ${window_us}
                             # ${burst} ${identity} ${scenario} ${request_id} ${now_ms}
{{- range .Args}}
      - {{quote .Value}}{{if .Comment}}    # {{.Comment}}{{end}}
{{- end}}
{{- end}}
    reply:                   # 1-based positions in the reply; CHECK them
      allowed: {{.Reply.Allowed}}               #   1/0 or true/false; for strings: {position: 1, admit: [OK], deny: [LIMITED]}
{{- if .Reply.Remaining}}
      remaining: {{.Reply.Remaining}}
{{- else}}
      # remaining: 2         #   what is left after the request
{{- end}}
{{- if .Reply.RetryAfterMs}}
      retry_after_ms: {{.Reply.RetryAfterMs}}
{{- else}}
      # retry_after_ms: 3    #   how long until a retry is admitted
{{- end}}
{{- if .Reply.ServerTimeUs}}
      server_time_us: {{.Reply.ServerTimeUs}}        #   the TIME the decision used: the audit replays every decision exactly
{{- else}}
      # server_time_us: 4    #   the Redis TIME the decision used, in us: lets the audit replay exactly
{{- end}}
    # fixed_window | sliding_log (sliding_window) | token_bucket | leaky_bucket | gcra,
    # or bound with bound: {admitted: 100, per: 1s} to check only that promise
    semantics: {{.Semantics}}
concurrency: 32
scenarios:
  - name: steady             # a constant offered load, twice what the policy admits
    shape: steady
    rate: 2x
    arrival: poisson
    identities: 20
    duration: 5s
  - name: edge               # bursts on both sides of each identity's window boundary
    shape: boundary
    identities: 20
  - name: many               # memory per identity, at 10,000 identities
    shape: cardinality
    identities: 10000
    distribution: sequential
    rate: max
thresholds:                  # the verdict and the exit code: a CI gate
  - "*/* audit.overshoot == 0"
{{- if .Reply.ServerTimeUs}}
  - "*/* audit.model_mismatches == 0"
{{- end}}
  - "*/* memory.keys_without_ttl == 0"
  - "{{.Name}}/* memory.keys_outside_prefix == 0"
`))
