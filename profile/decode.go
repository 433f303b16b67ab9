package profile

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/internal/suggest"
)

// decoder walks a YAML tree by hand so that every error can name the file,
// the line and the field, and so that unknown fields are rejected.
type decoder struct {
	file string
	errs Errors
	// ctx stops a trace being read (nil: never), and traces keeps each
	// trace read, for the scenarios that replay it again.
	ctx    context.Context
	traces map[traceKey]traceScan
}

// errorf records an error of field at line. A field gets one error: the
// first says what is wrong with it, and a later one (a range checked on
// the value that failed to parse, a default worked out from it) would
// only follow from the first, or contradict it.
func (d *decoder) errorf(line int, field, format string, args ...any) {
	if field != "" && slices.ContainsFunc(d.errs, func(e *Error) bool { return e.Field == field }) {
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// yamlMap is one YAML mapping being read: its values by key, and the path
// that names it in messages ("scenarios[0]").
type yamlMap struct {
	d      *decoder
	path   string
	line   int
	values map[string]*yaml.Node
	lines  map[string]int
}

// mapping reads n as a mapping whose keys must be among known.
func (d *decoder) mapping(n *yaml.Node, path string, known ...string) *yamlMap {
	f := &yamlMap{d: d, path: path, line: n.Line, values: map[string]*yaml.Node{}, lines: map[string]int{}}
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, path, "want a mapping of fields, got %s", describe(n))
		return f
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := f.join(k.Value)
		if _, dup := f.values[k.Value]; dup {
			d.errorf(k.Line, name, "given twice (first at line %d)", f.lines[k.Value])
			continue
		}
		if !slices.Contains(known, k.Value) {
			hint := ""
			if c := suggest.Closest(k.Value, known, 3); c != "" {
				hint = fmt.Sprintf("did you mean %q? ", c)
			}
			d.errorf(k.Line, name, "unknown field (%sknown: %s)", hint, strings.Join(known, ", "))
			continue
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			// A key written with nothing after it (or ~, or null) is a
			// section or value left out by mistake: taken for absent, an
			// empty fleet: would run without a fleet, and say nothing.
			d.errorf(k.Line, name, "is empty: give it a value, or leave the line out")
			continue
		}
		f.values[k.Value] = v
		f.lines[k.Value] = k.Line
	}
	return f
}

func (f *yamlMap) join(key string) string {
	if f.path == "" {
		return key
	}
	return f.path + "." + key
}

// has reports whether key was given (and not null).
func (f *yamlMap) has(key string) bool {
	n, ok := f.values[key]
	return ok && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// lineOf is the line of key, or of the mapping when key is absent.
func (f *yamlMap) lineOf(key string) int {
	if l, ok := f.lines[key]; ok {
		return l
	}
	return f.line
}

func (f *yamlMap) errorf(key, format string, args ...any) {
	f.d.errorf(f.lineOf(key), f.join(key), format, args...)
}

// node returns the node for key when it is of the kind wanted, or nil: when
// key is absent, or (with an error saying what was wanted) of another kind.
func (f *yamlMap) node(key string, kind yaml.Kind, want string) *yaml.Node {
	if !f.has(key) {
		return nil
	}
	n := f.values[key]
	if n.Kind != kind {
		f.errorf(key, "want %s, got %s", want, describe(n))
		return nil
	}
	return n
}

// scalar returns the scalar node for key, or nil (with an error when the
// value is not a scalar).
func (f *yamlMap) scalar(key string) *yaml.Node {
	return f.node(key, yaml.ScalarNode, "a single value")
}

func (f *yamlMap) str(key string, dst *string) {
	if n := f.scalar(key); n != nil {
		*dst = n.Value
	}
}

func (f *yamlMap) integer(key string, dst *int64, minimum int64) {
	n := f.scalar(key)
	if n == nil {
		return
	}
	v, err := wholeNumber(n)
	if err != nil {
		f.errorf(key, "%v", err)
		return
	}
	if v < minimum {
		f.errorf(key, "must be at least %d, got %d", minimum, v)
		return
	}
	*dst = v
}

// wholeNumber reads a scalar as an integer (1000000 or 1_000_000). A
// quoted one ("4") is text that looks like a number: profiles are typed
// strictly, so it is refused, saying how to write it.
func wholeNumber(n *yaml.Node) (int64, error) {
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
	if err != nil || (n.Tag != "!!int" && n.Tag != "!!str") {
		return 0, fmt.Errorf("%q is not a whole number", n.Value)
	}
	if quoted(n) {
		return 0, fmt.Errorf("%q is quoted, which makes it text: write the number without quotes", n.Value)
	}
	return v, nil
}

// quoted reports whether a scalar was written in quotes.
func quoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
}

func (f *yamlMap) intField(key string, dst *int, minimum int64) {
	v := int64(*dst)
	f.integer(key, &v, minimum)
	if v > math.MaxInt32 {
		f.errorf(key, "%d is too large", v)
		return
	}
	*dst = int(v)
}

func (f *yamlMap) boolean(key string, dst *bool) {
	n := f.scalar(key)
	if n == nil {
		return
	}
	if n.Tag != "!!bool" {
		f.errorf(key, "%q is not true or false", n.Value)
		return
	}
	*dst = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

// duration reads a Go duration such as 10s, 1m30s or 250ms, at least
// minimum and at most MaxDuration.
func (f *yamlMap) duration(key string, dst *time.Duration, minimum time.Duration) {
	n := f.scalar(key)
	if n == nil {
		return
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		f.errorf(key, "%q is not a duration like 10s, 250ms or 1m", n.Value)
		return
	}
	if d < minimum {
		f.errorf(key, "must be at least %s, got %s", minimum, n.Value)
		return
	}
	if d > MaxDuration {
		f.errorf(key, "must be at most %s, got %s", MaxDuration, n.Value)
		return
	}
	*dst = d
}

// sequence returns the items of a list field.
func (f *yamlMap) sequence(key string) []*yaml.Node {
	if n := f.node(key, yaml.SequenceNode, "a list"); n != nil {
		return n.Content
	}
	return nil
}

// describe names what a node is, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	default:
		return strconv.Quote(n.Value)
	}
}
