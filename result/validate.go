package result

import (
	"fmt"
	"reflect"
	"strings"
)

// signedFields are the JSON paths (within a run, or from the top) of the
// numbers that can rightly be negative; every other count and figure in a
// result is a count of something or a measure of time, size or rate, and a
// negative one means the file was damaged or made up.
var signedFields = map[string]bool{
	"profile.seed":                          true, // any int64 seeds the generators
	"memory.used_memory_delta_bytes":        true, // memory can shrink over a run
	"memory.client_buffers_delta_bytes":     true,
	"memory.bytes_per_identity":             true, // and so can its share per identity
	"cluster.nodes.used_memory_delta_bytes": true, // and each master's
	"cluster.nodes.keys_delta":              true, // keys expire during a run
	"clock_offset.offset_us":                true, // the local clock may be ahead of Redis
	"edge.from_ms":                          true, // the edge curve starts before the boundary
	"thresholds.value":                      true, // a threshold reads any field
	"thresholds.against":                    true,
	"repeats.values":                        true, // each repetition of any field
}

// validate checks what a result's numbers can be: no count or figure is
// negative unless signedFields says it may be, and every run's requests add
// up (sent = allowed + denied + errors). The error names the run and the
// field.
func (r *Result) validate() error {
	if err := checkSigns(reflect.ValueOf(r).Elem(), "", "", func(path string) string { return path }); err != nil {
		return err
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		if q := run.Requests; q.Sent != q.Allowed+q.Denied+q.Errors {
			return fmt.Errorf("runs[%d] (%s): requests.sent %d is not allowed %d + denied %d + errors %d",
				i, run.Key(), q.Sent, q.Allowed, q.Denied, q.Errors)
		}
		if q := run.Requests; q.AllowedOnError+q.DeniedOnError > q.Errors || q.FaultErrors > q.Errors {
			return fmt.Errorf("runs[%d] (%s): requests.allowed_on_error %d + denied_on_error %d, or fault_errors %d, is more than errors %d",
				i, run.Key(), q.AllowedOnError, q.DeniedOnError, q.FaultErrors, q.Errors)
		}
	}
	return nil
}

// checkSigns walks v, whose JSON path is path (with array indices) and
// whose path for signedFields is key (without them), and refuses the first
// negative number that signedFields does not allow. name turns a path into
// the name an error uses.
func checkSigns(v reflect.Value, path, key string, name func(string) string) error {
	if signedFields[key] {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return checkSigns(v.Elem(), path, key, name)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || tag == "" || tag == "-" {
				continue
			}
			if err := checkSigns(v.Field(i), join(path, tag), join(key, tag), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			n := name
			if key == "runs" {
				// Fields of a run are named within it, after the run.
				run := v.Index(i).Addr().Interface().(*Run)
				prefix := fmt.Sprintf("runs[%d] (%s): ", i, run.Key())
				n = func(s string) string { return prefix + strings.TrimPrefix(s, p+".") }
				if err := checkSigns(v.Index(i), p, "", n); err != nil {
					return err
				}
				continue
			}
			if err := checkSigns(v.Index(i), p, key, n); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkSigns(iter.Value(), fmt.Sprintf("%s.%v", path, iter.Key()), key, name); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return fmt.Errorf("%s is %d, and it cannot be negative", name(path), v.Int())
		}
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); f < 0 {
			return fmt.Errorf("%s is %g, and it cannot be negative", name(path), f)
		}
	}
	return nil
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}
