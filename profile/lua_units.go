package profile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

var (
	expireCommand = regexp.MustCompile(`(?i)['"](p?expire|setex|psetex)['"]\s*,\s*[^,]+,\s*([^\n]*)`)
	setExpiry     = regexp.MustCompile(`(?i)['"](ex|px)['"]\s*,\s*([^\n]*)`)
)

// expiryUnit is the unit of an expiry that tok (a pattern) stands in, in
// statement st: seconds for EXPIRE, SETEX and SET ... EX, milliseconds for
// PEXPIRE, PSETEX and SET ... PX, scaled when tok is (EXPIRE key ms /
// 1000 takes milliseconds). Empty when tok is not in an expiry.
func expiryUnit(st, tok string) algorithms.TimeUnit {
	u, _ := expiryOf(st, tok)
	return u
}

// expiryOf is expiryUnit and the command the expiry goes to.
func expiryOf(st, tok string) (algorithms.TimeUnit, string) {
	t := regexp.MustCompile(tok)
	for _, m := range append(expireCommand.FindAllStringSubmatch(st, -1), setExpiry.FindAllStringSubmatch(st, -1)...) {
		expr := m[2]
		loc := t.FindStringIndex(expr)
		if loc == nil {
			continue
		}
		if multipliedBy.MatchString(expr[:loc[0]]) && !regexp.MustCompile(`\*\s*\(?\s*(tonumber\s*\(\s*)?$`).MatchString(expr[:loc[0]]) {
			// capacity / rate: a divisor of the expiry, not the expiry.
			continue
		}
		unit, command := algorithms.Seconds, strings.ToUpper(m[1])
		if command == "PEXPIRE" || command == "PSETEX" || command == "PX" {
			unit = algorithms.Milliseconds
		}
		if command == "EX" || command == "PX" {
			command = "SET ... " + command
		}
		return rescale(unit, scaleOf(expr[loc[1]:])), command
	}
	return "", ""
}

// rescale is the unit of a value that, multiplied by factor (divided by
// -factor for a negative one), is in unit: a value whose * 1000 is in
// milliseconds is in seconds; one whose / 1000 is in seconds, in
// milliseconds.
func rescale(unit algorithms.TimeUnit, factor int64) algorithms.TimeUnit {
	if unit == "" {
		return ""
	}
	us := unit.Micros()
	switch {
	case factor > 0:
		us *= factor
	case factor < 0:
		us /= -factor
	}
	for _, u := range []algorithms.TimeUnit{algorithms.Seconds, algorithms.Milliseconds, algorithms.Microseconds} {
		if u.Micros() == us {
			return u
		}
	}
	return ""
}

// unitFromName reads a unit from a local's name: window_ms, timeout_sec,
// now_us; microtime is PHP's microtime(true), in seconds.
func unitFromName(name string) algorithms.TimeUnit {
	n := strings.ToLower(name)
	switch {
	case n == "":
		return ""
	case strings.Contains(n, "microtime"):
		return algorithms.Seconds
	case strings.HasSuffix(n, "ms") || strings.Contains(n, "milli"):
		return algorithms.Milliseconds
	case strings.HasSuffix(n, "_us") || strings.HasSuffix(n, "usec") || strings.Contains(n, "micro"):
		return algorithms.Microseconds
	case strings.HasSuffix(n, "_s") || strings.Contains(n, "sec"):
		return algorithms.Seconds
	}
	return ""
}

// unitAfter is the unit of a value in unit multiplied by factor (divided
// by -factor for a negative one): milliseconds / 1000 are seconds,
// seconds * 1000 milliseconds.
func unitAfter(unit algorithms.TimeUnit, factor int64) algorithms.TimeUnit {
	return rescale(unit, -factor)
}

