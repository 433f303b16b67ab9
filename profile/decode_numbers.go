package profile

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

// float reads a number (1.2, 2) into dst.
func (f *yamlMap) float(key string, dst *float64) {
	n := f.scalar(key)
	if n == nil {
		return
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err == nil && quoted(n) {
		f.errorf(key, "%q is quoted, which makes it text: write the number without quotes", n.Value)
		return
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || (n.Tag != "!!float" && n.Tag != "!!int") {
		f.errorf(key, "%q is not a number", n.Value)
		return
	}
	*dst = v
}

// counts reads key as one whole number or a list of them, each at least
// minimum and at most math.MaxInt32, none listed twice. list says which
// form was given; ok is false when anything was wrong.
func (f *yamlMap) counts(key string, minimum int64) (values []int, list, ok bool) {
	if !f.has(key) {
		return nil, false, true
	}
	n := f.values[key]
	if n.Kind == yaml.ScalarNode {
		v := 0
		before := len(f.d.errs)
		f.intField(key, &v, minimum)
		return []int{v}, false, len(f.d.errs) == before
	}
	if n.Kind != yaml.SequenceNode {
		f.errorf(key, "want a number or a list of numbers, got %s", describe(n))
		return nil, true, false
	}
	if len(n.Content) == 0 {
		f.errorf(key, "the list is empty")
		return nil, true, false
	}
	ok = true
	for i, item := range n.Content {
		field := fmt.Sprintf("%s[%d]", f.join(key), i)
		if item.Kind != yaml.ScalarNode {
			f.d.errorf(item.Line, field, "want a whole number, got %s", describe(item))
			ok = false
			continue
		}
		v, err := wholeNumber(item)
		switch {
		case err != nil:
			f.d.errorf(item.Line, field, "%v", err)
		case v < minimum:
			f.d.errorf(item.Line, field, "must be at least %d, got %d", minimum, v)
		case v > math.MaxInt32:
			f.d.errorf(item.Line, field, "%d is too large", v)
		case slices.Contains(values, int(v)):
			f.d.errorf(item.Line, field, "%d is listed twice", v)
		default:
			values = append(values, int(v))
			continue
		}
		ok = false
	}
	return values, true, ok
}
