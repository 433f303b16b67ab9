package profile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// argRole is what init takes an argument for.
type argRole int

const (
	roleUnknown argRole = iota
	roleLimit
	roleBurst
	roleWindow
	roleRate
	roleNow
	roleCost
	roleRequestID
	roleIdentity
)

// skeletonArg is one ARGV template of a skeleton, with what to check.
type skeletonArg struct {
	Value, Comment string
	check          string
	role           argRole
	// why says what the role was read from; unit is a time's unit, and
	// unitWhy what it was read from.
	why, unitWhy string
	unit         algorithms.TimeUnit
}

// editMe is the template init writes for an argument it cannot place: a
// variable no profile knows, so that validate points at it until it is
// edited, rather than a guess that runs and misleads.
const editMe = "${EDIT_ME}"

// Words in an argument's name that say what it is, checked in this order.
var (
	costWords     = regexp.MustCompile(`cost|amount|weight|permits?|quantity|requested|^hits?$|incr(ement|_?by)?$|^tokens?$|^units?$|consume`)
	burstWords    = regexp.MustCompile(`burst|capacity|bucket_?size|max_?tokens|max_?burst|^size$|^cap$|^full$`)
	limitWords    = regexp.MustCompile(`limit|^max|max_|quota|allowance|threshold|^requests$|^count$|allowed`)
	windowWords   = regexp.MustCompile(`window|period|interval|duration|ttl|expir|span|lifetime|^per$|frame`)
	rateWords     = regexp.MustCompile(`rate|refill|per_?s(ec(ond)?)?$|^rps$|leak|drain|speed`)
	nowWords      = regexp.MustCompile(`now|timestamp|^ts$|_ts$|^time$|current_?time|clock|microtime|epoch`)
	idWords       = regexp.MustCompile(`request_?id|req_?id|uuid|nonce|member|unique|^id$`)
	identityWords = regexp.MustCompile(`user|client|identity|identifier|account|tenant|^ip$`)
)

// guessArgs guesses every argument's template: by its name first, then by
// what the code does with it; an argument it cannot place gets editMe.
func (l *luaLimiter) guessArgs() {
	l.argGuesses = make([]skeletonArg, l.src.args)
	for k := 1; k <= l.src.args; k++ {
		role, why := l.roleOf(k)
		l.argGuesses[k-1] = skeletonArg{role: role, why: why}
	}
	// Units come second, the windows' first: the caller's time takes the
	// unit of a window it is set against.
	for _, role := range []argRole{roleWindow, roleNow} {
		for k := 1; k <= l.src.args; k++ {
			if a := &l.argGuesses[k-1]; a.role == role && role == roleWindow {
				a.unit, a.unitWhy = l.windowUnit(k)
			} else if a.role == role {
				a.unit, a.unitWhy = l.nowUnit(k)
			}
		}
	}
	for k := 1; k <= l.src.args; k++ {
		l.argGuesses[k-1] = l.template(k, l.argGuesses[k-1])
	}
}

// roleOf is what argument k is, from its local's name, or failing that
// from the commands it is passed to, and what it was read from.
func (l *luaLimiter) roleOf(k int) (argRole, string) {
	n := strings.ToLower(l.src.argVars[k])
	const byName = "from its name"
	switch {
	case n == "":
	case burstWords.MatchString(n):
		return roleBurst, byName
	case costWords.MatchString(n):
		return roleCost, byName
	case windowWords.MatchString(n):
		return roleWindow, byName
	case limitWords.MatchString(n) && !strings.Contains(n, "rate"):
		return roleLimit, byName
	case nowWords.MatchString(n):
		return roleNow, byName
	case rateWords.MatchString(n):
		return roleRate, byName
	case limitWords.MatchString(n):
		return roleLimit, byName
	case idWords.MatchString(n) || strings.HasSuffix(n, "_id") && !identityWords.MatchString(n):
		return roleRequestID, byName
	case identityWords.MatchString(n):
		return roleIdentity, byName
	}
	// By use: what the code does with it.
	tok := l.src.token(k).String()
	for _, st := range l.src.statements(k) {
		switch {
		case expiryUnit(st, tok) != "":
			_, command := expiryOf(st, tok)
			return roleWindow, "from its use: it goes to " + command
		case regexp.MustCompile(`(?i)['"]h?incrby(float)?['"][^)]*` + tok).MatchString(st):
			return roleCost, "from its use: the count goes up by it"
		case regexp.MustCompile(`[<>]=?\s*(tonumber\s*\(\s*)?`+tok+`|`+tok+`\s*\)?\s*[<>]=?`).MatchString(st) && !mentionsTime(st, l):
			return roleLimit, "from its use: a count is compared with it"
		case regexp.MustCompile(`(?i)['"]zadd['"][^)]*,\s*` + tok + `\s*\)`).MatchString(st):
			return roleRequestID, "from its use: a sorted set's member"
		}
	}
	return roleUnknown, ""
}

