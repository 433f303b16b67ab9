package algorithms

import (
	"fmt"
	"slices"
	"strings"
)

// MaxReplyPosition is the highest reply position a declaration may read.
const MaxReplyPosition = 64

// MaxNoneValues is the most "none" values one reply part may declare.
const MaxNoneValues = 8

// ReplyPart is one optional part of a declared limiter's reply.
type ReplyPart uint8

// The optional parts a declared reply may carry.
const (
	// PartRemaining is what is left after the request: a number.
	PartRemaining ReplyPart = iota
	// PartRetryAfter is how long until a request would be admitted: a
	// duration.
	PartRetryAfter
	// PartResetAfter is how long until the limit is whole again: a
	// duration.
	PartResetAfter
	// PartResetAt is the instant the limit is whole again, since the epoch.
	PartResetAt
	// PartWindowEnd is the first instant of the next window, since the
	// epoch.
	PartWindowEnd
	// PartServerTime is the Redis TIME the decision used, since the epoch.
	PartServerTime
	replyPartCount
)

var replyPartNames = [replyPartCount]string{"remaining", "retry_after", "reset_after", "reset_at", "window_end", "server_time"}

// String is the part's name in a profile: "retry_after".
func (p ReplyPart) String() string {
	if p < replyPartCount {
		return replyPartNames[p]
	}
	return fmt.Sprintf("part(%d)", uint8(p))
}

// ReplyPartNames lists the optional parts by name, in reply-layout order.
func ReplyPartNames() []string { return slices.Clone(replyPartNames[:]) }

// ParseReplyPart reads a part's name.
func ParseReplyPart(s string) (ReplyPart, bool) {
	i := slices.Index(replyPartNames[:], s)
	return ReplyPart(i), i >= 0
}

// replyKind is how a part's value reads.
type replyKind uint8

const (
	kindNumber   replyKind = iota // a count, kept as the script wrote it
	kindDuration                  // a length of time, in a unit, 0 or more
	kindInstant                   // an instant since the epoch, in a unit
)

func (p ReplyPart) kind() replyKind {
	switch p {
	case PartRetryAfter, PartResetAfter:
		return kindDuration
	case PartResetAt, PartWindowEnd, PartServerTime:
		return kindInstant
	}
	return kindNumber
}

// Timed reports whether the part is a time or a duration, read in a unit.
func (p ReplyPart) Timed() bool { return p.kind() != kindNumber }

// ReplyParts is a set of reply parts.
type ReplyParts uint8

// Has reports whether the set holds p.
func (s ReplyParts) Has(p ReplyPart) bool { return s&(1<<p) != 0 }

// With is the set with p added.
func (s ReplyParts) With(p ReplyPart) ReplyParts { return s | 1<<p }

// ReplyValue says where a reply carries one optional part and how to read
// it.
type ReplyValue struct {
	// Position is 1-based.
	Position int
	// Unit is the unit of a time or a duration, which those parts need;
	// a remaining takes none.
	Unit TimeUnit
	// None are the values that mean the reply does not carry the part
	// this time, such as -1 for "no retry-after": matched as numbers when
	// both are numbers (-1 matches "-1.0"), else as text. A Lua false or
	// nil, or a reply that ends before the position, always means none.
	None []string
}

// AllowedWhen says which values at the allowed position admit a request.
type AllowedWhen string

