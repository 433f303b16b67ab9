package algorithms

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Plausible instants, in microseconds since the epoch: from 1973 to 5138.
// A value outside is in another unit or not a time at all.
const (
	minServerTimeUs = 100_000_000_000_000
	maxServerTimeUs = 100_000_000_000_000_000
)

// maxReplyDuration is the longest duration a reply may carry: a year.
const maxReplyDuration = 365 * 24 * time.Hour

// Parse reads one reply to req by the layout: the decision, and each
// optional part whose value could not be read, as a *ReplyError. The
// decision goes without such a part (Decision.Unread) and stands; an error
// means the decision itself could not be read (the reply is not an array
// reaching the allowed position, or the answer there is none the layout
// knows). A reply that is a single value rather than an array is read as
// an array of one.
func (r ReplyLayout) Parse(req Request, v any) (Decision, []*ReplyError, error) {
	return r.reader().read(req, v)
}

// replyReader is a layout made ready to read replies: the parts it reads,
// each with its position, unit and name, looked up once.
type replyReader struct {
	layout ReplyLayout
	parts  []partReader
	// last is the highest position read.
	last int
}

// partReader reads one optional part.
type partReader struct {
	part  ReplyPart
	name  string
	value ReplyValue
	// none holds the "none" values that are numbers, as numbers.
	none []float64
}

func (r ReplyLayout) reader() *replyReader {
	rr := &replyReader{layout: r, last: r.last()}
	for part := ReplyPart(0); part < replyPartCount; part++ {
		v, ok := r.Value(part)
		if !ok {
			continue
		}
		pr := partReader{part: part, name: r.PartName(part), value: v}
		for _, n := range v.None {
			if f, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil {
				pr.none = append(pr.none, f)
			}
		}
		rr.parts = append(rr.parts, pr)
	}
	return rr
}

func (rr *replyReader) read(req Request, v any) (Decision, []*ReplyError, error) {
	arr, ok := v.([]any)
	if !ok {
		if rr.last != 1 {
			return Decision{}, nil, &ReplyError{Got: describeValue(v), Want: fmt.Sprintf("an array of at least %d elements", rr.last)}
		}
		arr = []any{v}
	}
	if len(arr) < rr.layout.Allowed {
		return Decision{}, nil, &ReplyError{Got: fmt.Sprintf("an array of %d", len(arr)),
			Want: fmt.Sprintf("at least %d elements (the answer is at position %d)", rr.layout.Allowed, rr.layout.Allowed)}
	}
	d := Decision{Cost: req.Cost, ClientNowMicros: req.NowMicros, ClientSkewMicros: req.SkewMicros}
	var err error
	if d.Allowed, err = rr.layout.allowed(arr[rr.layout.Allowed-1], req); err != nil {
		return Decision{}, nil, err
	}
	var bad []*ReplyError
	for i := range rr.parts {
		p := &rr.parts[i]
		if p.value.Position > len(arr) {
			// A Lua table ends at its first nil: a part the script left
			// nil at the end is not there.
			d.Unread = d.Unread.With(p.part)
			continue
		}
		raw := arr[p.value.Position-1]
		if raw == nil || p.isNone(raw) || !d.Allowed && rr.layout.SharesAllowed(p.part) {
			d.Unread = d.Unread.With(p.part)
			continue
		}
		if e := p.set(&d, raw); e != nil {
			d.Unread = d.Unread.With(p.part)
			bad = append(bad, e)
		}
	}
	return d, bad, nil
}

// isNone reports whether v is one of the values that mean the part is not
// carried.
func (p *partReader) isNone(v any) bool {
	if len(p.value.None) == 0 {
		return false
	}
	text, ok := scalarText(v)
	if f, isFloat := v.(float64); isFloat {
		text, ok = strconv.FormatFloat(f, 'g', -1, 64), true
	}
	if !ok {
		return false
	}
	if slices.Contains(p.value.None, text) {
		return true
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
		return slices.Contains(p.none, f)
	}
	return false
}

// set reads v into the decision's field for the part.
func (p *partReader) set(d *Decision, v any) *ReplyError {
	switch p.part.kind() {
	case kindNumber:
		text, ok := numberText(v)
		if f, err := strconv.ParseFloat(strings.TrimSpace(text), 64); !ok || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return p.fail(v, "a number"+p.noneHint())
		}
		d.Remaining = strings.TrimSpace(text)
	case kindDuration:
		us, ok := p.micros(v)
		if !ok || us < 0 || us > maxReplyDuration.Microseconds() {
			return p.fail(v, fmt.Sprintf("%s from 0 to a year%s", p.value.Unit.Name(), p.noneHint()))
		}
		dur := time.Duration(us) * time.Microsecond
		if p.part == PartRetryAfter {
			d.RetryAfter = dur
		} else {
			d.ResetAfter = dur
		}
	case kindInstant:
		us, ok := p.micros(v)
		if !ok || us < minServerTimeUs || us >= maxServerTimeUs {
			return p.fail(v, p.instantWant(v, us, ok))
		}
		switch p.part {
		case PartServerTime:
			d.ServerNowMicros = us
		case PartResetAt:
			d.ResetAtMicros = us
		case PartWindowEnd:
			d.WindowEndMicros = us
		}
	}
	return nil
}

