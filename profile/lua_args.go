package profile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

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
	// roleUnused is an argument the code never reads; roleLabel a name
	// (a throttler's, a namespace's) it only passes along; roleFallback
	// the caller's time, which the script replaces with TIME when empty.
	roleUnused
	roleLabel
	roleFallback
)

// skeletonArg is one ARGV template of a skeleton, with what to check.
type skeletonArg struct {
	Value, Comment string
	// Check says the line stays marked CHECK; Notes are written above it.
	Check bool
	Notes []string
	check string
	// precisionGuessed says a time in seconds was taken as fractions (or
	// whole) with nothing in the Lua to say which.
	precisionGuessed bool
	role             argRole
	// why says what the role was read from; unit is a time's unit, and
	// unitWhy what it was read from; per is a rate's unit of time
	// (a second, a millisecond; "" for one per window).
	why, unitWhy string
	unit         algorithms.TimeUnit
	per          algorithms.TimeUnit
	perWindow    bool
}

// editMe is the template init writes for an argument it cannot place: a
// variable no profile knows, so that validate points at it until it is
// edited, rather than a guess that runs and misleads.
const editMe = "${EDIT_ME}"

// nameWords splits a local's name into its lower-case words: incrementBy
// is [increment by], n_tokens [n tokens], maxTokens [max tokens].
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// has reports whether words holds any of want.
func has(words []string, want ...string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(want, w) })
}

// roleByName is what a local's name says an argument is; ok is false when
// it says nothing.
func roleByName(name string) (argRole, bool) {
	w := nameWords(name)
	only := func(names ...string) bool { return len(w) == 1 && slices.Contains(names, w[0]) }
	switch {
	case len(w) == 0:
	case has(w, "burst", "capacity", "cap", "full") || has(w, "max", "maximum") && has(w, "tokens", "token", "burst") || has(w, "bucket") && has(w, "size") || only("size"):
		return roleBurst, true
	case has(w, "cost", "amount", "weight", "permit", "permits", "quantity", "requested", "increment", "incr", "incrby", "consume", "delta", "fillup") ||
		only("tokens", "token", "units", "unit", "hits", "hit", "n") || has(w, "n", "num", "number") && has(w, "tokens", "units", "permits"):
		return roleCost, true
	case has(w, "per") && has(w, "second", "sec", "s", "ms", "millisecond", "minute", "min") || has(w, "rps", "qps", "persec"):
		return roleRate, true
	case has(w, "window", "period", "interval", "duration", "ttl", "expire", "expiry", "expiration", "expires", "span", "lifetime", "frame", "timeout", "decay") || only("per", "secs", "seconds"):
		return roleWindow, true
	case has(w, "limit", "quota", "allowance", "threshold") && !has(w, "rate"), has(w, "max", "maximum") && !has(w, "rate"), only("requests", "count", "allowed", "allow"):
		return roleLimit, true
	case has(w, "now", "timestamp", "ts", "time", "clock", "microtime", "epoch"):
		return roleNow, true
	case has(w, "rate", "refill", "rps", "leak", "drain", "speed", "replenish"):
		return roleRate, true
	case has(w, "limit", "max"):
		return roleLimit, true
	case has(w, "uuid", "nonce", "member", "unique") || has(w, "id") && !has(w, "user", "client", "account", "tenant"):
		return roleRequestID, true
	case has(w, "user", "client", "identity", "identifier", "account", "tenant", "ip"):
		return roleIdentity, true
	case has(w, "name", "label", "prefix", "namespace", "tag", "scope"):
		return roleLabel, true
	}
	return roleUnknown, false
}

// guessArgs guesses every argument's template: an argument the code never
// reads is sent empty, one that falls back to TIME left empty; then by
// what the code does with it when that is unmistakable (a count goes up
// by it), by its name, by what else the code does with it, and last by
// what it meets among the arguments already placed (a time plus the
// window is a time). Units come from names, comments and the arithmetic
// (lua_units.go). An argument nothing places gets editMe.
func (l *luaLimiter) guessArgs() {
	l.argGuesses = make([]skeletonArg, l.src.args)
	for k := 1; k <= l.src.args; k++ {
		role, why := l.roleOf(k)
		l.argGuesses[k-1] = skeletonArg{role: role, why: why}
	}
	for k := 1; k <= l.src.args; k++ {
		if a := &l.argGuesses[k-1]; a.role == roleUnknown {
			a.role, a.why = l.roleAmong(k)
		}
	}
	l.inferUnits()
	for k := 1; k <= l.src.args; k++ {
		l.argGuesses[k-1] = l.template(k, l.argGuesses[k-1])
	}
}