// The readings of the allowed position. A Lua false or nil denies in each.
const (
	// AllowedOne admits on 1 or true and denies on 0 or false (the
	// default); anything else is an error.
	AllowedOne AllowedWhen = "one"
	// AllowedNonZero admits on any number but 0.
	AllowedNonZero AllowedWhen = "nonzero"
	// AllowedPositive admits on a number above 0.
	AllowedPositive AllowedWhen = "positive"
	// AllowedNonNegative admits on 0 or more (a script that answers what
	// is left, or -1 when it denies). Remaining may share its position:
	// what is left when admitted, nothing when denied.
	AllowedNonNegative AllowedWhen = "nonnegative"
	// AllowedZero admits on 0, or a Lua false or nil, and denies on
	// anything else: a script that answers whether it limited the request
	// (1 when it did), or how long to wait (nothing when admitted).
	AllowedZero AllowedWhen = "zero"
	// AllowedCost admits on the request's cost (a script that answers the
	// units it granted) and denies on 0; anything else is an error.
	AllowedCost AllowedWhen = "cost"
	// AllowedCount admits on a count up to the policy's limit: a script
	// that counts the request and answers how many units its identity has
	// used in the window, leaving the application to compare it with the
	// limit (count <= limit admits).
	AllowedCount AllowedWhen = "count"
)

var allowedWhens = []AllowedWhen{AllowedOne, AllowedNonZero, AllowedPositive, AllowedNonNegative, AllowedCost, AllowedZero, AllowedCount}

// ParseAllowedWhen reads one, nonzero, positive, nonnegative, cost, zero
// or count.
func ParseAllowedWhen(s string) (AllowedWhen, error) {
	if slices.Contains(allowedWhens, AllowedWhen(s)) {
		return AllowedWhen(s), nil
	}
	names := make([]string, len(allowedWhens))
	for i, w := range allowedWhens {
		names[i] = string(w)
	}
	return "", fmt.Errorf("unknown reading %q (known: %s)", s, strings.Join(names, ", "))
}

// ReplyLayout says where each part of a declared limiter's array reply is:
// 1-based positions, 0 for a part the reply does not carry.
type ReplyLayout struct {
	// Allowed is required: where the answer is. When says which numbers
	// admit (AllowedOne when empty); alternatively Admit and Deny list the
	// texts that mean each (e.g. "OK" and "LIMITED"). With only one of
	// them, any other value means the other answer.
	Allowed     int
	When        AllowedWhen
	Admit, Deny []string
	// Remaining, RetryAfterMs and ServerTimeUs are the short forms of
	// three parts: a position, read as a number, as milliseconds, and as
	// microseconds since the epoch.
	Remaining, RetryAfterMs, ServerTimeUs int
	// Values are the optional parts given in full (position, unit, the
	// values meaning none); a part given here has no short form too.
	Values map[ReplyPart]ReplyValue
}

// Value is part as the layout reads it, a short form included; ok is false
// when the reply does not carry it.
func (r ReplyLayout) Value(part ReplyPart) (ReplyValue, bool) {
	if v, ok := r.Values[part]; ok {
		return v, true
	}
	switch {
	case part == PartRemaining && r.Remaining > 0:
		return ReplyValue{Position: r.Remaining}, true
	case part == PartRetryAfter && r.RetryAfterMs > 0:
		return ReplyValue{Position: r.RetryAfterMs, Unit: Milliseconds}, true
	case part == PartServerTime && r.ServerTimeUs > 0:
		return ReplyValue{Position: r.ServerTimeUs, Unit: Microseconds}, true
	}
	return ReplyValue{}, false
}

// Has reports whether the reply is declared to carry part.
func (r ReplyLayout) Has(part ReplyPart) bool {
	_, ok := r.Value(part)
	return ok
}

// PartName is how the declaration names part: its short form's name
// ("retry_after_ms") when given so.
func (r ReplyLayout) PartName(part ReplyPart) string {
	if _, full := r.Values[part]; !full {
		switch part {
		case PartRetryAfter:
			return "retry_after_ms"
		case PartServerTime:
			return "server_time_us"
		}
	}
	return part.String()
}

// Fields says which parts the reply carries.
func (r ReplyLayout) Fields() ReplyFields {
	return ReplyFields{Remaining: r.Has(PartRemaining), RetryAfter: r.Has(PartRetryAfter), ServerTime: r.Has(PartServerTime)}
}