// commentUnit reads a unit from a comment beside an argument: "size of
// the window in milliseconds", "-- ms", "seconds", "µs".
func commentUnit(comment string) algorithms.TimeUnit {
	c := strings.ToLower(comment)
	switch {
	case c == "":
		return ""
	case regexp.MustCompile(`millisecond|\bmsecs?\b|\bms\b|\bmillis\b`).MatchString(c):
		return algorithms.Milliseconds
	case regexp.MustCompile(`microsecond|\busecs?\b|\bus\b|µs`).MatchString(c):
		return algorithms.Microseconds
	case regexp.MustCompile(`\bseconds?\b|\bsecs?\b|(\bin|\(|\d)\s*s\b`).MatchString(c):
		return algorithms.Seconds
	}
	return ""
}

// quantity is a time of the code: an argument taken for a time or a
// window, the time the script computes from TIME, or a local computed
// from them. unit is the unit the code holds it in (an argument's local,
// not the argument, where the local scales it).
type quantity struct {
	re   *regexp.Regexp
	arg  int // 1-based; 0 for a local
	unit algorithms.TimeUnit
	why  string
}

// Patterns of the arithmetic around a time.
var (
	literalScale = `(1000000|1e6|1000|1e3)\b`
	multiplied   = regexp.MustCompile(`^\s*\)?\s*[*/]`)
	multipliedBy = regexp.MustCompile(`[*/]\s*\(?\s*(tonumber\s*\(\s*)?$`)
	assignment   = regexp.MustCompile(`^\s*(?:local\s+)?([A-Za-z_]\w*)\s*=\s*([^=].*)$`)
	roundedCount = regexp.MustCompile(`math\.(ceil|floor)\s*\(`)
)

// inferUnits reads the unit of every argument taken for a time or a
// window, and the unit of time of every rate: first from names, the
// comments beside the arguments and TIME; then from the arithmetic, where
// times added, subtracted, compared or divided share a unit (window *
// 1000 beside a time in milliseconds is seconds); then from the expiries
// they go to; then from a rate multiplied by a time (elapsed * rate /
// 1000 is milliseconds, for a rate per second). What nothing says is
// guessed: a window in the unit of TIME or milliseconds, the caller's
// time in seconds (as PHP's microtime(true) and Python's time.time()
// give it).
func (l *luaLimiter) inferUnits() {
	var qs []*quantity
	byArg := map[int]*quantity{}
	for i := range l.argGuesses {
		a, k := &l.argGuesses[i], i+1
		if a.role != roleWindow && a.role != roleNow {
			continue
		}
		q := &quantity{re: l.src.token(k), arg: k}
		switch {
		case unitFromName(l.src.argVars[k]) != "":
			q.unit, q.why = unitFromName(l.src.argVars[k]), "its name says so"
		case commentUnit(l.src.argComment(k)) != "":
			q.unit, q.why = unitAfter(commentUnit(l.src.argComment(k)), l.src.argScale[k]), fmt.Sprintf("the comment beside it says %q", l.src.argComment(k))
		}
		qs = append(qs, q)
		byArg[k] = q
	}
	if l.src.nowVar != "" && l.src.timeVar != "" {
		qs = append(qs, &quantity{re: regexp.MustCompile(`\b` + regexp.QuoteMeta(l.src.nowVar) + `\b`), unit: l.src.timeUnit,
			why: "the script counts TIME in " + l.src.timeUnit.Name()})
	}
	lines := strings.Split(l.src.code, "\n")
	qs = l.derivedLocals(qs, lines)
	propagate(qs, lines)
	// Expiries next: a window's expiry may be generous, so it counts only
	// where the arithmetic said nothing.
	for _, line := range lines {
		for _, q := range qs {
			if q.unit != "" {
				continue
			}
			if u, command := expiryOf(line, q.re.String()); u != "" {
				q.unit, q.why = u, "it goes to "+command
			}
		}
	}
	propagate(qs, lines)
	l.inferRates(qs, lines)
	propagate(qs, lines)
	for k, q := range byArg {
		a := &l.argGuesses[k-1]
		a.unit, a.unitWhy = rescale(q.unit, l.src.argScale[k]), q.why
		if q.unit != "" && a.unit == "" {
			a.unit = q.unit
		}
		if a.unit != "" {
			continue
		}
		switch {
		case a.role == roleWindow && l.clockUnit() != "":
			a.unit, a.unitWhy = l.clockUnit(), "the script counts TIME in "+l.clockUnit().Name()
		case a.role == roleNow:
			a.unit, a.unitWhy = algorithms.Seconds, "nothing in the script says; seconds, as PHP's microtime(true) and Python's time.time() give"
		}
	}
}