// roleOf is what argument k is, and what it was read from.
func (l *luaLimiter) roleOf(k int) (argRole, string) {
	switch {
	case l.src.unused(k):
		return roleUnused, "the script never reads it"
	case l.src.fallback[k]:
		return roleFallback, "sent empty, the script takes Redis TIME"
	}
	tok := l.src.token(k).String()
	sts := l.src.statements(k)
	for _, st := range sts {
		switch {
		case regexp.MustCompile(`(?i)['"]h?(incr|decr)by(float)?['"][^)]*` + tok).MatchString(st):
			return roleCost, "from its use: a count goes up (or down) by it"
		case regexp.MustCompile(`\bfor\s+\w+\s*=\s*1\s*,\s*(tonumber\s*\(\s*)?` + tok).MatchString(st):
			return roleCost, "from its use: the script records it that many times"
		case regexp.MustCompile(`(?i)['"]zadd['"][^)]*,\s*` + tok + `\s*\)`).MatchString(st):
			return roleRequestID, "from its use: a sorted set's member"
		}
	}
	if role, ok := roleByName(l.src.argVars[k]); ok {
		return role, "from its name"
	}
	for _, st := range sts {
		switch {
		case l.timesATime(st, tok):
			return roleRate, "from its use: a time passed is multiplied by it"
		case timeFieldCompare(tok).MatchString(st):
			return roleNow, "from its use: it is compared with, or stored as, a time"
		case expiryUnit(st, tok) != "":
			_, command := expiryOf(st, tok)
			return roleWindow, "from its use: it goes to " + command
		case takenFrom(tok).MatchString(st):
			return roleCost, "from its use: it is taken from what is left"
		case regexp.MustCompile(`[<>]=?\s*(tonumber\s*\(\s*)?`+tok+`|`+tok+`\s*\)?\s*[<>]=?`).MatchString(st) && !mentionsTime(st, l):
			return roleLimit, "from its use: a count is compared with it"
		}
	}
	return roleUnknown, ""
}

// timeWords name a time or a time passed.
var timeWords = regexp.MustCompile(`(?i)\b(now|elapsed|delta|passed|dt|diff|interval_passed|time_passed|since|ts|last|then)\b|now\s*-`)

// timesATime reports whether statement st multiplies tok by a time passed:
// (now - ts) * tok, elapsed * tok, tok * delta.
func (l *luaLimiter) timesATime(st, tok string) bool {
	operand := `(\([^()]*\)|[A-Za-z_][\w.]*)`
	for _, m := range regexp.MustCompile(operand+`\s*\*\s*(?:tonumber\s*\(\s*)?`+tok+`|`+tok+`\s*\)?\s*\*\s*`+operand).FindAllStringSubmatch(st, -1) {
		x := m[1] + m[2]
		if timeWords.MatchString(x) || l.src.nowVar != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(l.src.nowVar)+`\b`).MatchString(x) {
			return true
		}
	}
	return false
}

// roleAmong places argument k by the arguments already placed: added to a
// window it is a time (an instant: now plus the window).
func (l *luaLimiter) roleAmong(k int) (argRole, string) {
	tok := l.src.token(k).String()
	for c, a := range l.argGuesses {
		if a.role != roleCost {
			continue
		}
		less := regexp.MustCompile(tok + `\s*\)?\s*-\s*(tonumber\s*\(\s*)?` + l.src.token(c+1).String())
		for _, st := range l.src.statements(k) {
			if less.MatchString(st) {
				return roleLimit, fmt.Sprintf("from its use: the cost %s is taken from it", l.src.describeArg(c+1))
			}
		}
	}
	for w, a := range l.argGuesses {
		if a.role != roleWindow {
			continue
		}
		wt := l.src.token(w + 1).String()
		sum := regexp.MustCompile(tok + `\s*\)?\s*\+\s*(tonumber\s*\(\s*)?` + wt + `|` + wt + `\s*\)?\s*\+\s*(tonumber\s*\(\s*)?` + tok)
		for _, st := range l.src.statements(k) {
			if sum.MatchString(st) {
				return roleNow, fmt.Sprintf("from its use: the window %s is added to it, as to a time", l.src.describeArg(w+1))
			}
		}
	}
	return roleUnknown, ""
}

