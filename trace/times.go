package trace

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
)

// clfLayout is the access log's time, without its brackets.
const clfLayout = "02/Jan/2006:15:04:05 -0700"

type timeKind int

const (
	timeUndecided timeKind = iota
	timeRFC3339
	timeUnix
	timeCLF
	timeLayout
)

// timeParser reads a trace's times as nanoseconds since the epoch, with
// the resolution each was written at (its tick: a second for the access
// log's, a millisecond for 1700000000123 read as milliseconds). It keeps
// the last time read: lines in a row mostly share one (an access log's
// second), and reading it again costs more than comparing it.
type timeParser struct {
	kind timeKind
	// unit is a unix time's unit in nanoseconds; layout a Go layout's
	// text and layoutTick its resolution.
	unit       int64
	layout     string
	layoutTick int64
	// auto decides the kind from the first time read.
	auto bool

	last       []byte
	lastNs     int64
	lastTick   int64
	lastParsed bool
}

// newTimeParser reads times written as format names (see Spec.TimeFormat).
func newTimeParser(format string) (*timeParser, error) {
	p := &timeParser{}
	switch format {
	case "", TimeAuto:
		p.auto = true
	case TimeRFC3339:
		p.kind = timeRFC3339
	case TimeUnixSeconds:
		p.kind, p.unit = timeUnix, int64(time.Second)
	case TimeUnixMillis:
		p.kind, p.unit = timeUnix, int64(time.Millisecond)
	case TimeUnixMicros:
		p.kind, p.unit = timeUnix, int64(time.Microsecond)
	case TimeUnixNanos:
		p.kind, p.unit = timeUnix, 1
	case TimeCLF:
		p.kind = timeCLF
	default:
		if !strings.Contains(format, "2006") {
			return nil, fmt.Errorf("unknown time format %q (known: %s, or a Go layout such as 2006-01-02 15:04:05)", format, strings.Join(TimeFormats, ", "))
		}
		p.kind, p.layout, p.layoutTick = timeLayout, format, layoutTick(format)
	}
	return p, nil
}

// layoutTick is the resolution of times a Go layout writes: its
// fractional seconds, or a second.
func layoutTick(layout string) int64 {
	_, frac, ok := strings.Cut(layout, "05.")
	if !ok {
		_, frac, ok = strings.Cut(layout, "05,")
	}
	if !ok {
		return int64(time.Second)
	}
	digits := 0
	for digits < len(frac) && (frac[digits] == '0' || frac[digits] == '9') {
		digits++
	}
	return tickOf(int64(time.Second), digits)
}

// tickOf is unit divided by 10 per fractional digit, at least 1.
func tickOf(unit int64, digits int) int64 {
	for ; digits > 0 && unit > 1; digits-- {
		unit /= 10
	}
	return max(unit, 1)
}

// describe names how the parser reads times, for messages.
func (p *timeParser) describe() string {
	switch p.kind {
	case timeRFC3339:
		return "RFC 3339"
	case timeUnix:
		switch p.unit {
		case int64(time.Second):
			return "seconds since the epoch"
		case int64(time.Millisecond):
			return "milliseconds since the epoch"
		case int64(time.Microsecond):
			return "microseconds since the epoch"
		}
		return "nanoseconds since the epoch"
	case timeCLF:
		return "the access log's time (" + clfLayout + ")"
	case timeLayout:
		return "the layout " + p.layout
	}
	return "a time"
}

// parse reads b as a time: nanoseconds since the epoch and the tick it
// was written at. An error says why b is not a time, for a bad line.
func (p *timeParser) parse(b []byte) (ns, tick int64, err error) {
	if p.lastParsed && bytes.Equal(b, p.last) {
		return p.lastNs, p.lastTick, nil
	}
	if p.kind == timeUndecided {
		if err := p.decide(b); err != nil {
			return 0, 0, err
		}
	}
	switch p.kind {
	case timeUnix:
		ns, tick, err = parseUnix(b, p.unit)
	case timeRFC3339:
		ns, tick, err = parseRFC3339(b)
	case timeCLF:
		ns, tick, err = parseLayout(bytes.TrimSuffix(bytes.TrimPrefix(b, []byte("[")), []byte("]")), clfLayout, int64(time.Second))
	case timeLayout:
		ns, tick, err = parseLayout(b, p.layout, p.layoutTick)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not %s", clip(b), p.describe())
	}
	p.last = append(p.last[:0], b...)
	p.lastNs, p.lastTick, p.lastParsed = ns, tick, true
	return ns, tick, nil
}

