package report

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Printable returns s safe to print on a terminal: every control
// character (C0, DEL, C1: escape sequences, carriage returns, bells,
// newlines) and every bidirectional-text control, which can make a line
// read other than it is, is replaced by its escaped form (\x1b, \n,
// \u202e), so that a string from a result can neither drive the terminal
// nor forge a line of the report, and what it held stays visible. A byte
// that is not UTF-8 (a lone 0x9b is CSI to an 8-bit terminal) becomes
// U+FFFD.
func Printable(s string) string {
	if strings.IndexFunc(s, unprintable) < 0 {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if unprintable(c) {
			q := strconv.QuoteRune(c)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func unprintable(c rune) bool {
	return unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c) || c == unicode.ReplacementChar
}

// PrintableLines is Printable for text of several lines: the newlines that
// separate them stay.
func PrintableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}

// printableCopy returns a deep copy of *v with every string in it (fields,
// list items, map keys and values) made Printable. It walks the value by
// reflection, so a field added to the contract later is covered without a
// change here. Unexported fields (a time.Time's) are copied as they are.
func printableCopy[T any](v *T) *T {
	out := cleanValue(reflect.ValueOf(v).Elem())
	p := new(T)
	reflect.ValueOf(p).Elem().Set(out)
	return p
}

func cleanValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(Printable(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(cleanValue(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(cleanValue(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(cleanValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(cleanValue(iter.Key()), cleanValue(iter.Value()))
		}
		return out
	}
	return v
}
