package result

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/internal/suggest"
)

// Dimension is what a numeric field measures, which decides the units a
// threshold may give it and how a report prints it.
type Dimension int

// Dimensions of the contract's numeric fields.
const (
	Plain   Dimension = iota // counts, rates, ratios
	Micros                   // a time in microseconds
	Seconds                  // a time in seconds
	Bytes                    // a size in bytes
)

func (d Dimension) String() string {
	switch d {
	case Micros:
		return "a time in microseconds"
	case Seconds:
		return "a time in seconds"
	case Bytes:
		return "a size in bytes"
	default:
		return "a plain number"
	}
}

// FieldValue reads the numeric field at a JSON path such as
// "latency_us.p99" or "audit.overshoot" from run. It reports false when the
// path holds no value in this run (e.g. no audit was made, or the key
// census failed).
func FieldValue(run *Run, jsonPath string) (float64, bool) {
	if run.Memory != nil && run.Memory.CensusFailed && slices.Contains(censusFields, jsonPath) {
		return 0, false
	}
	if run.Memory != nil && run.Memory.UsedMemoryUnread && slices.Contains(usedMemoryFields, jsonPath) {
		return 0, false
	}
	if !run.Measured(jsonPath) {
		return 0, false
	}
	v := reflect.ValueOf(run).Elem()
	for _, name := range strings.Split(jsonPath, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return 0, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return 0, false
		}
		f, ok := fieldByJSONName(v.Type(), name)
		if !ok {
			return 0, false
		}
		v = v.FieldByIndex(f.Index)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int()), true
	case reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float64, reflect.Float32:
		return v.Float(), true
	}
	return 0, false
}

// NumericFields lists the JSON paths of every numeric field of a run, for
// messages and for checking thresholds before a run.
func NumericFields() []string {
	numeric, _ := runFields()
	return numeric
}

// runFields lists the JSON paths of a run's numeric fields and of its other
// leaf fields.
func runFields() (numeric, other []string) {
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" || name == "-" {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				walk(ft, prefix+name+".")
			case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Float64, reflect.Float32:
				numeric = append(numeric, prefix+name)
			default:
				other = append(other, prefix+name)
			}
		}
	}
	walk(reflect.TypeOf(Run{}), "")
	return numeric, other
}

// FieldDimension checks that jsonPath names a numeric field of a run and
// says what it measures.
func FieldDimension(jsonPath string) (Dimension, error) {
	known, other := runFields()
	if slices.Contains(other, jsonPath) {
		return 0, fmt.Errorf("field %q is not a number", jsonPath)
	}
	if !slices.Contains(known, jsonPath) {
		hint := ""
		if c := suggest.Closest(jsonPath, known, 4); c != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", c)
		}
		return 0, fmt.Errorf("unknown field %q%s; numeric fields include latency_us.p99, audit.overshoot, rate.achieved_per_s, memory.bytes_per_identity", jsonPath, hint)
	}
	segs := strings.Split(jsonPath, ".")
	last := segs[len(segs)-1]
	switch {
	case strings.Contains(jsonPath, "bytes"):
		return Bytes, nil
	case strings.HasPrefix(last, "usec"):
		return Micros, nil
	case strings.HasSuffix(last, "_per_s"):
		return Plain, nil
	case strings.HasSuffix(last, "_s"):
		return Seconds, nil
	}
	for _, s := range segs {
		if strings.HasSuffix(s, "_us") {
			return Micros, nil
		}
	}
	return Plain, nil
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if jsonName(t.Field(i)) == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// setField writes v into the numeric field at jsonPath of run (rounding for
// integer fields). A path the run does not hold is left alone.
func setField(run *Run, jsonPath string, v float64) {
	f := reflect.ValueOf(run).Elem()
	for _, name := range strings.Split(jsonPath, ".") {
		for f.Kind() == reflect.Pointer {
			if f.IsNil() {
				return
			}
			f = f.Elem()
		}
		sf, ok := fieldByJSONName(f.Type(), name)
		if !ok {
			return
		}
		f = f.FieldByIndex(sf.Index)
	}
	switch f.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		f.SetInt(int64(math.Round(v)))
	case reflect.Uint64:
		f.SetUint(uint64(math.Round(max(v, 0))))
	case reflect.Float64, reflect.Float32:
		f.SetFloat(v)
	}
}
