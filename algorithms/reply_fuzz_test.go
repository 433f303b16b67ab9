package algorithms_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// replyValue builds a reply value, as go-redis hands one over (an
// integer, a string, nil, a float, a boolean, or an array of them), from
// the bytes of data; it returns what it did not use. Arrays nest at most
// depth deep and hold at most 16 elements.
func replyValue(data []byte, depth int) (any, []byte) {
	if len(data) == 0 {
		return nil, data
	}
	tag, data := data[0], data[1:]
	switch tag % 6 {
	case 0:
		return nil, data
	case 1:
		var b [8]byte
		n := copy(b[:], data)
		return int64(binary.LittleEndian.Uint64(b[:])), data[n:]
	case 2:
		if len(data) == 0 {
			return "", data
		}
		n := min(int(data[0]), len(data)-1)
		return string(data[1 : 1+n]), data[1+n:]
	case 3:
		var b [8]byte
		n := copy(b[:], data)
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), data[n:]
	case 4:
		return len(data) > 0 && data[0]%2 == 1, data[min(1, len(data)):]
	}
	if depth == 0 || len(data) == 0 {
		return []any{}, data
	}
	n, data := int(data[0]%17), data[1:]
	arr := make([]any, 0, n)
	for range n {
		var v any
		v, data = replyValue(data, depth-1)
		arr = append(arr, v)
	}
	return arr, data
}

// FuzzDeclaredReply feeds a declared limiter's reply parsing (and the
// built-ins' uniform one) arbitrary replies under arbitrary layouts. A
// layout the declaration check refuses is never used; under any other,
// parsing must return a decision or a *ReplyError without panicking, an
// error short enough to count and group, and a decision whose parts are
// what the audit can use: a remaining that is a finite number, a retry
// from 0 to a year, a server time in microseconds of a plausible epoch.
// The seed corpus is testdata/fuzz/FuzzDeclaredReply, with the replies
// added here; it runs with every `go test`.
func FuzzDeclaredReply(f *testing.F) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixMicro()
	str := func(s string) []byte { return append([]byte{2, byte(len(s))}, s...) }
	i64 := func(v int64) []byte {
		b := make([]byte, 9)
		b[0] = 1
		binary.LittleEndian.PutUint64(b[1:], uint64(v))
		return b
	}
	arr := func(parts ...[]byte) []byte {
		out := []byte{5, byte(len(parts))}
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// {1, "9", 0, now} read as allowed, remaining, retry, server time.
	f.Add([]byte{1, 2, 3, 4}, arr(i64(1), str("9"), i64(0), i64(now)), "", "")
	// A denial with text answers and a retry as a decimal string.
	f.Add([]byte{1, 0, 2, 0}, arr(str("LIMITED"), str("12.5")), "OK", "LIMITED")
	// A bare integer for a layout that reads position 1 only.
	f.Add([]byte{1, 0, 0, 0}, i64(1), "", "")
	// Seconds where microseconds are declared.
	f.Add([]byte{1, 0, 0, 2}, arr(i64(0), i64(now/1_000_000)), "", "")
	// Too short an array, nil (Lua false), a nested array.
	f.Add([]byte{3, 1, 0, 0}, arr(i64(1), []byte{0}, arr(i64(1))), "", "")
	f.Fuzz(func(t *testing.T, positions, reply []byte, admit, deny string) {
		var pos [4]int
		for i := range pos {
			if i < len(positions) {
				pos[i] = int(int8(positions[i]))
			}
		}
		layout := algorithms.ReplyLayout{Allowed: pos[0], Remaining: pos[1], RetryAfterMs: pos[2], ServerTimeUs: pos[3]}
		if admit != "" || deny != "" {
			layout.Admit, layout.Deny = []string{admit}, []string{deny}
		}
		v, _ := replyValue(reply, 4)
		checkUniform(t, v)
		if layout.Validate() != nil {
			return
		}
		d, bad, err := layout.Parse(algorithms.Request{}, v)
		// A reply's own values are described briefly; the declared
		// admitting and denying values, the profile's own text, whole.
		brief := func(err error) {
			if n := len(err.Error()); n > 400+len(strconv.Quote(admit))+len(strconv.Quote(deny)) {
				t.Fatalf("an error of %d bytes: %.200s", n, err)
			}
		}
		if err != nil {
			var re *algorithms.ReplyError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T), want a *ReplyError", err, err)
			}
			brief(err)
			return
		}
		// An optional part that does not read is counted, and the decision
		// stands without it.
		for _, e := range bad {
			brief(e)
		}
		if layout.Remaining > 0 && d.Carries(algorithms.PartRemaining) {
			f, err := strconv.ParseFloat(d.Remaining, 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				t.Fatalf("remaining %q is not a finite number", d.Remaining)
			}
		} else if d.Remaining != "" && layout.Remaining == 0 {
			t.Fatalf("remaining %q, from a reply that carries none", d.Remaining)
		}
		if d.RetryAfter < 0 || d.RetryAfter > 365*24*time.Hour {
			t.Fatalf("retry after %s", d.RetryAfter)
		}
		if layout.ServerTimeUs > 0 && d.Carries(algorithms.PartServerTime) {
			if y := time.UnixMicro(d.ServerNowMicros).UTC().Year(); y < 1973 || y > 5138 {
				t.Fatalf("server time %d is in %d", d.ServerNowMicros, y)
			}
		} else if d.ServerNowMicros != 0 && layout.ServerTimeUs == 0 {
			t.Fatalf("server time %d, from a reply that carries none", d.ServerNowMicros)
		}
	})
}

// checkUniform holds the built-ins' reply parsing to the same: a decision
// or an error, and a decision the audit can use.
func checkUniform(t *testing.T, v any) {
	t.Helper()
	d, err := algorithms.ParseReply(v)
	if err != nil {
		return
	}
	if d.RetryAfter < 0 || d.ServerNowMicros <= 0 {
		t.Fatalf("uniform reply %v: decision %+v", v, d)
	}
}