// derivedLocals adds the locals computed from the times by adding,
// subtracting, taking the least or most of, or counting whole windows
// of them (math.ceil(...) * window): they are times in the same unit.
func (l *luaLimiter) derivedLocals(qs []*quantity, lines []string) []*quantity {
	known := map[string]bool{}
	for _, q := range qs {
		known[q.re.String()] = true
	}
	for range 4 {
		added := false
		for _, line := range lines {
			m := assignment.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			re := regexp.MustCompile(`\b` + regexp.QuoteMeta(m[1]) + `\b`)
			if known[re.String()] {
				continue
			}
			if overTime(m[2], qs) {
				// (now - at) / interval is a count of intervals, not a time.
				continue
			}
			for _, q := range qs {
				if additiveIn(q.re, m[2]) || roundedCount.MatchString(m[2]) && q.re.MatchString(m[2]) {
					qs = append(qs, &quantity{re: re})
					known[re.String()] = true
					added = true
					break
				}
			}
		}
		if !added {
			break
		}
	}
	return qs
}

// overTime reports whether expr divides by a time.
func overTime(expr string, qs []*quantity) bool {
	for _, q := range qs {
		if regexp.MustCompile(`/\s*\(?\s*(tonumber\s*\(\s*)?` + q.re.String()).MatchString(expr) {
			return true
		}
	}
	return false
}

// additiveIn reports whether re occurs in expr as a term that is added,
// subtracted or compared (a literal scale after it allowed), not
// multiplied or divided by something else.
func additiveIn(re *regexp.Regexp, expr string) bool {
	for _, loc := range re.FindAllStringIndex(expr, -1) {
		after, before := expr[loc[1]:], expr[:loc[0]]
		if multiplied.MatchString(after) && scaleOf(after) == 0 || multipliedBy.MatchString(before) {
			continue
		}
		return true
	}
	return false
}

// occurrence is a time met in a line: which, and the literal scale after
// it (window * 1000 is 1000).
type occurrence struct {
	q      *quantity
	factor int64
}

// propagate gives every time met beside a time of known unit in one line
// that unit: added, subtracted, compared or divided, each scaled by the
// literal after it.
func propagate(qs []*quantity, lines []string) {
	for range 8 {
		changed := false
		for _, line := range lines {
			var occ []occurrence
			for _, q := range qs {
				for _, loc := range q.re.FindAllStringIndex(line, -1) {
					after, before := line[loc[1]:], line[:loc[0]]
					f := scaleOf(after)
					if f == 0 && multiplied.MatchString(after) && !dividedByTime(after, qs) || multipliedBy.MatchString(before) && !dividedByTime2(before) {
						continue
					}
					occ = append(occ, occurrence{q, f})
					break
				}
			}
			var common algorithms.TimeUnit
			var from *quantity
			for _, o := range occ {
				if o.q.unit != "" {
					if c := unitAfter(o.q.unit, o.factor); c != "" {
						common, from = c, o.q
						break
					}
				}
			}
			if common == "" {
				continue
			}
			for _, o := range occ {
				if o.q.unit != "" {
					continue
				}
				if u := rescale(common, o.factor); u != "" {
					o.q.unit, o.q.why = u, "it meets "+strings.Trim(from.re.String(), `\b`)+", in "+common.Name()
					changed = true
				}
			}
		}
		if !changed {
			return
		}
	}
}

