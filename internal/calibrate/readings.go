package calibrate

import (
	"fmt"
	"slices"

	"github.com/rlbench/rlbench/algorithms"
)

// reading is one way to read the answer of a reply: a layout of the
// allowed part alone, and how it differs from the guess's ("" for the
// guess).
type reading struct {
	layout algorithms.ReplyLayout
	change string
}

// readings are the ways to read the answer the probes try: the guess's;
// at its position reversed, as any non-zero number, or as 0 or more; and
// at every other position the replies reach, 1 or 0 either way round, or
// 0 or more where they hold a negative number. Each is tried on the same
// replies: reading costs no call.
func readings(guess algorithms.ReplyLayout, runs []*run) []reading {
	width, negative, rising := replyShape(runs)
	out := []reading{{layout: allowedOnly(guess)}}
	add := func(r algorithms.ReplyLayout, change string) {
		for _, o := range out {
			if sameAllowed(o.layout, r) {
				return
			}
		}
		out = append(out, reading{layout: r, change: change})
	}
	at := func(pos int, when algorithms.AllowedWhen) algorithms.ReplyLayout {
		return algorithms.ReplyLayout{Allowed: pos, When: when}
	}
	if f, ok := flipped(guess); ok {
		add(f, "read reversed: "+describeAllowed(f))
	}
	if guess.When == "" || guess.When == algorithms.AllowedOne {
		add(at(guess.Allowed, algorithms.AllowedNonZero), "read as any number but 0 admitting")
	}
	if negative[guess.Allowed] {
		add(at(guess.Allowed, algorithms.AllowedNonNegative), "read as 0 or more admitting, a negative number denying")
	}
	if rising[guess.Allowed] {
		add(at(guess.Allowed, algorithms.AllowedCount), "read as the count so far, admitting while it is at most the limit (when: count)")
	}
	for pos := 1; pos <= width; pos++ {
		if pos == guess.Allowed {
			continue
		}
		add(at(pos, algorithms.AllowedOne), fmt.Sprintf("read at position %d: 1 (or true) admits", pos))
		add(at(pos, algorithms.AllowedZero), fmt.Sprintf("read at position %d: 0 (or false) admits", pos))
		if negative[pos] {
			add(at(pos, algorithms.AllowedNonNegative), fmt.Sprintf("read at position %d: 0 or more admits", pos))
		}
		if rising[pos] {
			add(at(pos, algorithms.AllowedCount), fmt.Sprintf("read at position %d: the count so far, admitting while it is at most the limit (when: count)", pos))
		}
	}
	return out
}

// replyShape is the widest reply the probes saw, the positions that held
// a negative number, and those that rose by one over a fresh identity's
// first burst (a count).
func replyShape(runs []*run) (width int, negative, rising map[int]bool) {
	negative, rising = map[int]bool{}, map[int]bool{}
	for _, r := range runs {
		for pos := 1; pos <= algorithms.MaxReplyPosition; pos++ {
			var vals []float64
			for _, c := range r.first.calls {
				if arr, ok := c.raw.([]any); ok && pos <= len(arr) {
					if f, ok := number(arr[pos-1]); ok {
						vals = append(vals, f)
					}
				} else if f, ok := number(c.raw); ok && pos == 1 {
					vals = append(vals, f)
				}
			}
			up := len(vals) > 2
			for i := 1; up && i < len(vals); i++ {
				up = vals[i] == vals[i-1]+1
			}
			rising[pos] = rising[pos] || up
		}
		for _, b := range r.bursts() {
			for _, c := range b.calls {
				arr, ok := c.raw.([]any)
				if !ok {
					arr = []any{c.raw}
				}
				width = max(width, min(len(arr), algorithms.MaxReplyPosition))
				for i, v := range arr {
					if f, ok := number(v); ok && f < 0 && i < algorithms.MaxReplyPosition {
						negative[i+1] = true
					}
				}
			}
		}
	}
	return width, negative, rising
}

// allowedOnly is the answer's part of a layout.
func allowedOnly(r algorithms.ReplyLayout) algorithms.ReplyLayout {
	return algorithms.ReplyLayout{Allowed: r.Allowed, When: r.When, Admit: r.Admit, Deny: r.Deny}
}

func sameAllowed(a, b algorithms.ReplyLayout) bool {
	norm := func(w algorithms.AllowedWhen) algorithms.AllowedWhen {
		if w == "" {
			return algorithms.AllowedOne
		}
		return w
	}
	return a.Allowed == b.Allowed && norm(a.When) == norm(b.When) && slices.Equal(a.Admit, b.Admit) && slices.Equal(a.Deny, b.Deny)
}

// flipped is the answer read the other way round: 1 admitting for 0, the
// admitting texts for the denying ones; ok is false for a reading with no
// reverse (a count, what is left).
func flipped(r algorithms.ReplyLayout) (algorithms.ReplyLayout, bool) {
	f := algorithms.ReplyLayout{Allowed: r.Allowed}
	switch {
	case len(r.Admit)+len(r.Deny) > 0:
		f.Admit, f.Deny = r.Deny, r.Admit
	case r.When == "" || r.When == algorithms.AllowedOne || r.When == algorithms.AllowedNonZero:
		f.When = algorithms.AllowedZero
	case r.When == algorithms.AllowedZero:
		f.When = algorithms.AllowedOne
	default:
		return f, false
	}
	return f, true
}

// describeAllowed says how a layout reads its answer.
func describeAllowed(r algorithms.ReplyLayout) string {
	switch {
	case len(r.Admit)+len(r.Deny) > 0:
		return fmt.Sprintf("position %d, admit %q, deny %q", r.Allowed, r.Admit, r.Deny)
	case r.When == "" || r.When == algorithms.AllowedOne:
		return fmt.Sprintf("position %d, 1 (or true) admits", r.Allowed)
	case r.When == algorithms.AllowedZero:
		return fmt.Sprintf("position %d, 0 (or false) admits (when: zero)", r.Allowed)
	case r.When == algorithms.AllowedCount:
		return fmt.Sprintf("position %d, the count so far, admitting while it is at most the limit (when: count)", r.Allowed)
	}
	return fmt.Sprintf("position %d, when: %s", r.Allowed, r.When)
}
