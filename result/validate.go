package result

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// MaxSegments bounds how many processes may split one load (rlbench run
// --segment I/N), and so how many segments a result may say its load had.
const MaxSegments = 10_000

// namePattern is what a profile's name may be: it names the folder of
// every result of the profile, so it is one path element of a few safe
// characters. A result's profile.name is held to it as the profile is.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// CheckName says why name cannot be a profile's name, or nil.
func CheckName(name string) error {
	if !namePattern.MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("%q must be 1-64 letters, digits, '.', '_' or '-' (and not . or ..)", name)
	}
	return nil
}

// signedFields are the JSON paths (within a run, or from the top) of the
// numbers that can rightly be negative; every other count and figure in a
// result is a count of something or a measure of time, size or rate, and a
// negative one means the file was damaged or made up.
var signedFields = map[string]bool{
	"profile.seed":                           true, // any int64 seeds the generators
	"memory.used_memory_delta_bytes":         true, // memory can shrink over a run
	"memory.client_buffers_delta_bytes":      true,
	"memory.bytes_per_identity":              true, // and so can its share per identity
	"memory.fill.used_memory_delta_bytes":    true, // a fill's too
	"memory.fill.client_buffers_delta_bytes": true,
	"memory.fill.bytes_per_identity":         true,
	"cluster.nodes.used_memory_delta_bytes":  true, // and each master's
	"cluster.nodes.keys_delta":               true, // keys expire during a run
	"clock_offset.offset_us":                 true, // the local clock may be ahead of Redis
	"edge.from_ms":                           true, // the edge curve starts before the boundary
	"thresholds.value":                       true, // a threshold reads any field
	"thresholds.against":                     true,
	"repeats.values":                         true, // each repetition of any field
	"fleet.per_instance.offset_ms":           true, // an instance's clock may be behind the true time
	"fleet.per_instance.drift_ms_per_min":    true, // and fall further behind
	"accuracy.worst_identity.excess_share":   true, // false denies may outweigh false admits
}

// validate checks what a result's numbers can be: no count or figure is
// negative unless signedFields says it may be, and every run's requests add
// up (sent = allowed + denied + errors). The error names the run and the
// field.
func (r *Result) validate() error {
	if err := CheckName(r.Profile.Name); err != nil {
		return fmt.Errorf("profile.name %w", err)
	}
	if s := r.Segment; s != nil {
		// A count sizes what merge builds: the same bounds --segment has.
		if s.Count < 1 || s.Count > MaxSegments {
			return fmt.Errorf("segment.count %d: want 1 to %d", s.Count, MaxSegments)
		}
		if s.Index < 0 || s.Index >= s.Count {
			return fmt.Errorf("segment.index %d: want 0 to %d for %d segments", s.Index, s.Count-1, s.Count)
		}
	}
	if len(r.MergedSegments) > MaxSegments {
		return fmt.Errorf("merged_segments holds %d segments: want at most %d", len(r.MergedSegments), MaxSegments)
	}
	w := &signWalk{keys: map[[2]string]string{}}
	if err := w.check(reflect.ValueOf(r).Elem(), ""); err != nil {
		return err
	}
	if err := r.validateUnavailable(); err != nil {
		return err
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		if q := run.Requests; q.Sent != q.Allowed+q.Denied+q.Errors {
			return fmt.Errorf("runs[%d] (%s): requests.sent %d is not allowed %d + denied %d + errors %d",
				i, run.Key(), q.Sent, q.Allowed, q.Denied, q.Errors)
		}
		if f := run.Fleet; f != nil && len(f.PerInstance) != f.Instances {
			return fmt.Errorf("runs[%d] (%s): fleet.per_instance has %d instances, fleet.instances says %d",
				i, run.Key(), len(f.PerInstance), f.Instances)
		}
		if a := run.Accuracy; a != nil {
			if err := a.check(); err != nil {
				return fmt.Errorf("runs[%d] (%s): %w", i, run.Key(), err)
			}
			if w := a.WorstIdentity; w != nil && run.Identities > 0 && w.Identity >= int64(run.Identities) {
				return fmt.Errorf("runs[%d] (%s): accuracy.worst_identity.identity %d is not one of the run's %d identities", i, run.Key(), w.Identity, run.Identities)
			}
		}
		if q := run.Requests; q.AllowedOnError+q.DeniedOnError > q.Errors || q.FaultErrors > q.Errors {
			return fmt.Errorf("runs[%d] (%s): requests.allowed_on_error %d + denied_on_error %d, or fault_errors %d, is more than errors %d",
				i, run.Key(), q.AllowedOnError, q.DeniedOnError, q.FaultErrors, q.Errors)
		}
	}
	return nil
}

// signWalk walks a result and refuses the first negative number that
// signedFields does not allow. The path of the value it is at is a stack
// of steps, written out only for an error: a result of thousands of runs
// holds millions of numbers, and naming each one as it is passed would
// cost more than the check.
type signWalk struct {
	path []step
	// run is the run the walk is in, if any.
	run *Run
	// keys caches the signedFields path of a field by its parent's path
	// and its own name.
	keys map[[2]string]string
}

// step is a field name, or an index into an array (name "").
type step struct {
	name  string
	index int
}

// check walks v, whose path for signedFields is key (a path without
// array indices, from the top or from within a run).
func (w *signWalk) check(v reflect.Value, key string) error {
	if signedFields[key] {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return w.check(v.Elem(), key)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || tag == "" || tag == "-" {
				continue
			}
			w.path = append(w.path, step{name: tag})
			err := w.check(v.Field(i), w.key(key, tag))
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.path = append(w.path, step{index: i})
			// Fields of a run are named within it, after the run.
			k := key
			if key == "runs" && len(w.path) == 2 {
				k = ""
				w.run = v.Index(i).Addr().Interface().(*Run)
			}
			err := w.check(v.Index(i), k)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			w.path = append(w.path, step{name: fmt.Sprint(iter.Key().Interface())})
			err := w.check(iter.Value(), key)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return fmt.Errorf("%s is %d, and it cannot be negative", w.name(), v.Int())
		}
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); f < 0 {
			return fmt.Errorf("%s is %g, and it cannot be negative", w.name(), f)
		}
	}
	return nil
}

// key is the signedFields path of field tag under parent.
func (w *signWalk) key(parent, tag string) string {
	k, ok := w.keys[[2]string{parent, tag}]
	if !ok {
		k = join(parent, tag)
		w.keys[[2]string{parent, tag}] = k
	}
	return k
}

// join is path.field, or field at the top.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// name writes out the path the walk is at: "runs[3] (fixed_window/steady):
// requests.sent" within a run, "profile.seed" outside one.
func (w *signWalk) name() string {
	var b strings.Builder
	steps := w.path
	if len(steps) >= 2 && steps[0].name == "runs" && steps[1].name == "" && w.run != nil {
		fmt.Fprintf(&b, "runs[%d] (%s)", steps[1].index, w.run.Key())
		steps = steps[2:]
		if len(steps) > 0 {
			b.WriteString(": ")
		}
		return b.String() + pathString(steps)
	}
	return pathString(steps)
}

// pathString writes steps as a JSON path: a.b[2].c.
func pathString(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		if s.name == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}
