package profile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/suggest"
)

// MaxSourceBytes bounds the Lua file of a declared limiter.
const MaxSourceBytes = 1 << 20

var (
	declarationFields = []string{"name", "script", "function", "library", "keys", "args", "reply", "semantics", "bound", "time_from"}
	replyFields       = []string{"allowed", "remaining", "retry_after", "retry_after_ms", "reset_after", "reset_at", "window_end", "server_time", "server_time_us"}
	allowedFields     = []string{"position", "when", "admit", "deny"}
	replyValueFields  = []string{"position", "unit", "none"}
	promiseFields     = []string{"admitted", "per"}
)

// Declaration returns the user limiter the profile declares under name, or
// nil when name is a built-in.
func (p *Profile) Declaration(name string) *algorithms.Declaration {
	for _, d := range p.Declared {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// parseDeclaration reads one entry of the algorithms list that is a
// mapping: a user's limiter. Its script or library is read from a file
// relative to the profile. It returns nil when the entry is wrong (the
// errors are recorded).
func parseDeclaration(d *decoder, n *yaml.Node, path string) *algorithms.Declaration {
	f := d.mapping(n, path, declarationFields...)
	before := len(d.errs)
	decl := &algorithms.Declaration{}
	if !f.has("name") {
		f.errorf("name", "missing: give your limiter a name (used in keys, reports and thresholds)")
	}
	f.str("name", &decl.Name)
	if decl.Name != "" && !namePattern.MatchString(decl.Name) {
		f.errorf("name", "%q must be 1-64 letters, digits, '.', '_' or '-'", decl.Name)
	} else if algorithms.Known(decl.Name) {
		f.errorf("name", "%q is a built-in limiter; give your limiter a name of its own", decl.Name)
	}

	switch {
	case f.has("script") && f.has("library"):
		f.errorf("library", "give either script (a Lua script) or function and library (a Redis Function), not both")
	case f.has("script"):
		decl.Script, decl.SourcePath = readSource(f, "script")
		if f.has("function") {
			f.errorf("function", "a script is called as a whole; function goes with library (a Redis Functions library)")
		}
	case f.has("library"):
		decl.Library, decl.SourcePath = readSource(f, "library")
		f.str("function", &decl.Function)
		if !f.has("function") {
			f.errorf("function", "missing: name the function of the library to call with FCALL")
		}
	default:
		f.errorf("script", "missing: give script: <file.lua>, or function: <name> with library: <file.lua> for a Redis Function")
	}

	decl.Keys = parseTemplates(f, "keys", algorithms.KeyVariables)
	if !f.has("keys") {
		f.errorf("keys", `missing: give the key templates, e.g. ["limiter:{${identity}}"]`)
	}
	if len(d.errs) == before {
		checkKeySlots(f, decl)
	}
	decl.Args = parseTemplates(f, "args", algorithms.ArgVariables)
	decl.CallsTime = callsTime(decl.Script + decl.Library)
	decl.Reply = parseReply(d, f)
	parseSemantics(d, f, decl)
	parseTimeFrom(f, decl)
	if len(d.errs) > before {
		return nil
	}
	return decl
}

// readSource reads the Lua file field names, relative to the profile's
// directory, at most MaxSourceBytes of it.
func readSource(f *yamlMap, field string) (src, path string) {
	f.str(field, &path)
	if path == "" {
		return "", ""
	}
	resolved := path
	if !filepath.IsAbs(path) {
		resolved = filepath.Join(filepath.Dir(f.d.file), path)
	}
	file, err := os.Open(resolved)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		f.errorf(field, "cannot read %s: %s", resolved, msg)
		return "", path
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, MaxSourceBytes+1))
	switch {
	case err != nil:
		f.errorf(field, "reading %s: %v", resolved, err)
	case len(data) > MaxSourceBytes:
		f.errorf(field, "%s is larger than %d bytes; a limiter's Lua is far smaller", resolved, MaxSourceBytes)
	default:
		if err := CheckLuaText(data); err != nil {
			f.errorf(field, "%s %v", resolved, err)
		}
	}
	return string(data), path
}

