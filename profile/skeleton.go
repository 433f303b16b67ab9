package profile

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
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
	// ProfilePath is where the profile is written, as its user names it
	// (what the profile's first lines tell them to validate and run);
	// empty says <Name>.yaml.
	ProfilePath string
}

// skeletonPolicy is the policy a skeleton declares, which sizes its
// scenarios.
var skeletonPolicy = algorithms.Policy{Limit: 100, Window: time.Second}

// Skeleton writes a commented profile that runs a user's Lua limiter (a
// script, or a Functions library) beside the built-in of the same family,
// through the steady, boundary and cardinality shapes: NewDraft's reading,
// rendered as it is, with every guess marked "CHECK" in the profile and
// listed in checks. An argument it cannot place is written ${EDIT_ME} and
// an unknown family EDIT_ME, which validate refuses until they are
// replaced.
func Skeleton(o SkeletonOptions) (text []byte, checks []string, err error) {
	d, err := NewDraft(o)
	if err != nil {
		return nil, nil, err
	}
	text, err = d.Render()
	return text, d.Checks(), err
}

// NewDraft reads the Lua for what it can: how many KEYS and ARGV it uses
// and what each argument is (by its name, by what the code does with it:
// an expiry, a count compared with it, a cost added to a count, the time),
// the units the script counts time in (from names, expiries and its
// arithmetic), whose clock it decides by (a TIME fallback included), the
// reply its return statements build (which position answers and which way
// round), and which family its commands suggest.
func NewDraft(o SkeletonOptions) (*Draft, error) {
	l, err := inspectLua(o.Source, o.Function)
	if err != nil {
		return nil, err
	}
	if !namePattern.MatchString(o.Name) || algorithms.Known(o.Name) {
		return nil, fmt.Errorf("%q cannot name a limiter: use 1-64 letters, digits, '.', '_' or '-', and not a built-in's name", o.Name)
	}
	if !utf8.ValidString(o.ScriptPath) || o.ScriptPath == "" {
		return nil, fmt.Errorf("the file's path %q is not text a profile can name", o.ScriptPath)
	}
	d := &Draft{o: o, l: l}
	v := skeletonView{Name: o.Name, Script: yamlScalar(o.ScriptPath), Function: l.function, Functions: strings.Join(l.functions, ", "),
		Profile: shellWord(cmp.Or(o.ProfilePath, o.Name+".yaml"))}
	for i := 1; i <= max(l.src.keys, 1); i++ {
		d.keys = append(d.keys, keyTemplate(i))
		v.Keys = append(v.Keys, strconv.Quote(keyTemplate(i)))
	}
	if l.src.keys == 0 {
		d.checks = append(d.checks, "keys: the Lua reads no KEYS; a limiter must take the keys it touches in KEYS, so rlbench can put them under its run prefix")
	}
	v.Args = slices.Clone(l.argGuesses)
	for _, a := range l.argGuesses {
		d.checks = append(d.checks, "args: "+a.check)
	}
	v.TimeFrom, v.TimeWhy, v.TimeCheck = string(l.timeFrom), l.timeWhy, true
	d.checks = append(d.checks, fmt.Sprintf("time_from: %s (%s)", l.timeFrom, l.timeWhy))
	v.setReply(l.reply.layout, l.reply.notes, func(string) bool { return true })
	d.checks = append(d.checks, l.reply.checks...)
	v.Cost = l.hasRole(roleCost)
	v.SemanticsCheck = true
	switch s := l.semantics; {
	case s == "":
		v.Semantics = "EDIT_ME"
		why := fmt.Sprintf("say which algorithm the limiter implements (%s)", strings.Join(algorithms.SemanticsNames(), ", "))
		if l.semanticsCheck != "" {
			why = l.semanticsCheck
		}
		d.checks = append(d.checks, "semantics: "+why)
	case s == algorithms.SemanticsBound:
		v.setBound(l.boundOf, l.semanticsWhy)
		d.checks = append(d.checks, fmt.Sprintf("semantics: bound, the %s's bound in one window: %s", l.boundOf, l.semanticsWhy))
	default:
		v.Semantics, v.Builtin = string(s), string(s)
		d.checks = append(d.checks, fmt.Sprintf("semantics: %s, guessed from %s", s, l.semanticsWhy))
	}
	v.finish()
	d.view = v
	return d, nil
}

// setReply fills the reply's lines from layout: each with what it was read
// from (notes, by part name and "allowed") and whether it stays a CHECK.
func (v *skeletonView) setReply(layout algorithms.ReplyLayout, notes map[string]string, check func(field string) bool) {
	v.Allowed, v.AllowedNote, v.AllowedCheck = allowedText(layout), notes["allowed"], check("reply.allowed")
	v.Reply = nil
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		rv, ok := layout.Value(part)
		if !ok {
			continue
		}
		field, value := positionText(part, rv)
		v.Reply = append(v.Reply, replyLine{Field: field, Value: value, Note: notes[name], Check: check("reply." + name), part: name})
	}
	v.ServerTime = layout.Has(algorithms.PartServerTime)
}

// setBound declares semantics: bound with the bound family s keeps in one
// window of the skeleton's policy.
func (v *skeletonView) setBound(s algorithms.Semantics, why string) {
	p := skeletonPolicy
	v.Semantics, v.Builtin = string(algorithms.SemanticsBound), ""
	if s.HasModel() {
		v.Builtin = string(s)
	}
	v.Bound = fmt.Sprintf("{admitted: %d, per: %s}", s.Bound(p, p.Window), p.Window)
	v.BoundWhy = fmt.Sprintf("the %s's bound in one window of the policy above: change it with the policy", s)
	v.SemanticsNote = why
}

