package algorithms

import "time"

// windowPart is the reply part that says where the limiter's window ends:
// a declared window_end, or for a fixed window (whose limit is whole again
// when its window ends) reset_at, else reset_after. ok is false when the
// reply carries none of them.
func (l *Declared) windowPart() (ReplyPart, bool) {
	r := l.decl.Reply
	switch {
	case r.Has(PartWindowEnd):
		return PartWindowEnd, true
	case l.decl.Semantics != SemanticsFixedWindow:
		return 0, false
	case r.Has(PartResetAt):
		return PartResetAt, true
	case r.Has(PartResetAfter):
		return PartResetAfter, true
	}
	return 0, false
}

// ReplyWindowEnd implements ReplyWindower: the window_end the reply
// carries, or for a fixed window its reset_at, or its reset_after past the
// time the decision was made by (the server time the reply carries, or the
// caller's clock its arguments carried, as TimeFrom says).
func (l *Declared) ReplyWindowEnd(d Decision) (int64, bool) {
	part, ok := l.windowPart()
	if !ok || !d.Carries(part) {
		return 0, false
	}
	switch part {
	case PartWindowEnd:
		return d.WindowEndMicros, d.WindowEndMicros > 0
	case PartResetAt:
		return d.ResetAtMicros, d.ResetAtMicros > 0
	}
	at := d.ServerNowMicros
	if l.TimeFrom() == TimeFromArgs {
		at = d.ClientNowMicros
	}
	if at <= 0 {
		return 0, false
	}
	return at + d.ResetAfter.Microseconds(), true
}

// ReplyWindowResolution implements ReplyWindower: the unit of the part
// ReplyWindowEnd reads; zero when the reply carries none.
func (l *Declared) ReplyWindowResolution() time.Duration {
	part, ok := l.windowPart()
	if !ok {
		return 0
	}
	v, _ := l.decl.Reply.Value(part)
	return v.Unit.Duration()
}