// parseTemplates reads a list of templates using only the variables
// allowed. Key templates must each use ${identity}.
func parseTemplates(f *yamlMap, field string, allowed []string) []algorithms.Template {
	var out []algorithms.Template
	items := f.sequence(field)
	for i, n := range items {
		item := templateField(f, field, i)
		if n.Kind != yaml.ScalarNode {
			f.d.errorf(n.Line, item, "want a template like \"limiter:{${identity}}\", got %s", describe(n))
			continue
		}
		t, err := algorithms.ParseTemplate(n.Value, allowed)
		if err != nil {
			f.d.errorf(n.Line, item, "%v", err)
			continue
		}
		if field == "keys" && !t.Uses(algorithms.VarIdentity) {
			f.d.errorf(n.Line, item, "%q does not use ${identity}: every key must belong to one identity, or the audit cannot tell whose decision it was", n.Value)
			continue
		}
		out = append(out, t)
	}
	if field == "keys" && f.values[field] != nil && f.values[field].Kind == yaml.SequenceNode && len(items) == 0 {
		f.errorf(field, "the list is empty: give at least one key template")
	}
	return out
}

// templateField names the i-th (0-based) template of field as the script
// numbers it, 1-based: algorithms[0].ARGV[3] for the third of args,
// algorithms[0].KEYS[1] for the first key.
func templateField(f *yamlMap, field string, i int) string {
	name := "ARGV"
	if field == "keys" {
		name = "KEYS"
	}
	return fmt.Sprintf("%s[%d]", f.join(name), i+1)
}

// parseReply reads the reply section: 1-based positions, for allowed
// optionally how its value reads (when, or the texts that admit and deny),
// and for the other parts a position, or in full its position, unit and
// the values that mean none.
func parseReply(d *decoder, f *yamlMap) algorithms.ReplyLayout {
	var r algorithms.ReplyLayout
	if !f.has("reply") {
		f.errorf("reply", "missing: give at least the position of allowed in the script's reply, e.g. {allowed: 1}")
		return r
	}
	rf := d.mapping(f.values["reply"], f.join("reply"), replyFields...)
	before := len(d.errs)
	if n := rf.values["allowed"]; n != nil && n.Kind == yaml.MappingNode {
		af := d.mapping(n, rf.join("allowed"), allowedFields...)
		af.intField("position", &r.Allowed, 1)
		if !af.has("position") {
			af.errorf("position", "missing: where in the reply the answer is (1-based)")
		}
		if af.has("when") {
			var when string
			af.str("when", &when)
			w, err := algorithms.ParseAllowedWhen(when)
			if err != nil {
				af.errorf("when", "%v", err)
			}
			r.When = w
		}
		r.Admit = stringList(af, "admit")
		r.Deny = stringList(af, "deny")
		if af.has("when") && (af.has("admit") || af.has("deny")) {
			af.errorf("when", "give either when (how a number reads) or admit/deny (the texts that mean each), not both")
		}
	} else {
		rf.intField("allowed", &r.Allowed, 1)
	}
	if !rf.has("allowed") {
		rf.errorf("allowed", "missing: the position (1-based) of the admit/deny answer in the reply")
	}
	rf.intField("retry_after_ms", &r.RetryAfterMs, 1)
	rf.intField("server_time_us", &r.ServerTimeUs, 1)
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		if !rf.has(name) {
			continue
		}
		n := rf.values[name]
		if part == algorithms.PartRemaining && n.Kind == yaml.ScalarNode {
			rf.intField(name, &r.Remaining, 1)
			continue
		}
		if n.Kind != yaml.MappingNode {
			rf.errorf(name, "want {position: N, unit: s|ms|us, none: ...}, got %s%s", describe(n), shortFormHint(part))
			continue
		}
		if v, ok := parseReplyValue(d, rf, name, part); ok {
			if r.Values == nil {
				r.Values = map[algorithms.ReplyPart]algorithms.ReplyValue{}
			}
			r.Values[part] = v
		}
	}
	for _, pair := range [][2]string{{"retry_after", "retry_after_ms"}, {"server_time", "server_time_us"}} {
		if rf.has(pair[0]) && rf.has(pair[1]) {
			rf.errorf(pair[1], "%s is given in full already; give one of them", pair[0])
		}
	}
	if r.Allowed > 0 && len(d.errs) == before {
		if err := r.Validate(); err != nil {
			field, msg, _ := strings.Cut(err.Error(), ": ")
			rf.errorf(field, "%s", msg)
		}
	}
	return r
}

// shortFormHint names a part's short form, for a value that is not a
// mapping.
func shortFormHint(part algorithms.ReplyPart) string {
	switch part {
	case algorithms.PartRetryAfter:
		return " (or retry_after_ms: N for milliseconds)"
	case algorithms.PartServerTime:
		return " (or server_time_us: N for microseconds)"
	}
	return ""
}

