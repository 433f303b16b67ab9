package profile

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// Draft is a profile for a user's limiter as rlbench init reads it from
// the Lua, before it is written: the limiter it declares, each line with
// what it was read from, and the guesses to check. Calibrated revises it
// by what probes of that declaration on a real Redis found.
type Draft struct {
	o      SkeletonOptions
	l      *luaLimiter
	keys   []string
	view   skeletonView
	checks []string
}

// Render writes the profile.
func (d *Draft) Render() ([]byte, error) {
	var buf bytes.Buffer
	if err := skeletonTemplate.Execute(&buf, d.view); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Checks are the lines to check before the first run, each with what it
// was read from (marked CHECK in the profile): every guess of a reading,
// only the doubts once it is calibrated.
func (d *Draft) Checks() []string { return slices.Clone(d.checks) }

// Declaration is the limiter the draft declares, as rlbench would run it,
// and the arguments (0-based) it could not place, sent empty in it. A
// draft without a family declares the loosest family's bound, which keeps
// nothing from running.
func (d *Draft) Declaration() (*algorithms.Declaration, []int, error) {
	src := d.o.Source
	decl := &algorithms.Declaration{Name: d.o.Name, SourcePath: d.o.ScriptPath, Reply: d.l.reply.layout,
		TimeFrom: d.l.timeFrom, CallsTime: callsTime(src), Semantics: d.l.semantics}
	if d.l.function != "" {
		decl.Library, decl.Function = src, d.l.function
	} else {
		decl.Script = src
	}
	for _, k := range d.keys {
		t, err := algorithms.ParseTemplate(k, algorithms.KeyVariables)
		if err != nil {
			return nil, nil, err
		}
		decl.Keys = append(decl.Keys, t)
	}
	var unknown []int
	for i, a := range d.view.Args {
		v := a.Value
		if v == editMe {
			v, unknown = "", append(unknown, i)
		}
		t, err := algorithms.ParseTemplate(v, algorithms.ArgVariables)
		if err != nil {
			return nil, nil, fmt.Errorf("ARGV[%d]: %w", i+1, err)
		}
		decl.Args = append(decl.Args, t)
	}
	if decl.TimeFrom == algorithms.TimeFromArgs && !decl.TakesCallerTime() {
		decl.TimeFrom = algorithms.TimeFromRedis
	}
	p := skeletonPolicy
	switch {
	case decl.Semantics == "":
		decl.Semantics = algorithms.SemanticsBound
		decl.Promise = algorithms.Promise{Admitted: algorithms.SemanticsFixedWindow.Bound(p, p.Window), Per: p.Window}
	case decl.Semantics == algorithms.SemanticsBound:
		decl.Promise = algorithms.Promise{Admitted: d.l.boundOf.Bound(p, p.Window), Per: p.Window}
	}
	return decl, unknown, nil
}

// Calibration is what probes of a draft's declaration on a real Redis
// found.
type Calibration struct {
	// Declaration is the draft's declaration with every certain fix made.
	Declaration *algorithms.Declaration
	// BoundOf, when set, declares semantics: bound with that family's
	// bound in one window.
	BoundOf algorithms.Semantics
	// Note says what the probes found of a line (ARGV[3], time_from,
	// reply.allowed, reply.remaining, semantics; "" for the limiter as a
	// whole) and whether it stays marked CHECK; ok is false when they
	// said nothing of it.
	Note func(field string) (text string, check, ok bool)
	// Where says where and how much was probed, for the profile's
	// header: "a private redis-server, 57 variants".
	Where string
}

// Calibrated revises the draft by c: each line takes the declaration's
// value, what the probes said of it written above it, and stays marked
// CHECK only where they doubt it. The caller's clock in seconds stays a
// CHECK where the Lua does not say whether it is whole: no probe can tell
// what the application sends.
func (d *Draft) Calibrated(c Calibration) {
	v := &d.view
	decl := c.Declaration
	v.Calibrated = c.Where
	d.checks = nil
	doubt := func(field, text string) { d.checks = append(d.checks, field+": "+text) }
	for i := range v.Args {
		a := &v.Args[i]
		field := fmt.Sprintf("ARGV[%d]", i+1)
		now := a.Value
		if i < len(decl.Args) {
			now = decl.Args[i].String()
		}
		if now != a.Value {
			a.Value = now
			a.Comment = d.l.src.describeArg(i+1) + ": " + templateMeaning(now)
		}
		text, check, ok := c.Note(field)
		a.Check, a.Notes = check, nil
		if ok {
			a.Notes = wrapNote("calibration: " + text)
		}
		if !check && a.precisionGuessed && (now == "${now_s_float}" || now == "${now_s}") {
			a.Check = true
			text = "whole seconds or fractions: no probe can tell what your application sends; ${now_s} for whole seconds (time(), Unix()), ${now_s_float} for fractions (microtime(true), time.time())"
			a.Notes = append(a.Notes, wrapNote(text)...)
		}
		if a.Check {
			doubt(field, text)
		}
	}
	text, check, ok := c.Note("time_from")
	if string(decl.Clock()) != v.TimeFrom {
		v.TimeFrom, v.TimeWhy = string(decl.Clock()), decl.TimeWhy()
	}
	v.TimeCheck, v.TimeNotes = check, noteLines(text, ok)
	if check {
		doubt("time_from", text)
	}
	notes := d.l.reply.notes
	if !sameAnswer(decl.Reply, d.l.reply.layout) {
		notes = maps1(notes, "allowed", allowedMeaning(decl.Reply))
	}
	v.setReply(decl.Reply, notes, func(field string) bool {
		_, check, _ := c.Note(field)
		return check
	})
	text, _, ok = c.Note("reply.allowed")
	v.AllowedNotes = noteLines(text, ok)
	if v.AllowedCheck {
		doubt("reply.allowed", text)
	}
	for i := range v.Reply {
		name := v.Reply[i].part
		text, check, ok := c.Note("reply." + name)
		v.Reply[i].Notes = noteLines(text, ok)
		if check {
			doubt("reply."+name, text)
		}
	}
	for _, name := range algorithms.ReplyPartNames() {
		// A part the probes left out is said in the reply's notes.
		part, _ := algorithms.ParseReplyPart(name)
		if text, _, ok := c.Note("reply." + name); ok && !decl.Reply.Has(part) {
			v.ReplyNotes = append(v.ReplyNotes, wrapNote(fmt.Sprintf("calibration: %s: %s", name, text))...)
		}
	}
	text, check, ok = c.Note("semantics")
	switch {
	case c.BoundOf != "":
		v.setBound(c.BoundOf, "")
		v.SemanticsCheck = true
	case v.Semantics == "EDIT_ME":
	default:
		v.SemanticsCheck = check
	}
	v.SemanticsNotes = noteLines(text, ok)
	if v.SemanticsCheck && v.Semantics != "EDIT_ME" {
		doubt("semantics", text)
	} else if v.Semantics == "EDIT_ME" {
		d.checks = append(d.checks, "semantics: say which algorithm the limiter implements, or bound with the bound it keeps")
	}
	if text, _, ok := c.Note(""); ok {
		d.checks = append(d.checks, text)
	}
	v.Cost = decl.UsesCost()
	v.finish()
}

// noteLines are a calibration note's lines above a profile's line.
func noteLines(text string, ok bool) []string {
	if !ok || text == "" {
		return nil
	}
	return wrapNote("calibration: " + text)
}

// maps1 is m with key set to value, m unchanged.
func maps1(m map[string]string, key, value string) map[string]string {
	out := map[string]string{key: value}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// sameAnswer reports whether two layouts read the answer alike.
func sameAnswer(a, b algorithms.ReplyLayout) bool {
	return allowedText(a) == allowedText(b)
}

// allowedMeaning says how a layout reads its answer, for the profile's
// comment.
func allowedMeaning(r algorithms.ReplyLayout) string {
	switch r.When {
	case algorithms.AllowedZero:
		return "0 or false when admitted, anything else when not"
	case algorithms.AllowedNonZero, algorithms.AllowedPositive:
		return "a number above 0 when admitted, 0 when not"
	case algorithms.AllowedNonNegative:
		return "0 or more when admitted, a negative number when not"
	case algorithms.AllowedCost:
		return "the cost when admitted, 0 when not"
	case algorithms.AllowedCount:
		return "the count so far: admitted while it is at most the limit"
	}
	if len(r.Admit)+len(r.Deny) > 0 {
		return fmt.Sprintf("admitted on %s, denied on %s", strings.Join(r.Admit, ", "), strings.Join(r.Deny, ", "))
	}
	return "1/0 or true/false"
}

// templateMeaning says what a template carries, for the comment of an
// argument calibration changed.
func templateMeaning(t string) string {
	switch t {
	case "":
		return "sent empty"
	case "${limit}":
		return "requests per window"
	case "${burst}":
		return "the bucket's capacity"
	case "${cost}":
		return "the units this request takes (a scenario's cost:, 1 by default)"
	case "${rate_per_s}":
		return "requests per second"
	case "${rate_per_ms}":
		return "requests per millisecond"
	case "${window_s}", "${window_ms}", "${window_us}":
		return "the window in " + map[string]string{"${window_s}": "seconds", "${window_ms}": "milliseconds", "${window_us}": "microseconds"}[t]
	case "${now_s}":
		return "the caller's clock, in whole seconds"
	case "${now_s_float}":
		return "the caller's clock, in seconds with microseconds"
	case "${now_ms}":
		return "the caller's clock, in milliseconds"
	case "${now_us}":
		return "the caller's clock, in microseconds"
	case "${identity}":
		return "the caller being limited"
	case "${request_id}":
		return "unique per request"
	}
	return t
}

// noteWidth is how wide a note above a profile's line is wrapped.
const noteWidth = 92

// wrapNote wraps text into lines of at most noteWidth characters, at
// spaces.
func wrapNote(text string) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > noteWidth {
			out = append(out, line)
			line = "  " + w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
