package trace

import (
	"encoding/json"
	"io"
	"maps"
	"slices"
)

// jsonParser reads JSON Lines: one object a line, its fields by name;
// blank lines and lines starting with # are passed over.
type jsonParser struct {
	spec  Spec
	lines *lineReader
	obj   map[string]json.RawMessage
	// text holds a string field's value, unquoted.
	text [3]string
	// first is set once the first object has shown it has the spec's
	// fields.
	first bool
}

func newJSONParser(s Spec, r io.Reader) *jsonParser {
	return &jsonParser{spec: s, lines: newLineReader(r), obj: map[string]json.RawMessage{}}
}

func (p *jsonParser) read(f *fields) error {
	for {
		b, err := p.lines.next()
		if err != nil {
			return err
		}
		if skippable(b) {
			continue
		}
		line := p.lines.line
		clear(p.obj)
		if err := json.Unmarshal(b, &p.obj); err != nil {
			return badLine(line, "not a JSON object: %v", err)
		}
		if !p.first {
			// The first object says whether the trace has the fields at
			// all: one that lacks them names those it has.
			for _, name := range []string{p.spec.Identity, p.spec.Time, p.spec.Cost} {
				if _, ok := p.obj[name]; name != "" && !ok {
					return fatal(line, "%s", noColumn(name, slices.Sorted(maps.Keys(p.obj)), "field", "the first object"))
				}
			}
			p.first = true
		}
		f.line = line
		if f.identity, err = p.value(line, 0, p.spec.Identity); err != nil {
			return err
		}
		if f.time, err = p.value(line, 1, p.spec.Time); err != nil {
			return err
		}
		f.cost = nil
		if p.spec.Cost != "" {
			if f.cost, err = p.value(line, 2, p.spec.Cost); err != nil {
				return err
			}
		}
		return nil
	}
}

// value is field name of the object read, as text: a string unquoted, a
// number as written; slot keeps the unquoted string.
func (p *jsonParser) value(line int64, slot int, name string) ([]byte, error) {
	raw, ok := p.obj[name]
	if !ok {
		return nil, badLine(line, "has no field %q", name)
	}
	switch {
	case len(raw) > 0 && raw[0] == '"':
		if err := json.Unmarshal(raw, &p.text[slot]); err != nil {
			return nil, badLine(line, "field %q: %v", name, err)
		}
		return []byte(p.text[slot]), nil
	case len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')):
		return raw, nil
	}
	return nil, badLine(line, "field %q is %s, not text or a number", name, clip(raw))
}
