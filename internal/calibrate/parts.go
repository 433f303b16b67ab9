package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// checkParts checks each optional part the reply is declared to carry on
// the burst identity's first burst, read as pick reads its answer: what
// is left falls by one from limit - 1; a retry-after, when denied, is more
// than nothing and at most the window; a reset-after is at most the
// window; an instant lies around the server's time (within the window
// after it). A time in another unit that fits where the guess's does not
// is fixed; a remaining that rises is a count, and left out; anything
// else that does not fit is doubted.
func checkParts(rep *Report, pick *scored, reply algorithms.ReplyLayout) algorithms.ReplyLayout {
	out := reply
	out.Values = map[algorithms.ReplyPart]algorithms.ReplyValue{}
	out.Remaining, out.RetryAfterMs, out.ServerTimeUs = 0, 0, 0
	b := pick.run.first
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		v, ok := reply.Value(part)
		if !ok {
			continue
		}
		field := "reply." + name
		if part == algorithms.PartRemaining {
			keep, f := checkRemaining(pick, v, b)
			if f != nil {
				f.Field = field
				rep.add(*f)
			}
			if keep {
				setPart(&out, part, v)
			}
			continue
		}
		fit, sample := timedFits(pick, part, v, b)
		if fit || sample == "" {
			if !fit {
				rep.add(Finding{Field: field, Doubt: true, Text: "no reply of the probes carried it, so it was not checked"})
			}
			setPart(&out, part, v)
			continue
		}
		var fits []algorithms.TimeUnit
		for _, u := range []algorithms.TimeUnit{algorithms.Seconds, algorithms.Milliseconds, algorithms.Microseconds} {
			if u == v.Unit {
				continue
			}
			w := v
			w.Unit = u
			if ok, _ := timedFits(pick, part, w, b); ok {
				fits = append(fits, u)
			}
		}
		if len(fits) == 1 {
			rep.add(Finding{Field: field, Fixed: true, Text: fmt.Sprintf("unit %s, not %s: the reply said %s, which %s only in %s",
				fits[0], v.Unit, sample, partFit(part), fits[0].Name())})
			v.Unit = fits[0]
		} else {
			rep.add(Finding{Field: field, Doubt: true, Text: fmt.Sprintf("the reply said %s, which in %s is not %s: is it this part, in this unit?", sample, v.Unit.Name(), partFit(part))})
		}
		setPart(&out, part, v)
	}
	// Written back in the short forms where they say all.
	if v, ok := out.Values[algorithms.PartRemaining]; ok && len(v.None) == 0 {
		delete(out.Values, algorithms.PartRemaining)
		out.Remaining = v.Position
	}
	if len(out.Values) == 0 {
		out.Values = nil
	}
	return out
}

// partFit says what a timed part's value should be, for messages.
func partFit(part algorithms.ReplyPart) string {
	switch part {
	case algorithms.PartRetryAfter:
		return fmt.Sprintf("at least %s and at most the %s window when it denies at once after the limit", burstPolicy.Window/time.Duration(2*burstPolicy.Limit), burstPolicy.Window)
	case algorithms.PartResetAfter:
		return fmt.Sprintf("at most the %s window", burstPolicy.Window)
	case algorithms.PartServerTime:
		return "the server's time"
	}
	return fmt.Sprintf("an instant within the %s window after the server's time", burstPolicy.Window)
}

// timedFits reports whether part, read as v, fits every reply of b that
// carries it; sample is the first value that did not fit (or the first
// read), as the reply said it: "" when no reply carried the part.
func timedFits(pick *scored, part algorithms.ReplyPart, v algorithms.ReplyValue, b burst) (bool, string) {
	layout := pick.rd.layout
	setPart(&layout, part, v)
	window := burstPolicy.Window
	slack := window / 5
	carried, sample := 0, ""
	for _, c := range b.calls {
		if c.err != nil {
			continue
		}
		d, bad, err := layout.Parse(c.req, c.raw)
		if err != nil {
			continue
		}
		raw := rawAt(c.raw, v.Position)
		if len(bad) > 0 {
			return false, raw
		}
		if !d.Carries(part) {
			continue
		}
		carried++
		if sample == "" {
			sample = raw
		}
		var ok bool
		switch part {
		case algorithms.PartRetryAfter:
			// Denied at once after the limit, the least any family makes
			// a caller wait is a bucket's time for one unit: window /
			// limit.
			least := window / time.Duration(2*burstPolicy.Limit)
			ok = d.RetryAfter <= window+slack && (d.Allowed || d.RetryAfter >= least)
		case algorithms.PartResetAfter:
			ok = d.ResetAfter <= window+slack
		case algorithms.PartServerTime:
			ok = within(d.ServerNowMicros, b.timeBefore-time.Second.Microseconds(), b.timeAfter+time.Second.Microseconds())
		case algorithms.PartResetAt:
			ok = within(d.ResetAtMicros, b.timeBefore-2*time.Second.Microseconds(), b.timeAfter+(window+slack+2*time.Second).Microseconds())
		case algorithms.PartWindowEnd:
			ok = within(d.WindowEndMicros, b.timeBefore-2*time.Second.Microseconds(), b.timeAfter+(window+slack+2*time.Second).Microseconds())
		}
		if !ok {
			return false, raw
		}
	}
	return carried > 0, sample
}