// decide settles, from the first time read, how an auto parser reads
// every time.
func (p *timeParser) decide(b []byte) error {
	if whole, _, ok := splitDecimal(b); ok {
		p.kind = timeUnix
		switch {
		case whole < 1e11:
			p.unit = int64(time.Second)
		case whole < 1e14:
			p.unit = int64(time.Millisecond)
		case whole < 1e17:
			p.unit = int64(time.Microsecond)
		default:
			p.unit = 1
		}
		return nil
	}
	if _, _, err := parseRFC3339(b); err == nil {
		p.kind = timeRFC3339
		return nil
	}
	if _, _, err := parseLayout(bytes.TrimSuffix(bytes.TrimPrefix(b, []byte("[")), []byte("]")), clfLayout, int64(time.Second)); err == nil {
		p.kind = timeCLF
		return nil
	}
	return fmt.Errorf("%q is not a time (RFC 3339, a number since the epoch, or %s; or give time_format)", clip(b), clfLayout)
}

// splitDecimal reads b as digits with an optional fraction: the whole part
// and the fraction's digits.
func splitDecimal(b []byte) (whole int64, frac []byte, ok bool) {
	w, f, hasDot := bytes.Cut(b, []byte("."))
	if len(w) == 0 || len(w) > 19 || (hasDot && len(f) == 0) {
		return 0, nil, false
	}
	for _, c := range w {
		if c < '0' || c > '9' {
			return 0, nil, false
		}
		whole = whole*10 + int64(c-'0')
		if whole < 0 {
			return 0, nil, false
		}
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, nil, false
		}
	}
	return whole, f, true
}

// parseUnix reads b as a number of units (nanoseconds each) since the
// epoch, a fraction allowed, exactly: no float rounds it.
func parseUnix(b []byte, unit int64) (ns, tick int64, err error) {
	whole, frac, ok := splitDecimal(b)
	if !ok || whole > math.MaxInt64/unit {
		return 0, 0, errNotTime
	}
	ns = whole * unit
	step := unit
	for _, c := range frac {
		step /= 10
		if step == 0 {
			break
		}
		ns += int64(c-'0') * step
	}
	if ns < 0 {
		return 0, 0, errNotTime
	}
	return ns, tickOf(unit, len(frac)), nil
}

var errNotTime = fmt.Errorf("not a time")

// parseRFC3339 reads b as RFC 3339, with its tick the resolution of its
// seconds.
func parseRFC3339(b []byte) (ns, tick int64, err error) {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, 0, err
	}
	if !representable(t) {
		return 0, 0, errNotTime
	}
	digits := 0
	if len(b) > 19 && b[19] == '.' {
		for digits < len(b)-20 && b[20+digits] >= '0' && b[20+digits] <= '9' {
			digits++
		}
	}
	return t.UnixNano(), tickOf(int64(time.Second), digits), nil
}

// parseLayout reads b with a Go layout whose resolution is tick.
func parseLayout(b []byte, layout string, tick int64) (ns, tickOut int64, err error) {
	t, err := time.Parse(layout, string(b))
	if err != nil {
		return 0, 0, err
	}
	if !representable(t) {
		return 0, 0, errNotTime
	}
	return t.UnixNano(), tick, nil
}

// representable reports whether t is in nanoseconds' reach of the epoch
// (1678 to 2262), and not before it: a trace's times are its requests'.
func representable(t time.Time) bool {
	return t.Year() >= 1970 && t.Year() <= 2261
}

// clip shortens text quoted in a message.
func clip(b []byte) string {
	const most = 80
	if len(b) <= most {
		return string(b)
	}
	return string(b[:most]) + "..."
}