// mentionsTime reports whether a statement involves the script's time.
func mentionsTime(st string, l *luaLimiter) bool {
	if l.src.nowVar != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(l.src.nowVar)+`\b`).MatchString(st) {
		return true
	}
	for k, a := range l.argGuesses {
		if a.role == roleNow && l.src.token(k+1).MatchString(st) {
			return true
		}
	}
	return false
}

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

// windowUnit is the unit of window argument k: its name (rescaled when its
// local scales it), an expiry it is passed to, a scaling where it meets
// the script's time, else the unit the script keeps time in; and what it
// was read from.
func (l *luaLimiter) windowUnit(k int) (algorithms.TimeUnit, string) {
	if u := rescale(unitFromName(l.src.argVars[k]), l.src.argScale[k]); u != "" {
		return u, "its name says so"
	}
	tok := l.src.token(k).String()
	for _, st := range l.src.statements(k) {
		if u, command := expiryOf(st, tok); u != "" {
			return u, "it goes to " + command
		}
	}
	if u := l.scaledAgainstTime(k); u != "" {
		return u, "as the code scales it to its time"
	}
	if u := l.clockUnit(); u != "" {
		return u, "the script counts TIME in " + u.Name()
	}
	return "", ""
}

// scaledAgainstTime is the unit of argument k when the code scales it
// where it meets the script's time: window * 1000 beside a time in
// milliseconds is seconds.
func (l *luaLimiter) scaledAgainstTime(k int) algorithms.TimeUnit {
	clock := l.clockUnit()
	if clock == "" {
		return ""
	}
	tok := l.src.token(k)
	for _, st := range l.src.statements(k) {
		if !mentionsTime(st, l) {
			continue
		}
		loc := tok.FindStringIndex(st)
		if f := scaleOf(st[loc[1]:]); f != 0 {
			return rescale(clock, f)
		}
	}
	return ""
}

// clockUnit is the unit the script keeps time in: TIME's, as the code
// computes it, else the unit of the time its caller gives it (when that
// is known from elsewhere).
func (l *luaLimiter) clockUnit() algorithms.TimeUnit {
	if l.src.timeVar != "" {
		return l.src.timeUnit
	}
	return ""
}

// nowUnit is the unit of the caller's time in argument k: its name, the
// unit of a window it is set against; seconds when nothing says (as PHP's
// microtime(true) and Python's time.time() give them); and what it was
// read from.
func (l *luaLimiter) nowUnit(k int) (algorithms.TimeUnit, string) {
	if u := rescale(unitFromName(l.src.argVars[k]), l.src.argScale[k]); u != "" {
		return u, "its name says so"
	}
	for w, a := range l.argGuesses {
		if a.role != roleWindow || a.unit == "" {
			continue
		}
		wt := l.src.token(w + 1)
		for _, st := range l.src.statements(k) {
			if wt.MatchString(st) {
				return a.unit, fmt.Sprintf("as %s, which it is set against", l.src.describeArg(w+1))
			}
		}
	}
	return algorithms.Seconds, "nothing in the script says; seconds, as PHP's microtime(true) and Python's time.time() give"
}