// within reports whether v lies in [lo, hi]; a bound of the server's time
// that could not be read (lo or hi near 0) holds anything.
func within(v, lo, hi int64) bool {
	if lo <= time.Minute.Microseconds() || hi <= time.Minute.Microseconds() {
		return true
	}
	return v >= lo && v <= hi
}

// rawAt is the reply's value at pos, as it said it.
func rawAt(raw any, pos int) string { return answerText(raw, pos) }

// checkRemaining checks that what is left falls by one from limit - 1
// over the admitted requests of b. It keeps the part unless it rises by
// one (a count of requests, not what is left); f says what it found.
func checkRemaining(pick *scored, v algorithms.ReplyValue, b burst) (keep bool, f *Finding) {
	layout := pick.rd.layout
	setPart(&layout, algorithms.PartRemaining, v)
	if !layout.SharesAllowed(algorithms.PartRemaining) && v.Position == layout.Allowed {
		return false, &Finding{Fixed: true, Text: fmt.Sprintf("left out: position %d is the answer", v.Position)}
	}
	var vals []float64
	var said []string
	for _, c := range b.calls {
		if c.err != nil {
			continue
		}
		d, _, err := layout.Parse(c.req, c.raw)
		if err != nil || !d.Allowed || !d.Carries(algorithms.PartRemaining) {
			continue
		}
		x, err := strconv.ParseFloat(d.Remaining, 64)
		if err != nil {
			continue
		}
		vals = append(vals, x)
		said = append(said, d.Remaining)
	}
	if len(vals) < 2 {
		return true, &Finding{Doubt: true, Text: "too few admitted replies carried it to check it"}
	}
	step := func(want float64) bool {
		for i := 1; i < len(vals); i++ {
			if math.Abs(vals[i]-vals[i-1]-want) > 0.3 {
				return false
			}
		}
		return true
	}
	limit := float64(burstPolicy.Limit)
	shown := strings.Join(said[:min(len(said), 4)], ", ")
	switch {
	case step(-1) && math.Abs(vals[0]-(limit-1)) <= 0.35:
		return true, nil
	case step(-1) && math.Abs(vals[0]-limit) <= 0.35:
		return true, &Finding{Doubt: true, Text: fmt.Sprintf("it said %s... over the first requests of a fresh identity under %s: what was left before each request, where the audit reads what is left after it (%g first)",
			shown, burstPolicy, limit-1)}
	case step(1):
		return false, &Finding{Fixed: true, Text: fmt.Sprintf("left out: it rose by one with each admitted request (%s...), a count of requests, not what is left", shown)}
	case roundedDown(vals, limit-1):
		return true, &Finding{Doubt: true, Text: fmt.Sprintf("it said %s... over the first requests of a fresh identity under %s, where what is left falls by one from %g: what is left less a fraction, rounded down (a Lua number reaches Redis as an integer, its fraction dropped); the audit reads it as it comes",
			shown, burstPolicy, limit-1)}
	case slices.Equal(vals, make([]float64, len(vals))):
		return true, &Finding{Doubt: true, Text: fmt.Sprintf("it said 0 to every admitted request of a fresh identity under %s: is it what is left?", burstPolicy)}
	}
	return true, &Finding{Doubt: true, Text: fmt.Sprintf("it said %s... over the first requests of a fresh identity under %s, where what is left falls by one from %g: is it what is left?", shown, burstPolicy, limit-1)}
}

// roundedDown reports whether vals are what is left, from first down by
// one, each less a fraction at most: 8, 8, 7, 6 for 9, 8, 7, 6.
func roundedDown(vals []float64, first float64) bool {
	for i, v := range vals {
		want := first - float64(i)
		if v > want+0.001 || v < want-1 {
			return false
		}
	}
	return true
}