// Validate reports what makes the layout unreadable: a missing or
// out-of-range position, two parts at one position, a part given twice, a
// time without its unit, admitting values that also deny.
func (r ReplyLayout) Validate() error {
	if r.Allowed == 0 {
		return fmt.Errorf("allowed: missing: give the position of the admit/deny answer in the reply")
	}
	if r.Allowed < 1 || r.Allowed > MaxReplyPosition {
		return fmt.Errorf("allowed: position %d is not between 1 and %d", r.Allowed, MaxReplyPosition)
	}
	if r.When != "" {
		if _, err := ParseAllowedWhen(string(r.When)); err != nil {
			return fmt.Errorf("allowed: %w", err)
		}
		if len(r.Admit)+len(r.Deny) > 0 {
			return fmt.Errorf("allowed: give either when (a reading of numbers) or admit/deny (texts), not both")
		}
	}
	for _, a := range r.Admit {
		if slices.Contains(r.Deny, a) {
			return fmt.Errorf("allowed: %q is both an admitting and a denying value", a)
		}
	}
	for part, short := range map[ReplyPart]int{PartRemaining: r.Remaining, PartRetryAfter: r.RetryAfterMs, PartServerTime: r.ServerTimeUs} {
		if _, full := r.Values[part]; full && short != 0 {
			return fmt.Errorf("%s: given twice, in full and as %s", part, r.PartName(part))
		}
	}
	seen := map[int]string{r.Allowed: "allowed"}
	for part := ReplyPart(0); part < replyPartCount; part++ {
		v, ok := r.Value(part)
		if !ok {
			continue
		}
		name := r.PartName(part)
		switch {
		case v.Position < 1 || v.Position > MaxReplyPosition:
			return fmt.Errorf("%s: position %d is not between 1 and %d", name, v.Position, MaxReplyPosition)
		case part.Timed() && v.Unit == "":
			return fmt.Errorf("%s: unit: missing: s, ms or us (what the script counts %s in)", name, part)
		case !part.Timed() && v.Unit != "":
			return fmt.Errorf("%s: a count takes no unit", name)
		case len(v.None) > MaxNoneValues:
			return fmt.Errorf("%s: %d values mean none; at most %d", name, len(v.None), MaxNoneValues)
		}
		if part.Timed() {
			if _, err := ParseTimeUnit(string(v.Unit)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if other, dup := seen[v.Position]; dup && !r.SharesAllowed(part) {
			return fmt.Errorf("%s: position %d is already %s%s", name, v.Position, other, r.shareHint(part, v.Position))
		}
		seen[v.Position] = name
	}
	for part := range r.Values {
		if part >= replyPartCount {
			return fmt.Errorf("%s: not a part of a reply", part)
		}
	}
	return nil
}

// SharesAllowed reports whether part is read at the answer's position: a
// remaining there, when the answer reads as nonnegative (what is left
// when admitted, a negative number when denied). It is read only from
// replies that admit.
func (r ReplyLayout) SharesAllowed(part ReplyPart) bool {
	v, ok := r.Value(part)
	return ok && part == PartRemaining && v.Position == r.Allowed && r.When == AllowedNonNegative
}

// shareHint says how a remaining may share the answer's position.
func (r ReplyLayout) shareHint(part ReplyPart, pos int) string {
	if part == PartRemaining && pos == r.Allowed {
		return " (remaining may share it when allowed reads when: nonnegative: what is left, or a negative number when denied)"
	}
	return ""
}

// last is the highest position the layout reads.
func (r ReplyLayout) last() int {
	n := r.Allowed
	for part := ReplyPart(0); part < replyPartCount; part++ {
		if v, ok := r.Value(part); ok {
			n = max(n, v.Position)
		}
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
	// part is the optional part read, for counting.
	part ReplyPart
}

func (e *ReplyError) Error() string {
	if e.Position == 0 {
		return fmt.Sprintf("reply: got %s, want %s", e.Got, e.Want)
	}
	return fmt.Sprintf("reply position %d (%s): got %s, want %s", e.Position, e.Part, e.Got, e.Want)
}