// template is argument k's template and comment, from its role and unit.
func (l *luaLimiter) template(k int, a skeletonArg) skeletonArg {
	what := l.src.describeArg(k)
	// Every argument is a guess: its comment says CHECK, and the list
	// init prints says what the guess was read from.
	set := func(v, comment, check string) skeletonArg {
		a.Value, a.Comment, a.check = v, what, check
		if comment != "" {
			a.Comment += ": " + comment
		}
		if a.check == "" {
			a.check = fmt.Sprintf("%s: %s, %s", what, v, a.why)
		}
		a.Comment += "; CHECK"
		return a
	}
	switch a.role {
	case roleLimit:
		return set("${limit}", "requests per window", "")
	case roleBurst:
		return set("${burst}", "the bucket's capacity", "")
	case roleCost:
		return set("${cost}", "the units this request takes (a scenario's cost:, 1 by default)", "")
	case roleRequestID:
		return set("${request_id}", "unique per request", "")
	case roleIdentity:
		return set("${identity}", "the caller being limited", "")
	case roleWindow:
		v := map[algorithms.TimeUnit]string{algorithms.Seconds: "${window_s}", algorithms.Milliseconds: "${window_ms}", algorithms.Microseconds: "${window_us}"}[a.unit]
		if v == "" {
			return set("${window_ms}", "the window; its unit is a guess", fmt.Sprintf("%s: the window (%s); its unit: guessed milliseconds (${window_s}, ${window_ms} or ${window_us})", what, a.why))
		}
		return set(v, "the window in "+a.unit.Name(), fmt.Sprintf("%s: the window (%s), in %s (%s)", what, a.why, a.unit.Name(), a.unitWhy))
	case roleNow:
		v, name := l.nowTemplate(k, a.unit)
		return set(v, "the caller's clock, "+name, fmt.Sprintf("%s: the caller's clock (%s), %s (%s): the unit and precision the caller sends (${now_s}, ${now_s_float}, ${now_ms} or ${now_us})", what, a.why, name, a.unitWhy))
	case roleRate:
		if l.hasRole(roleWindow) {
			return set("${limit}", "requests per window, as the script has a window too", "")
		}
		u := l.timeUnitAnywhere()
		if u == "" || u == algorithms.Seconds {
			return set("${rate_per_s}", "requests per second", fmt.Sprintf("%s: a rate per second (${rate_per_s})", what))
		}
		per := strings.TrimSuffix(u.Name(), "s")
		return set(editMe, "a rate per "+per, fmt.Sprintf("%s: a rate per %s: rlbench passes ${rate_per_s}, ${limit} and the window in any unit, not this", what, per))
	}
	return set(editMe, "rlbench could not tell what this is", fmt.Sprintf("%s: what it is: rlbench could not tell, and wrote %s, which validate refuses until you replace it", what, editMe))
}

// nowTemplate is the template of a time in unit from the caller, and its
// unit in words: seconds are whole (${now_s}) where the code floors them
// or builds a name with them, else with microseconds (${now_s_float}).
func (l *luaLimiter) nowTemplate(k int, unit algorithms.TimeUnit) (string, string) {
	switch unit {
	case algorithms.Milliseconds:
		return "${now_ms}", "in milliseconds"
	case algorithms.Microseconds:
		return "${now_us}", "in microseconds"
	}
	tok := l.src.token(k).String()
	whole := regexp.MustCompile(`math\.floor\s*\(\s*` + tok + `|\.\.\s*` + tok + `|` + tok + `\s*\.\.|` + tok + `\s*%`)
	for _, st := range l.src.statements(k) {
		if whole.MatchString(st) {
			return "${now_s}", "in whole seconds"
		}
	}
	return "${now_s_float}", "in seconds with microseconds"
}

// hasRole reports whether any argument was taken for role.
func (l *luaLimiter) hasRole(role argRole) bool {
	for _, a := range l.argGuesses {
		if a.role == role {
			return true
		}
	}
	return false
}

// timeUnitAnywhere is the unit the script keeps time in: TIME's, or the
// caller's time argument's.
func (l *luaLimiter) timeUnitAnywhere() algorithms.TimeUnit {
	if u := l.clockUnit(); u != "" {
		return u
	}
	for _, a := range l.argGuesses {
		if a.role == roleNow {
			return a.unit
		}
	}
	return ""
}