// parseReplyValue reads one reply part given in full.
func parseReplyValue(d *decoder, rf *yamlMap, name string, part algorithms.ReplyPart) (algorithms.ReplyValue, bool) {
	vf := d.mapping(rf.values[name], rf.join(name), replyValueFields...)
	before := len(d.errs)
	var v algorithms.ReplyValue
	vf.intField("position", &v.Position, 1)
	if !vf.has("position") {
		vf.errorf("position", "missing: where in the reply the %s is (1-based)", name)
	}
	if vf.has("unit") {
		var unit string
		vf.str("unit", &unit)
		switch u, err := algorithms.ParseTimeUnit(unit); {
		case !part.Timed():
			vf.errorf("unit", "a count takes no unit")
		case err != nil:
			vf.errorf("unit", "%v", err)
		default:
			v.Unit = u
		}
	} else if part.Timed() {
		vf.errorf("unit", "missing: s, ms or us: what the script counts the %s in", name)
	}
	v.None = stringList(vf, "none")
	return v, len(d.errs) == before
}

// stringList reads a string or a list of strings.
func stringList(f *yamlMap, field string) []string {
	if !f.has(field) {
		return nil
	}
	n := f.values[field]
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for i, item := range f.sequence(field) {
		if item.Kind != yaml.ScalarNode {
			f.d.errorf(item.Line, fmt.Sprintf("%s[%d]", f.join(field), i), "want a value the script replies, got %s", describe(item))
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

// parseSemantics reads semantics, and bound for semantics: bound.
func parseSemantics(d *decoder, f *yamlMap, decl *algorithms.Declaration) {
	var name string
	f.str("semantics", &name)
	if !f.has("semantics") {
		f.errorf("semantics", "missing: which algorithm the limiter implements (%s), or bound with bound: {admitted: N, per: D}",
			strings.Join(algorithms.SemanticsNames(), ", "))
		return
	}
	s, err := algorithms.ParseSemantics(name)
	if err != nil {
		hint := ""
		if c := suggest.Closest(name, append(algorithms.SemanticsNames(), "sliding_window"), 3); c != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", c)
		}
		f.errorf("semantics", "%v%s", err, hint)
		return
	}
	decl.Semantics = s
	switch {
	case s == algorithms.SemanticsBound && !f.has("bound"):
		f.errorf("bound", "missing: semantics: bound checks the promise you give here, e.g. bound: {admitted: 100, per: 1s}")
	case s != algorithms.SemanticsBound && f.has("bound"):
		f.errorf("bound", "only semantics: bound takes a declared bound; %s has its own", s)
	case f.has("bound"):
		bf := d.mapping(f.values["bound"], f.join("bound"), promiseFields...)
		bf.integer("admitted", &decl.Promise.Admitted, 1)
		if !bf.has("admitted") {
			bf.errorf("admitted", "missing: the most requests of one identity admitted within per")
		}
		bf.duration("per", &decl.Promise.Per, time.Microsecond)
	}
}

// parseTimeFrom reads whose clock the limiter decides by: redis (TIME in
// the script) or args (the caller's, in ${now_s}, ${now_ms}, ...).
func parseTimeFrom(f *yamlMap, decl *algorithms.Declaration) {
	if !f.has("time_from") {
		return
	}
	var s string
	f.str("time_from", &s)
	t, err := algorithms.ParseTimeSource(s)
	if err != nil {
		f.errorf("time_from", "%v", err)
		return
	}
	decl.TimeFrom = t
}

// checkDeclarations checks what a declaration needs of the policy: a
// promise without its own interval takes the policy's window, and
// ${window_s} needs whole seconds. Line numbers point at the entry.
func checkDeclarations(d *decoder, top *yamlMap, declared []*algorithms.Declaration, p algorithms.Policy) {
	items := top.sequence("algorithms")
	for _, decl := range declared {
		line, field := top.lineOf("algorithms"), "algorithms"
		for i, n := range items {
			if n.Kind == yaml.MappingNode && declarationName(n) == decl.Name {
				line, field = n.Line, fmt.Sprintf("algorithms[%d]", i)
			}
		}
		if decl.Semantics == algorithms.SemanticsBound && decl.Promise.Per == 0 {
			decl.Promise.Per = p.Window
		}
		if err := decl.Validate(p); err != nil {
			d.errorf(line, field, "%v", err)
		}
	}
}

// declarationName is the name field of a declaration's mapping.
func declarationName(n *yaml.Node) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			return n.Content[i+1].Value
		}
	}
	return ""
}