// dividedByTime reports whether after divides by a time: (now - at) /
// interval is a count of intervals, the two in one unit.
func dividedByTime(after string, qs []*quantity) bool {
	m := regexp.MustCompile(`^\s*\)?\s*/\s*\(?\s*(tonumber\s*\(\s*)?([A-Za-z_]\w*(\s*\[\s*\d+\s*\])?)`).FindStringSubmatch(after)
	if m == nil {
		return false
	}
	for _, q := range qs {
		if q.re.MatchString(m[2]) {
			return true
		}
	}
	return false
}

// dividedByTime2 reports whether before ends in a division, the time being
// the divisor: what precedes was checked as a time by dividedByTime.
func dividedByTime2(before string) bool {
	return regexp.MustCompile(`/\s*\(?\s*(tonumber\s*\(\s*)?$`).MatchString(before)
}

// inferRates reads each rate's unit of time from where it multiplies a
// time (elapsed * rate / 1000: per second, elapsed in milliseconds), or
// is set against a window (period / rate; intervals counted * rate: per
// window). A time of unknown unit a rate per second multiplies takes the
// unit that makes it so.
func (l *luaLimiter) inferRates(qs []*quantity, lines []string) {
	for i := range l.argGuesses {
		a, k := &l.argGuesses[i], i+1
		if a.role != roleRate {
			continue
		}
		r := l.src.token(k).String()
		for _, line := range lines {
			for _, q := range qs {
				t := q.re.String()
				// time * rate [scale], rate * time [scale]
				m := regexp.MustCompile(t + `\s*\)?\s*\*\s*(tonumber\s*\(\s*)?` + r + `(.*)$|` + r + `\s*\)?\s*\*\s*\(?\s*` + t + `(.*)$`).FindStringSubmatch(line)
				if m == nil {
					continue
				}
				rest := m[2] + m[3]
				f := scaleOf(rest)
				switch {
				case q.unit != "" && a.per == "":
					a.per = unitAfter(q.unit, f)
				case q.unit == "":
					// A rate per second unless its name says otherwise.
					per := algorithms.Seconds
					if u := unitFromName(l.src.argVars[k]); u != "" {
						per = u
					}
					q.unit, q.why = rescale(per, f), fmt.Sprintf("%s multiplies it by a rate per %s%s", strings.TrimSpace(line), strings.TrimSuffix(per.Name(), "s"), scaleWords(f))
					a.per = per
				}
			}
			w := `(` + windowTokens(l) + `)`
			if w != "()" && regexp.MustCompile(w+`\s*\)?\s*/\s*(tonumber\s*\(\s*)?`+r).MatchString(line) {
				a.perWindow = true
			}
		}
		// Intervals counted from a division by the window, times the rate:
		// a rate per window.
		if w := windowTokens(l); w != "" {
			counted := regexp.MustCompile(`(?m)^\s*(?:local\s+)?([A-Za-z_]\w*)\s*=\s*math\.floor\s*\([^\n]*/\s*(` + w + `)`)
			for _, m := range counted.FindAllStringSubmatch(l.src.code, -1) {
				if regexp.MustCompile(`\b` + m[1] + `\s*\*\s*` + r + `|` + r + `\s*\*\s*` + m[1] + `\b`).MatchString(l.src.code) {
					a.perWindow = true
				}
			}
		}
	}
}

// windowTokens is an alternation of the window arguments' tokens.
func windowTokens(l *luaLimiter) string {
	var ts []string
	for i, a := range l.argGuesses {
		if a.role == roleWindow {
			ts = append(ts, l.src.token(i+1).String())
		}
	}
	return strings.Join(ts, "|")
}

// scaleWords says a literal scale in words: " / 1000".
func scaleWords(f int64) string {
	switch {
	case f > 0:
		return fmt.Sprintf(" * %d", f)
	case f < 0:
		return fmt.Sprintf(" / %d", -f)
	}
	return ""
}

// clockUnit is the unit the script keeps time in: TIME's, as the code
// computes it.
func (l *luaLimiter) clockUnit() algorithms.TimeUnit {
	if l.src.timeVar != "" {
		return l.src.timeUnit
	}
	return ""
}
