package algorithms

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxReplyPosition is the highest reply position a declaration may read.
const MaxReplyPosition = 64

// Plausible server times, in microseconds since the epoch: from 1973 to
// 5138. A value outside is in another unit (seconds, milliseconds) or not
// a time at all.
const (
	minServerTimeUs = 100_000_000_000_000
	maxServerTimeUs = 100_000_000_000_000_000
)

// ReplyLayout says where each part of a declared limiter's array reply is:
// 1-based positions, 0 for a part the reply does not carry.
type ReplyLayout struct {
	// Allowed is required: 1/0 or true/false, or one of Admit and Deny.
	Allowed int
	// Admit and Deny, when given, are the values the allowed position holds
	// for an admission and for a denial (e.g. "OK" and "LIMITED").
	Admit, Deny []string
	// Remaining is what is left after the request, a number (or a decimal
	// string).
	Remaining int
	// RetryAfterMs is how long until a request would be admitted, in
	// milliseconds.
	RetryAfterMs int
	// ServerTimeUs is the Redis TIME the decision used, in microseconds
	// since the epoch: with it, the audit replays decisions exactly.
	ServerTimeUs int
}

// Fields says which parts the reply carries.
func (r ReplyLayout) Fields() ReplyFields {
	return ReplyFields{Remaining: r.Remaining > 0, RetryAfter: r.RetryAfterMs > 0, ServerTime: r.ServerTimeUs > 0}
}

// replyPart is one declared position and the name people know it by.
type replyPart struct {
	name     string
	position int
}

func (r ReplyLayout) parts() []replyPart {
	return []replyPart{
		{"allowed", r.Allowed}, {"remaining", r.Remaining}, {"retry_after_ms", r.RetryAfterMs}, {"server_time_us", r.ServerTimeUs},
	}
}

// Validate reports what makes the layout unreadable: a missing or
// out-of-range position, two parts at one position, admitting values
// without denying ones.
func (r ReplyLayout) Validate() error {
	if r.Allowed == 0 {
		return fmt.Errorf("allowed: missing: give the position of the admit/deny answer in the reply")
	}
	seen := map[int]string{}
	for _, p := range r.parts() {
		if p.position == 0 {
			continue
		}
		if p.position < 1 || p.position > MaxReplyPosition {
			return fmt.Errorf("%s: position %d is not between 1 and %d", p.name, p.position, MaxReplyPosition)
		}
		if other, dup := seen[p.position]; dup {
			return fmt.Errorf("%s: position %d is already %s", p.name, p.position, other)
		}
		seen[p.position] = p.name
	}
	if (len(r.Admit) == 0) != (len(r.Deny) == 0) {
		return fmt.Errorf("allowed: give both the admitting and the denying values, or neither (then 1/0 or true/false)")
	}
	for _, a := range r.Admit {
		if slices.Contains(r.Deny, a) {
			return fmt.Errorf("allowed: %q is both an admitting and a denying value", a)
		}
	}
	return nil
}

// last is the highest position the layout reads.
func (r ReplyLayout) last() int {
	n := 0
	for _, p := range r.parts() {
		n = max(n, p.position)
	}
	return n
}

// ReplyError is a reply that does not match its declaration: what came
// back at which position.
type ReplyError struct {
	// Position is 1-based; 0 when the reply as a whole is wrong.
	Position int
	// Part is the declared part read there ("remaining").
	Part string
	// Got describes what came back; Want what the declaration expects.
	Got, Want string
}

func (e *ReplyError) Error() string {
	if e.Position == 0 {
		return fmt.Sprintf("reply: got %s, want %s", e.Got, e.Want)
	}
	return fmt.Sprintf("reply position %d (%s): got %s, want %s", e.Position, e.Part, e.Got, e.Want)
}