// timeFieldCompare matches tok stored as, or compared with, a hash field
// or key named as a time: HSET ... 'start', tok; tok >= HGET(..., 'end').
func timeFieldCompare(tok string) *regexp.Regexp {
	field := `['"](start|end|ts|time|timestamp|at|updated|updated_at|last|last_time|reset|reset_at|expires|window_start)['"]`
	return regexp.MustCompile(`(?i)` + field + `\s*,\s*(tonumber\s*\(\s*)?` + tok + `|` +
		tok + `\s*\)?\s*[<>]=?\s*(tonumber\s*\(\s*)?redis\.p?call\s*\([^)]*` + field + `|` +
		`redis\.p?call\s*\([^)]*` + field + `\s*\)\s*\)?\s*[<>]=?\s*(tonumber\s*\(\s*)?` + tok)
}

// takenFrom matches tok taken away from what is left: tokens - tok,
// remaining - tok, or added to what is used: count + tok.
func takenFrom(tok string) *regexp.Regexp {
	left := `(tokens?|remaining|left|available|balance|filled\w*|level|new_tokens|current_tokens|last_tokens)`
	used := `(count|current|used|usage|hits|total|n|consumed|level)`
	return regexp.MustCompile(`(?i)\b` + left + `\s*-\s*(tonumber\s*\(\s*)?` + tok + `|\b` + used + `\s*\+\s*(tonumber\s*\(\s*)?` + tok)
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
		a.Check = true
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
		a.precisionGuessed = a.unit == algorithms.Seconds && !strings.Contains(strings.ToLower(l.src.argVars[k]), "microtime")
		return set(v, "the caller's clock, "+name, fmt.Sprintf("%s: the caller's clock (%s), %s (%s): the unit and precision the caller sends (${now_s}, ${now_s_float}, ${now_ms} or ${now_us})", what, a.why, name, a.unitWhy))
	case roleRate:
		switch {
		case a.perWindow:
			return set("${limit}", "requests per window", fmt.Sprintf("%s: a rate per window (${limit}): it is set against the window", what))
		case a.per == algorithms.Milliseconds:
			return set("${rate_per_ms}", "requests per millisecond", fmt.Sprintf("%s: a rate per millisecond (${rate_per_ms}): it multiplies a time in milliseconds", what))
		case a.per == "" || a.per == algorithms.Seconds:
			why := "it multiplies a time in seconds"
			if a.per == "" {
				why = "nothing in the script sets it against a window"
			}
			return set("${rate_per_s}", "requests per second", fmt.Sprintf("%s: a rate per second (${rate_per_s}): %s", what, why))
		}
		per := strings.TrimSuffix(a.per.Name(), "s")
		return set(editMe, "a rate per "+per, fmt.Sprintf("%s: a rate per %s: rlbench passes ${rate_per_s}, ${rate_per_ms}, ${limit} and the window in any unit, not this", what, per))
	case roleUnused:
		return set("", "the script never reads it: sent empty", fmt.Sprintf(`%s: "", as the script never reads it`, what))
	case roleFallback:
		return set("", "the caller's clock, sent empty: the script takes Redis TIME without it, as an application that sends no time has it",
			fmt.Sprintf(`%s: "", the caller's clock, which the script replaces with Redis TIME when it is empty: send ${now_ms} (or the unit it reads) and time_from: args if your application sends its clock`, what))
	case roleLabel:
		return set("${scenario}", "a name it passes along: the scenario's", "")
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
	whole := regexp.MustCompile(`math\.floor\s*\(\s*` + tok + `|\.\.\s*` + tok + `|` + tok + `\s*\.\.|` + tok + `\s*%|` + tok + `\s*//`)
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