// micros reads v, a number in the part's unit, as microseconds.
func (p *partReader) micros(v any) (int64, bool) {
	text, ok := numberText(v)
	if !ok {
		return 0, false
	}
	return decimalMicros(text, p.value.Unit)
}

// instantWant says what an instant should have been, and, when the value
// read would be an instant in another unit, which.
func (p *partReader) instantWant(v any, us int64, ok bool) string {
	want := fmt.Sprintf("%s since the epoch", p.value.Unit.Name())
	if p.part == PartServerTime {
		want = fmt.Sprintf("the Redis TIME the decision used, in %s since the epoch", p.value.Unit.Name())
		if p.value.Unit == Microseconds {
			want += " (seconds * 1000000 + microseconds)"
		}
	}
	if !ok {
		return want
	}
	for _, u := range timeUnits {
		if u == p.value.Unit {
			continue
		}
		other := float64(us) / float64(p.value.Unit.Micros()) * float64(u.Micros())
		if other >= minServerTimeUs && other < maxServerTimeUs {
			return fmt.Sprintf("%s; it looks like %s (declare unit: %s)", want, u.Name(), u)
		}
	}
	return want
}

func (p *partReader) noneHint() string {
	if len(p.value.None) > 0 {
		return fmt.Sprintf(", or %s for none", quoteList(p.value.None))
	}
	return ""
}

func (p *partReader) fail(v any, want string) *ReplyError {
	return &ReplyError{Position: p.value.Position, Part: p.name, Got: describeValue(v), Want: want, part: p.part}
}

// allowed reads the answer at the allowed position for req.
func (r ReplyLayout) allowed(v any, req Request) (bool, error) {
	if len(r.Admit)+len(r.Deny) > 0 {
		return r.allowedText(v)
	}
	zero := r.When == AllowedZero
	if v == nil {
		// Lua false travels as a nil reply; Lua true as the integer 1.
		return zero, nil
	}
	if b, ok := v.(bool); ok {
		return b != zero, nil
	}
	when := r.When
	if when == "" {
		when = AllowedOne
	}
	text, ok := numberText(v)
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if !ok || err != nil || math.IsNaN(f) {
		want := "a number"
		if when == AllowedOne {
			want = "1/0 or true/false; declare the admitting and denying strings if the script answers with text"
		}
		return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v), Want: want}
	}
	switch when {
	case AllowedZero:
		return f == 0, nil
	case AllowedNonZero:
		return f != 0, nil
	case AllowedPositive:
		return f > 0, nil
	case AllowedNonNegative:
		return f >= 0, nil
	case AllowedCost:
		switch {
		case f == 0:
			return false, nil
		case f == float64(req.units()):
			return true, nil
		}
		return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v),
			Want: fmt.Sprintf("the request's cost %d (admitted) or 0 (denied)", req.units())}
	case AllowedCount:
		if req.Limit <= 0 {
			return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v),
				Want: "a count, read against a limit the request did not carry"}
		}
		return f <= float64(req.Limit), nil
	}
	if f == 0 || f == 1 {
		return f == 1, nil
	}
	return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v),
		Want: "1/0 or true/false (declare when: nonzero, positive, nonnegative, cost, zero or count for other numbers)"}
}

// allowedText reads an answer given as declared texts. With only one of
// the lists, every other value (a Lua false included) is the other answer.
func (r ReplyLayout) allowedText(v any) (bool, error) {
	text, ok := scalarText(v)
	other := ok || v == nil
	switch {
	case ok && slices.Contains(r.Admit, text):
		return true, nil
	case ok && slices.Contains(r.Deny, text):
		return false, nil
	case other && len(r.Deny) == 0:
		return false, nil
	case other && len(r.Admit) == 0:
		return true, nil
	}
	want := fmt.Sprintf("one of %s (admit) or %s (deny)", quoteList(r.Admit), quoteList(r.Deny))
	return false, &ReplyError{Position: r.Allowed, Part: "allowed", Got: describeValue(v), Want: want}
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
