package profile

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

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

// skeletonPolicy is the policy a skeleton declares, which sizes its
// scenarios.
var skeletonPolicy = algorithms.Policy{Limit: 100, Window: time.Second}

// Skeleton writes a commented profile that runs a user's Lua limiter (a
// script, or a Functions library) beside the built-in of the same family,
// through the steady, boundary and cardinality shapes. It reads the Lua
// for what it can: how many KEYS and ARGV it uses and what each argument
// is (by its name, and by what the code does with it: an expiry, a count
// compared with it, the time), the units the script counts time in, whose
// clock it decides by, the reply its return statements build, and which
// family its commands suggest. Every guess is marked "CHECK" in the
// profile and listed in checks; an argument it cannot place is written
// ${EDIT_ME} and an unknown family EDIT_ME, which validate refuses until
// they are replaced.
func Skeleton(o SkeletonOptions) (text []byte, checks []string, err error) {
	l, err := inspectLua(o.Source, o.Function)
	if err != nil {
		return nil, nil, err
	}
	if !namePattern.MatchString(o.Name) || algorithms.Known(o.Name) {
		return nil, nil, fmt.Errorf("%q cannot name a limiter: use 1-64 letters, digits, '.', '_' or '-', and not a built-in's name", o.Name)
	}
	if !utf8.ValidString(o.ScriptPath) || o.ScriptPath == "" {
		return nil, nil, fmt.Errorf("the file's path %q is not text a profile can name", o.ScriptPath)
	}
	v := skeletonView{Name: o.Name, Script: yamlScalar(o.ScriptPath), Function: l.function, Functions: strings.Join(l.functions, ", ")}
	for i := 1; i <= max(l.src.keys, 1); i++ {
		v.Keys = append(v.Keys, strconv.Quote(keyTemplate(i)))
	}
	if l.src.keys == 0 {
		checks = append(checks, "keys: the Lua reads no KEYS; a limiter must take the keys it touches in KEYS, so rlbench can put them under its run prefix")
	}
	v.Args = l.argGuesses
	for _, a := range l.argGuesses {
		checks = append(checks, "args: "+a.check)
	}
	v.TimeFrom, v.TimeWhy = string(l.timeFrom), l.timeWhy
	checks = append(checks, fmt.Sprintf("time_from: %s (%s)", l.timeFrom, l.timeWhy))
	v.Allowed = allowedText(l.reply.layout)
	v.AllowedNote = l.reply.notes["allowed"]
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		rv, ok := l.reply.layout.Value(part)
		if !ok {
			continue
		}
		field, value := positionText(part, rv)
		v.Reply = append(v.Reply, replyLine{Field: field, Value: value, Note: l.reply.notes[name]})
	}
	checks = append(checks, l.reply.checks...)
	v.ServerTime = l.reply.layout.Has(algorithms.PartServerTime)
	v.Cost = l.hasRole(roleCost)
	v.Semantics = string(l.semantics)
	switch {
	case l.semantics == "":
		v.Semantics = "EDIT_ME"
		why := fmt.Sprintf("say which algorithm the limiter implements (%s)", strings.Join(algorithms.SemanticsNames(), ", "))
		if l.semanticsCheck != "" {
			why = l.semanticsCheck
		}
		checks = append(checks, "semantics: "+why)
	case l.semantics.HasModel():
		v.Builtin = string(l.semantics)
		checks = append(checks, fmt.Sprintf("semantics: %s, guessed from %s", v.Semantics, l.semanticsWhy))
	}
	v.EdgeBurst, v.EdgeWhy = edgeBurst(l.semantics)
	v.WholeSeconds = slices.ContainsFunc(v.Args, func(a skeletonArg) bool { return strings.Contains(a.Value, "${window_s}") })
	var buf bytes.Buffer
	if err := skeletonTemplate.Execute(&buf, v); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), checks, nil
}

// edgeBurst is how many requests each burst of the skeleton's edge
// scenario sends: one more than the family's bound within one window, so
// that each side of a boundary alone offers more than the limiter may ever
// admit in a window, and one admission too many shows.
func edgeBurst(s algorithms.Semantics) (int64, string) {
	p := skeletonPolicy
	if b := s.Bound(p, p.Window); b > 0 {
		return b + 1, fmt.Sprintf("each side offers more than the %s bound in one window (%d), so one admission too many shows", s, b)
	}
	b := algorithms.SemanticsFixedWindow.Bound(p, p.Window)
	return b + 1, fmt.Sprintf("each side offers more than twice the limit (%d), the loosest family's bound in one window", b)
}

// allowedText renders reply.allowed: a position, or in full with how its
// value reads.
func allowedText(r algorithms.ReplyLayout) string {
	switch {
	case r.When != "" && r.When != algorithms.AllowedOne:
		return fmt.Sprintf("{position: %d, when: %s}", r.Allowed, r.When)
	case len(r.Admit)+len(r.Deny) > 0:
		var parts []string
		quote := func(vs []string) string {
			q := make([]string, len(vs))
			for i, v := range vs {
				q[i] = yamlScalar(v)
			}
			return "[" + strings.Join(q, ", ") + "]"
		}
		if len(r.Admit) > 0 {
			parts = append(parts, "admit: "+quote(r.Admit))
		}
		if len(r.Deny) > 0 {
			parts = append(parts, "deny: "+quote(r.Deny))
		}
		return fmt.Sprintf("{position: %d, %s}", r.Allowed, strings.Join(parts, ", "))
	}
	return strconv.Itoa(r.Allowed)
}

// yamlScalar quotes s for a YAML flow scalar: double quotes, with every
// character YAML would read otherwise escaped (strconv.Quote's escapes
// are YAML's for valid UTF-8). A plain number stays plain.
func yamlScalar(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil && strings.TrimSpace(s) == s {
		return s
	}
	return strconv.Quote(s)
}