// Parse reads one reply by the layout. A reply that is a single value
// rather than an array is read as an array of one, when the layout reads
// position 1 only.
func (r ReplyLayout) Parse(v any) (Decision, error) {
	arr, ok := v.([]any)
	if !ok {
		if r.last() != 1 {
			return Decision{}, &ReplyError{Got: describeValue(v), Want: fmt.Sprintf("an array of at least %d elements", r.last())}
		}
		arr = []any{v}
	}
	if len(arr) < r.last() {
		return Decision{}, &ReplyError{Got: fmt.Sprintf("an array of %d", len(arr)), Want: fmt.Sprintf("at least %d elements (the declaration reads position %d)", r.last(), r.last())}
	}
	at := func(pos int) any { return arr[pos-1] }
	var d Decision
	var err error
	if d.Allowed, err = r.allowed(at(r.Allowed)); err != nil {
		return Decision{}, err
	}
	if r.Remaining > 0 {
		if d.Remaining, err = remainingValue(r.Remaining, at(r.Remaining)); err != nil {
			return Decision{}, err
		}
	}
	if r.RetryAfterMs > 0 {
		if d.RetryAfter, err = retryValue(r.RetryAfterMs, at(r.RetryAfterMs)); err != nil {
			return Decision{}, err
		}
	}
	if r.ServerTimeUs > 0 {
		if d.ServerNowMicros, err = serverTimeValue(r.ServerTimeUs, at(r.ServerTimeUs)); err != nil {
			return Decision{}, err
		}
	}
	return d, nil
}

func (r ReplyLayout) allowed(v any) (bool, error) {
	if len(r.Admit) > 0 {
		text, ok := scalarText(v)
		switch {
		case ok && slices.Contains(r.Admit, text):
			return true, nil
		case ok && slices.Contains(r.Deny, text):
			return false, nil
		}
		return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v),
			Want: fmt.Sprintf("one of %s (admit) or %s (deny)", quoteList(r.Admit), quoteList(r.Deny))}
	}
	switch x := v.(type) {
	case int64:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case nil:
		// Lua false travels as a nil reply; Lua true as the integer 1.
		return false, nil
	case bool:
		return x, nil
	case string:
		if x == "0" || x == "1" {
			return x == "1", nil
		}
		return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v),
			Want: "1/0 or true/false; declare the admitting and denying strings if the script answers with text"}
	}
	return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v), Want: "1/0 or true/false"}
}

// remainingValue keeps the number as the script sent it, as Decision does.
func remainingValue(pos int, v any) (string, error) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return x, nil
		}
	}
	return "", &ReplyError{Position: pos, Part: "remaining", Got: describeValue(v), Want: "a number"}
}

func retryValue(pos int, v any) (time.Duration, error) {
	var ms float64
	switch x := v.(type) {
	case int64:
		ms = float64(x)
	case float64:
		ms = x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			ms = -1
			break
		}
		ms = f
	default:
		ms = -1
	}
	if ms < 0 || math.IsNaN(ms) || ms > float64(365*24*time.Hour/time.Millisecond) {
		return 0, &ReplyError{Position: pos, Part: "retry_after_ms", Got: describeValue(v), Want: "milliseconds, a number from 0 to a year"}
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

func serverTimeValue(pos int, v any) (int64, error) {
	var us int64
	ok := true
	switch x := v.(type) {
	case int64:
		us = x
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		us, ok = n, err == nil
	default:
		ok = false
	}
	want := "the Redis TIME the decision used, in microseconds since the epoch (seconds * 1000000 + microseconds)"
	switch {
	case !ok:
		return 0, &ReplyError{Position: pos, Part: "server_time_us", Got: describeValue(v), Want: want}
	case us >= minServerTimeUs/1_000_000 && us < maxServerTimeUs/1_000_000:
		return 0, &ReplyError{Position: pos, Part: "server_time_us", Got: describeValue(v) + ", which looks like seconds", Want: want}
	case us >= minServerTimeUs/1000 && us < maxServerTimeUs/1000:
		return 0, &ReplyError{Position: pos, Part: "server_time_us", Got: describeValue(v) + ", which looks like milliseconds", Want: want}
	case us < minServerTimeUs || us >= maxServerTimeUs:
		return 0, &ReplyError{Position: pos, Part: "server_time_us", Got: describeValue(v), Want: want}
	}
	return us, nil
}

// scalarText is a reply value as text, for matching declared strings.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

// describeValue says what a reply value is, briefly enough for an error
// message that is counted and grouped.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil (Lua false or nil)"
	case int64:
		return "the integer " + strconv.FormatInt(x, 10)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return "the string " + strconv.Quote(x)
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	}
	return fmt.Sprintf("a %T", v)
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