// finish sets what follows from the rest: the edge scenario's burst, and
// whether the window must be whole seconds.
func (v *skeletonView) finish() {
	family := algorithms.Semantics(v.Semantics)
	if family == algorithms.SemanticsBound {
		family = algorithms.Semantics(v.Builtin)
	}
	v.EdgeBurst, v.EdgeWhy = edgeBurst(family)
	v.WholeSeconds = slices.ContainsFunc(v.Args, func(a skeletonArg) bool { return strings.Contains(a.Value, "${window_s}") })
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
	// boundOf is, for semantics: bound, the family whose bound in one
	// window it keeps.
	boundOf algorithms.Semantics
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
	l.guessSemantics()
	l.reply = l.guessReply()
	return l, nil
}

// skeletonView is what the profile template fills in: each line's value,
// what it was read from, and whether it stays marked CHECK.
type skeletonView struct {
	Name, Script, Function, Functions string
	// Profile is the profile's path as a shell word, for the command its
	// first lines give.
	Profile                  string
	Calibrated               string
	Keys                     []string
	Args                     []skeletonArg
	TimeFrom, TimeWhy        string
	TimeCheck                bool
	TimeNotes                []string
	Allowed, AllowedNote     string
	AllowedCheck             bool
	AllowedNotes             []string
	Reply                    []replyLine
	ReplyNotes               []string
	ServerTime, Cost         bool
	Semantics, SemanticsNote string
	SemanticsCheck           bool
	SemanticsNotes           []string
	Bound, BoundWhy          string
	Builtin                  string
	WholeSeconds             bool
	EdgeBurst                int64
	EdgeWhy                  string
}

// replyLine is one optional reply part as the profile writes it.
type replyLine struct {
	Field, Value, Note string
	Check              bool
	Notes              []string
	// part is the part's name ("retry_after"), whatever form Field takes.
	part string
}

var skeletonTemplate = template.Must(template.New("profile").Funcs(template.FuncMap{"quote": strconv.Quote}).Parse(`# A profile for your own limiter, written by rlbench init.
{{- if .Calibrated}} It read the Lua,
# then checked its reading against a real Redis:
#   {{.Calibrated}}
# Lines marked CHECK are what it still doubts: check them, replace any
# EDIT_ME, then:
{{- else}} Every line
# marked CHECK is a guess from reading the Lua: check it, replace any
# EDIT_ME, then:
{{- end}}
#
#   rlbench validate {{.Profile}} && rlbench run {{.Profile}}
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
    args:                    # ARGV[1], ARGV[2], ... in order: ${limit} ${window_s} ${window_ms} ${window_us}
                             # ${burst} ${rate_per_s} ${rate_per_ms} ${cost} ${now_s} ${now_s_float} ${now_ms}
                             # ${now_us} ${identity} ${scenario} ${request_id}, or "" (sent empty)
{{- range .Args}}
{{- range .Notes}}
      # {{.}}
{{- end}}
      - {{quote .Value}}    # {{.Comment}}{{if .Check}}; CHECK{{end}}
{{- end}}
{{- end}}
{{- range .TimeNotes}}
    # {{.}}
{{- end}}
    time_from: {{.TimeFrom}}         # {{if .TimeCheck}}CHECK: {{end}}{{.TimeWhy}}
    reply:                   # 1-based positions in the reply{{if not .Calibrated}}; CHECK them{{end}}
{{- range .ReplyNotes}}
      # {{.}}
{{- end}}
{{- range .AllowedNotes}}
      # {{.}}
{{- end}}
      allowed: {{.Allowed}}    # {{if .AllowedCheck}}CHECK: {{end}}{{.AllowedNote}}
{{- range .Reply}}
{{- range .Notes}}
      # {{.}}
{{- end}}
      {{.Field}}: {{.Value}}    # {{if .Check}}CHECK: {{end}}{{.Note}}
{{- end}}
      # Parts a reply may carry, in a unit (s, ms, us), with values that mean none:
      #   remaining: 2, retry_after: {position: 3, unit: s, none: -1},
      #   reset_after: {...}, reset_at: {...}, window_end: {...},
      #   server_time: {position: 4, unit: us}: the TIME the decision used; lets the audit replay exactly
    # fixed_window | sliding_log (sliding_window) | token_bucket | leaky_bucket | gcra,
    # or bound with bound: {admitted: 100, per: 1s} to check only that promise
{{- range .SemanticsNotes}}
    # {{.}}
{{- end}}
    semantics: {{.Semantics}}{{if ne .Semantics "EDIT_ME"}}{{if .SemanticsCheck}}    # CHECK{{if .SemanticsNote}}: {{.SemanticsNote}}{{end}}{{else if .SemanticsNote}}    # {{.SemanticsNote}}{{end}}{{end}}
{{- if .Bound}}
    bound: {{.Bound}}    # {{.BoundWhy}}
{{- end}}
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

// shellWord quotes path for a shell command in a comment of the profile:
// as it is when it holds only letters, digits and "._/-+,=:@"; else in
// single quotes; a path with a character a comment line cannot hold (a
// control character, text that is not UTF-8) as "PROFILE.yaml".
func shellWord(path string) string {
	if !utf8.ValidString(path) || strings.ContainsFunc(path, unicode.IsControl) {
		return "PROFILE.yaml"
	}
	if path != "" && !strings.ContainsFunc(path, func(r rune) bool {
		return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._/-+,=:@", r)))
	}) {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