// keyTemplate is the template a skeleton gives KEYS[i]: the identity in a
// hash tag, so a Redis Cluster keeps an identity's keys in one slot.
func keyTemplate(i int) string {
	if i == 1 {
		return "limiter:{${identity}}"
	}
	return fmt.Sprintf("limiter%d:{${identity}}", i)
}

// luaLimiter is what Skeleton could read from a limiter's Lua.
type luaLimiter struct {
	// function and functions: a library's chosen and registered functions.
	function  string
	functions []string
	src       *luaSource
	// argGuesses are the argument templates, in order.
	argGuesses []skeletonArg
	reply      replyGuess
	// timeFrom is whose clock it decides by, and timeWhy why init thinks so.
	timeFrom algorithms.TimeSource
	timeWhy  string
	// semantics is the family guessed, semanticsWhy from what; or, with no
	// family, semanticsCheck what to do.
	semantics      algorithms.Semantics
	semanticsWhy   string
	semanticsCheck string
}

var registerFunction = regexp.MustCompile(`register_function\s*\(?\s*(?:\{\s*function_name\s*=\s*)?['"]([A-Za-z0-9_]+)['"]`)

// inspectLua reads what it can of a limiter's Lua.
func inspectLua(src, function string) (*luaLimiter, error) {
	l := &luaLimiter{}
	library := strings.HasPrefix(strings.TrimSpace(src), "#!lua")
	if library {
		for _, m := range registerFunction.FindAllStringSubmatch(stripLuaComments(src), -1) {
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
	l.src = readLuaSource(src, library)
	l.guessArgs()
	l.guessTime()
	l.reply = l.guessReply()
	l.guessSemantics()
	return l, nil
}

// skeletonView is what the profile template fills in.
type skeletonView struct {
	Name, Script, Function, Functions string
	Keys                              []string
	Args                              []skeletonArg
	TimeFrom, TimeWhy                 string
	Allowed, AllowedNote              string
	Reply                             []replyLine
	ServerTime, Cost                  bool
	Semantics                         string
	Builtin                           string
	WholeSeconds                      bool
	EdgeBurst                         int64
	EdgeWhy                           string
}

// replyLine is one optional reply part as the profile writes it.
type replyLine struct{ Field, Value, Note string }

var skeletonTemplate = template.Must(template.New("profile").Funcs(template.FuncMap{"quote": strconv.Quote}).Parse(`# A profile for your own limiter, written by rlbench init. Every line
# marked CHECK is a guess from reading the Lua: check it, replace any
# EDIT_ME, then:
#
#   rlbench validate {{.Name}}.yaml && rlbench run {{.Name}}.yaml
#
# rlbench runs your limiter beside {{if .Builtin}}its built-in {{.Builtin}}{{else}}nothing else{{end}} through three
# traffic shapes and audits every decision against what its semantics
# promise (see rlbench's docs/your-limiter.md, "Benchmark your own limiter").
name: {{.Name}}
policy:                      # the one policy every limiter here interprets
  limit: 100                 #   requests (units) admitted per window, per identity
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
    args:                    # ARGV, in order: ${limit} ${window_s} ${window_ms} ${window_us} ${burst}
                             # ${rate_per_s} ${cost} ${now_s} ${now_s_float} ${now_ms} ${now_us}
                             # ${identity} ${scenario} ${request_id}
{{- range .Args}}
      - {{quote .Value}}    # {{.Comment}}
{{- end}}
{{- end}}
    time_from: {{.TimeFrom}}         # CHECK: {{.TimeWhy}}
    reply:                   # 1-based positions in the reply; CHECK them
      allowed: {{.Allowed}}    # CHECK: {{.AllowedNote}}
{{- range .Reply}}
      {{.Field}}: {{.Value}}    # CHECK: {{.Note}}
{{- end}}
      # Parts a reply may carry, in a unit (s, ms, us), with values that mean none:
      #   remaining: 2, retry_after: {position: 3, unit: s, none: -1},
      #   reset_after: {...}, reset_at: {...}, window_end: {...},
      #   server_time: {position: 4, unit: us}: the TIME the decision used; lets the audit replay exactly
    # fixed_window | sliding_log (sliding_window) | token_bucket | leaky_bucket | gcra,
    # or bound with bound: {admitted: 100, per: 1s} to check only that promise
    semantics: {{.Semantics}}{{if ne .Semantics "EDIT_ME"}}    # CHECK{{end}}
concurrency: 32
scenarios:
  - name: steady             # a constant offered load, three times what the policy admits: more
    shape: steady            # than any family's bound within a window, so an excess can show
    rate: 3x
    arrival: poisson
    identities: 20
    duration: 5s
{{- if .Cost}}
    # cost: {uniform: [1, 4]}  # requests of 1 to 4 units, passed as ${cost} (default: 1)
{{- end}}
  - name: edge               # bursts on both sides of each identity's window boundary
    shape: boundary
    identities: 20
    burst: {{.EdgeBurst}}               # {{.EdgeWhy}}
    offset: 50ms             # each burst this far from the boundary: wide, so a busy machine does not push one across it
  - name: many               # memory per identity, at 10,000 identities
    shape: cardinality
    identities: 10000
    distribution: sequential
    rate: max
    accept_inconclusive: true  # one request per identity: it measures memory, and cannot show an excess
thresholds:                  # the verdict and the exit code: a CI gate
  - "*/* audit.overshoot == 0"
{{- if .ServerTime}}
  - "*/* audit.model_mismatches == 0"
{{- end}}
  - "*/* memory.keys_without_ttl == 0"
  - "{{.Name}}/* memory.keys_outside_prefix == 0"
`))
