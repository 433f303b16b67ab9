package result

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// dimensions are the two ways runs merge, each with its combiner of a rule.
var dimensions = []struct {
	name  string
	which func(rule) combiner
}{
	{"repetitions", func(r rule) combiner { return r.repeats }},
	{"segments", func(r rule) combiner { return r.segments }},
}

// runPaths lists the JSON path of every field of a run, sections (structs)
// included, each with its type.
func runPaths() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			out[prefix+name] = f.Type
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, prefix+name+".")
			}
		}
	}
	walk(reflect.TypeOf(Run{}), "")
	return out
}

// hasRule reports whether the field at path has a combiner: its own
// rule's, unless that defers to its section, or that of the nearest
// section whose combiner is whole.
func hasRule(path string, which func(rule) combiner) bool {
	for p := path; ; {
		i := slices.IndexFunc(rules, func(r rule) bool { return r.path == p })
		if i >= 0 {
			c := which(rules[i])
			if p == path && c.name != inSection.name || p != path && c.whole {
				return true
			}
		}
		cut := strings.LastIndex(p, ".")
		if cut < 0 {
			return false
		}
		p = p[:cut]
	}
}

// covered reports whether the field at path has a rule, or is a plain
// struct (not behind a pointer, so present whenever the run is) whose
// every field has one.
func covered(path string, t reflect.Type, paths map[string]reflect.Type, which func(rule) combiner) bool {
	if hasRule(path, which) {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for p, ft := range paths {
		if strings.HasPrefix(p, path+".") && !strings.Contains(p[len(path)+1:], ".") && !covered(p, ft, paths, which) {
			return false
		}
	}
	return true
}

// TestEveryFieldHasARule: every numeric field of a run, every other field
// and every section, the top-level ones first, says how it combines across
// repetitions and across segments, so that a field added to the contract
// cannot be left out of either.
func TestEveryFieldHasARule(t *testing.T) {
	paths := runPaths()
	numeric := NumericFields()
	var top, rest []string
	for p := range paths {
		switch {
		case slices.Contains(numeric, p):
		case !strings.Contains(p, "."):
			top = append(top, p)
		default:
			rest = append(rest, p)
		}
	}
	slices.Sort(top)
	slices.Sort(rest)
	check := append(append(top, numeric...), rest...)
	for _, p := range check {
		for _, d := range dimensions {
			if !covered(p, paths[p], paths, d.which) {
				t.Errorf("%s has no rule for merging %s: add a row to rules (result/combine.go)", p, d.name)
			}
		}
	}
}

// TestRulesNameFields: each rule names a field of a run once, and its
// combiners fit the field: a median, a worst or a highest a number, an any
// a flag, field by field or a copy of the first that has one a section
// behind a pointer.
func TestRulesNameFields(t *testing.T) {
	paths := runPaths()
	numeric := NumericFields()
	seen := map[string]bool{}
	for _, r := range rules {
		ft, ok := paths[r.path]
		if !ok {
			t.Errorf("rule %q names no field of a run", r.path)
			continue
		}
		if seen[r.path] {
			t.Errorf("rule %q is given twice", r.path)
		}
		seen[r.path] = true
		for _, d := range dimensions {
			c := d.which(r)
			switch c.name {
			case "":
				t.Errorf("rule %q has no combiner for %s", r.path, d.name)
			case median.name, worst.name, highest.name:
				if !slices.Contains(numeric, r.path) {
					t.Errorf("rule %q takes the %s of %s, and is not a number", r.path, c.name, d.name)
				}
			case anyOf.name:
				if ft.Kind() != reflect.Bool {
					t.Errorf("rule %q takes any of %s, and is not a flag", r.path, d.name)
				}
			case byField.name, firstPresent.name:
				if ft.Kind() != reflect.Pointer || ft.Elem().Kind() != reflect.Struct {
					t.Errorf("rule %q merges %s %s, and is not a section behind a pointer", r.path, d.name, c.name)
				}
			}
		}
	}
}

// TestMergingLeavesThePartsAlone: merging repetitions or segments filled
// at random, every field, changes none of them.
func TestMergingLeavesThePartsAlone(t *testing.T) {
	hdrs := randomHistograms(t)
	hdrs = hdrs[:len(hdrs)-1] // each decodes
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		runs := make([]Run, 2+rng.Intn(3))
		for i := range runs {
			randomFill(rng, reflect.ValueOf(&runs[i]).Elem(), "", hdrs)
		}
		before := jsonOf(t, runs)
		_ = MergeRepeats(runs)
		if _, err := mergeRuns(ptrs(runs), len(runs)); err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, runs) != before {
			t.Fatalf("seed %d: merging changed the parts", seed)
		}
	}
}

// randomHistograms are encoded histograms for randomFill: none, two of a
// few values each, and one that does not decode.
func randomHistograms(t *testing.T) []string {
	out := []string{""}
	for _, vs := range [][]int64{{100, 250, 4000}, {90, 90, 120000}} {
		h := NewHistogram()
		for _, v := range vs {
			h.Record(v)
		}
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, enc)
	}
	return append(out, "not a histogram")
}

func jsonOf(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func ptrs(runs []Run) []*Run {
	out := make([]*Run, len(runs))
	for i := range runs {
		out[i] = &runs[i]
	}
	return out
}

// randomFill fills v with random values a result could hold: numbers are
// not negative unless signedFields allows it.
func randomFill(rng *rand.Rand, v reflect.Value, key string, hdrs []string) {
	switch v.Kind() {
	case reflect.Pointer:
		if rng.Intn(4) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		randomFill(rng, v.Elem(), key, hdrs)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			randomFill(rng, v.Field(i), join(key, name), hdrs)
		}
	case reflect.String:
		if strings.HasSuffix(key, "_hdr") {
			v.SetString(hdrs[rng.Intn(len(hdrs))])
			return
		}
		v.SetString([]string{"", "a", "b", "timeout"}[rng.Intn(4)])
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n := int64(rng.Intn(12))
		if rng.Intn(3) == 0 {
			n = 0
		}
		if signedFields[key] && rng.Intn(2) == 0 {
			n = -n
		}
		if key == "edge.identities" {
			n++ // two edges of no identities make a mean of 0/0, both ways
		}
		v.SetInt(n)
	case reflect.Uint64:
		v.SetUint(uint64(rng.Intn(1000)))
	case reflect.Float64:
		f := rng.Float64() * 100
		if rng.Intn(3) == 0 {
			f = float64(rng.Intn(4))
		}
		if signedFields[key] && rng.Intn(2) == 0 {
			f = -f
		}
		v.SetFloat(f)
	case reflect.Slice:
		n := rng.Intn(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			randomFill(rng, s.Index(i), key, hdrs)
		}
		if n == 0 && rng.Intn(2) == 0 {
			s = reflect.Zero(v.Type())
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := rng.Intn(3); i > 0; i-- {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString([]string{"x", "y", "latency_us.p99"}[rng.Intn(3)])
			e := reflect.New(v.Type().Elem()).Elem()
			randomFill(rng, e, key, hdrs)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}
