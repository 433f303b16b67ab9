package result

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxTextBytes bounds each text a result keeps: an error's example, a
// note, a reason. The text of a failure comes from outside rlbench (a
// script's error reply, a server's message) and may be megabytes; a
// result, its summary and its page repeat it, so it is cut here, once.
// The histograms are not text and are not cut.
const MaxTextBytes = 4096

// ClipText is s cut to at most MaxTextBytes bytes, at a character's
// start, ending with how many bytes were left out.
func ClipText(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	cut := MaxTextBytes - 32
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// ClipTexts cuts every text of r to MaxTextBytes (see ClipText), in
// place: every string, in any field, list or map, but the encoded
// histograms (the fields named *_hdr).
func (r *Result) ClipTexts() { clipTexts(reflect.ValueOf(r).Elem()) }

func clipTexts(v reflect.Value) {
	if !holdsText(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.Len() > MaxTextBytes {
			v.SetString(ClipText(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			clipTexts(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !histogramField(f) {
				clipTexts(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			clipTexts(v.Index(i))
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			iter := v.MapRange()
			for iter.Next() {
				// Values of a map are not addressable: clip a copy.
				c := reflect.New(iter.Value().Type()).Elem()
				c.Set(iter.Value())
				clipTexts(c)
				v.SetMapIndex(iter.Key(), c)
			}
			return
		}
		iter := v.MapRange()
		for iter.Next() {
			if s := iter.Value().String(); len(s) > MaxTextBytes {
				v.SetMapIndex(iter.Key(), reflect.ValueOf(ClipText(s)).Convert(v.Type().Elem()))
			}
		}
	}
}

// histogramField reports whether f holds an encoded histogram.
func histogramField(f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return strings.HasSuffix(name, "_hdr")
}

// texty caches, by type, whether a value of the type can hold text: the
// walk skips the per-second series and the other lists of numbers.
var texty sync.Map

// holdsText reports whether a value of type t can hold a string that
// ClipTexts cuts.
func holdsText(t reflect.Type) bool {
	if v, ok := texty.Load(t); ok {
		return v.(bool)
	}
	out := findText(t, map[reflect.Type]bool{})
	texty.Store(t, out)
	return out
}

// findText is holdsText worked out, seen holding the types under way (a
// type that contains itself holds text only through its other fields).
func findText(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return findText(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !histogramField(f) && findText(f.Type, seen) {
				return true
			}
		}
	}
	return false
}
