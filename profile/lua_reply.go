package profile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// replyGuess is the reply layout init guessed, with a line to check for
// each part it placed and what it could not.
type replyGuess struct {
	layout algorithms.ReplyLayout
	// notes say, per part name, what the guess was read from.
	notes  map[string]string
	checks []string
}

var (
	returnTable  = regexp.MustCompile(`\breturn\s*\{([^{}]*)\}`)
	returnSingle = regexp.MustCompile(`(?m)\breturn\s+([^\s{][^\n;]*?)\s*(?:;|\bend\b|$)`)
	identifier   = regexp.MustCompile(`[A-Za-z_]\w*`)
	numberLit    = regexp.MustCompile(`^\(?\s*(-?\d+(?:\.\d+)?)\s*\)?$`)
	stringLit    = regexp.MustCompile(`^['"]([^'"]*)['"]$`)
	// scaleAnywhere finds a scaling to milliseconds or seconds.
	scaleAnywhere = regexp.MustCompile(`[*/]\s*(1000000|1e6|1000|1e3)\b`)
)

// Words that place a reply element, checked in this order.
var (
	retryElement     = regexp.MustCompile(`retry|wait|backoff|try_?again`)
	resetAfterWords  = regexp.MustCompile(`reset_?after|reset_?in\b|expires_?in|time_?left|reset_?ms|reset_?us`)
	resetAtWords     = regexp.MustCompile(`reset_?at|reset_?time|resets_?at|expires_?at`)
	windowEndWords   = regexp.MustCompile(`window_?end|window_?reset|next_?window|window_?ends`)
	remainingElement = regexp.MustCompile(`remain|left|tokens|available|balance|limit\s*-|capacity\s*-|burst\s*-|quota`)
	usedElement      = regexp.MustCompile(`^(count|current|used|hits|requests|n)$`)
	admitWords       = regexp.MustCompile(`(?i)ok|allow|pass|accept|grant|success|yes`)
	denyWords        = regexp.MustCompile(`(?i)den|limit|block|reject|throttl|exceed|refus|no$|slow`)
)

// returned is one element a return statement puts at a position, and
// which way the path to that return goes.
type returned struct {
	expr   string
	branch branch
}

// guessReply reads the reply layout from the script's return statements:
// the tables it returns, position by position, or the single values; each
// with the way its path goes (the limit passed or not), which says which
// value admits.
func (l *luaLimiter) guessReply() replyGuess {
	g := replyGuess{layout: algorithms.ReplyLayout{Allowed: 1}, notes: map[string]string{}}
	code := l.src.code
	var tables [][]returned
	add := func(elems []string, at int) {
		b := l.branchOf(code, at)
		row := make([]returned, len(elems))
		for i, e := range elems {
			row[i] = returned{strings.TrimSpace(e), b}
		}
		tables = append(tables, row)
	}
	for _, m := range returnTable.FindAllStringSubmatchIndex(code, -1) {
		add(splitTopLevel(code[m[2]:m[3]]), m[0])
	}
	single := len(tables) == 0
	if single {
		for _, m := range returnSingle.FindAllStringSubmatchIndex(code, -1) {
			add([]string{code[m[2]:m[3]]}, m[0])
		}
	}
	settleFinal(tables)
	width := 0
	for _, t := range tables {
		width = max(width, len(t))
	}
	at := func(pos int) []returned {
		var out []returned
		for _, t := range tables {
			if pos <= len(t) {
				out = append(out, t[pos-1])
			}
		}
		return out
	}
	if single {
		l.guessAllowed(&g, 1, at(1))
		if len(tables) == 0 {
			g.checks = append(g.checks, "reply: no return statement read; guessed a single value, 1/0 or true/false")
		}
		return g
	}
	allowedPos := 0
	for pos := 1; pos <= width && allowedPos == 0; pos++ {
		if l.flagLike(at(pos)) {
			allowedPos = pos
		}
	}
	for pos := 1; pos <= width && allowedPos == 0; pos++ {
		if answerLike(exprs(at(pos))) {
			allowedPos = pos
		}
	}
	allowedPos = max(allowedPos, 1)
	l.guessAllowed(&g, allowedPos, at(allowedPos))
	for pos := 1; pos <= width; pos++ {
		if pos == allowedPos {
			continue
		}
		l.guessPart(&g, pos, exprs(at(pos)))
	}
	return g
}

// settleFinal reads the returns past every test by the others: the end of
// a script whose earlier returns all deny admits, and the other way round.
func settleFinal(tables [][]returned) {
	seen := map[branch]bool{}
	for _, t := range tables {
		if len(t) > 0 && (t[0].branch == branchDeny || t[0].branch == branchAdmit) {
			seen[t[0].branch] = true
		}
	}
	final := branchUnknown
	switch {
	case seen[branchDeny] && !seen[branchAdmit]:
		final = branchAdmit
	case seen[branchAdmit] && !seen[branchDeny]:
		final = branchDeny
	}
	for _, t := range tables {
		for i := range t {
			if t[i].branch == branchFinal {
				t[i].branch = final
			}
		}
	}
}

// exprs are the elements' expressions.
func exprs(rs []returned) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.expr
	}
	return out
}

// flagLike reports whether the elements at a position answer yes or no:
// each a literal 0, 1, true, false or nil, a comparison or test (x and 1
// or 0), or a local only ever set to one of those; and not all one
// literal.
func (l *luaLimiter) flagLike(rs []returned) bool {
	literals := map[string]bool{}
	tested := false
	for _, r := range rs {
		e := strings.ToLower(r.expr)
		switch {
		case slices.Contains([]string{"0", "1", "true", "false", "nil"}, e):
			literals[e] = true
		case booleanExpr.MatchString(r.expr) && !strings.Contains(r.expr, "redis.call"), l.allFlags([]string{r.expr}):
			tested = true
		default:
			return false
		}
	}
	return tested || len(literals) > 1
}

// Words in an answer's name that say it is yes when the request is
// limited.
var limitedName = regexp.MustCompile(`(?i)block|limited|throttl|reject|denied|deny|exceed|banned|locked|exhaust|over_?limit|is_?over`)

// guessAllowed places the answer at pos and says how its values read: by
// its values (texts, the cost, what is left or -1, any number), and which
// way round by the name it goes by (blocked, limited) or by the paths its
// values are returned on (1 where the limit is passed).
func (l *luaLimiter) guessAllowed(g *replyGuess, pos int, rs []returned) {
	g.layout.Allowed = pos
	elems := exprs(rs)
	var literals, texts, others []string
	for _, e := range elems {
		switch {
		case stringLit.MatchString(e):
			texts = append(texts, stringLit.FindStringSubmatch(e)[1])
		case slices.Contains([]string{"0", "1", "true", "false", "nil", "-1"}, strings.ToLower(e)):
			literals = append(literals, strings.ToLower(e))
		default:
			others = append(others, e)
		}
	}
	note := "1/0 or true/false"
	flag := false
	switch {
	case len(texts) > 0:
		for _, t := range texts {
			if denyWords.MatchString(t) && !admitWords.MatchString(t) {
				g.layout.Deny = appendNew(g.layout.Deny, t)
			} else {
				g.layout.Admit = appendNew(g.layout.Admit, t)
			}
		}
		note = fmt.Sprintf("the texts it returns: admit %s, deny %s", strings.Join(g.layout.Admit, ", "), strings.Join(g.layout.Deny, ", "))
	case len(others) == 0 || l.allFlags(others) || allBooleans(others):
		flag = true
	case l.isCost(others):
		g.layout.When = algorithms.AllowedCost
		note = "the cost when admitted, 0 when not"
	case l.allCounts(others) && !slices.Contains(literals, "0") && !slices.Contains(literals, "-1"):
		g.layout.When = algorithms.AllowedCount
		note = fmt.Sprintf("the count so far (%s): its application admits while it is at most the limit", others[0])
	case slices.Contains(literals, "-1") || l.leftOrNegative(others):
		g.layout.When = algorithms.AllowedNonNegative
		note = "0 or more when admitted, a negative number when not"
		if l.allLeft(others) {
			g.layout.Remaining = pos
			g.notes["remaining"] = fmt.Sprintf("what is left, at the answer's position (%s)", others[0])
			g.checks = append(g.checks, fmt.Sprintf("reply.remaining: position %d, the answer's: what is left when admitted", pos))
		}
	default:
		g.layout.When = algorithms.AllowedNonZero
		note = fmt.Sprintf("non-zero when admitted (%s), 0 when not", others[0])
	}
	if flag {
		if why := l.reversed(rs); why != "" {
			g.layout.When = algorithms.AllowedZero
			note = "0 or false when admitted, 1 or true when not: " + why
		}
	}
	g.notes["allowed"] = note
	g.checks = append(g.checks, fmt.Sprintf("reply.allowed: position %d, %s", pos, note))
}

// reversed says why a yes-or-no answer means limited rather than
// admitted, or "": its name says so (blocked, limited), or it is 1 (or
// true) on the paths where the limit is passed and 0 (false) on the
// others.
func (l *luaLimiter) reversed(rs []returned) string {
	for _, r := range rs {
		if id := l.mainIdentifier(r.expr); id != "" && limitedName.MatchString(id) && !admitWords.MatchString(id) {
			return fmt.Sprintf("it is %s", id)
		}
	}
	yes := func(e string) bool { return e == "1" || e == "true" }
	no := func(e string) bool { return e == "0" || e == "false" || e == "nil" }
	denyYes, admitNo, denyNo, admitYes := false, false, false, false
	for _, r := range rs {
		e := strings.ToLower(r.expr)
		switch r.branch {
		case branchDeny:
			denyYes, denyNo = denyYes || yes(e), denyNo || no(e)
		case branchAdmit:
			admitYes, admitNo = admitYes || yes(e), admitNo || no(e)
		}
	}
	if (denyYes || admitNo) && !denyNo && !admitYes {
		return "it answers 1 where the limit is passed"
	}
	return ""
}

// leftOrNegative reports whether the elements are what is left, which a
// denial makes negative: tokens - cost, limit - count, a count taken down
// by the cost.
func (l *luaLimiter) leftOrNegative(elems []string) bool {
	return l.allLeft(elems) && len(elems) > 0
}

// allLeft reports whether every element is what is left.
func (l *luaLimiter) allLeft(elems []string) bool {
	for _, e := range elems {
		lower := strings.ToLower(e)
		if !remainingElement.MatchString(lower) && !l.limitLess(e) && !regexp.MustCompile(`(?i)['"](incr|decr)by['"][^)]*(0\s*-|-)`).MatchString(e) &&
			!regexp.MustCompile(`(?i)['"]decrby['"]`).MatchString(e) {
			return false
		}
	}
	return true
}

// limitLess reports whether e is the limit less something: ARGV[4] - 1,
// limit - count, what is left.
func (l *luaLimiter) limitLess(e string) bool {
	for k, a := range l.argGuesses {
		if a.role != roleLimit && a.role != roleBurst {
			continue
		}
		if regexp.MustCompile(`^\s*(tonumber\s*\(\s*)?` + l.src.token(k+1).String() + `\s*\)?\s*-`).MatchString(e) {
			return true
		}
	}
	return false
}

// answerLike reports whether elements look like an admit/deny answer: a
// literal 0, false or nil beside something else.
func answerLike(elems []string) bool {
	falsy, other := false, false
	for _, e := range elems {
		switch strings.ToLower(e) {
		case "0", "false", "nil", "-1":
			falsy = true
		default:
			other = true
		}
	}
	return falsy && other
}

// booleanExpr matches an expression whose value is a Lua boolean (a
// comparison, not, and/or) or the x and 1 or 0 idiom.
var booleanExpr = regexp.MustCompile(`[<>]=?|==|~=|\bnot\b|\band\b|\bor\b`)

// allBooleans reports whether every element is a comparison or a test:
// true or false, 1 or 0.
func allBooleans(elems []string) bool {
	for _, e := range elems {
		if !booleanExpr.MatchString(e) {
			return false
		}
	}
	return true
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// allFlags reports whether every element is a local the code only ever
// sets to 0/1 or true/false (local allowed = 0 ... allowed = 1).
func (l *luaLimiter) allFlags(elems []string) bool {
	for _, e := range elems {
		if !identifier.MatchString(e) || identifier.FindString(e) != e {
			return false
		}
		defs := l.definitions(e)
		if len(defs) == 0 {
			return false
		}
		for _, d := range defs {
			d = strings.TrimSpace(d)
			if !slices.Contains([]string{"0", "1", "true", "false"}, strings.ToLower(d)) && !(booleanExpr.MatchString(d) && !strings.Contains(d, "redis.call")) {
				return false
			}
		}
	}
	return true
}

// isCost reports whether the elements are the request's cost.
func (l *luaLimiter) isCost(elems []string) bool {
	for _, e := range elems {
		found := false
		for k, a := range l.argGuesses {
			if a.role == roleCost && regexp.MustCompile(`^\s*(tonumber\s*\(\s*)?`+l.src.token(k+1).String()+`\s*\)?\s*$`).MatchString(e) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// definitions are the expressions the code assigns to the local name.
func (l *luaLimiter) definitions(name string) []string {
	re := regexp.MustCompile(`(?m)(?:^|[^.\w])` + regexp.QuoteMeta(name) + `\s*=\s*([^=\n][^\n]*)`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(l.src.code, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// reach is every name expr refers to, through the definitions of the
// locals it uses, a few levels deep, and the text of those definitions.
func (l *luaLimiter) reach(expr string) (names map[string]bool, text string) {
	names = map[string]bool{}
	var sb strings.Builder
	sb.WriteString(expr)
	frontier := identifier.FindAllString(expr, -1)
	for depth := 0; depth < 4 && len(frontier) > 0; depth++ {
		var next []string
		for _, n := range frontier {
			if names[n] {
				continue
			}
			names[n] = true
			for _, d := range l.definitions(n) {
				sb.WriteString(" ")
				sb.WriteString(d)
				next = append(next, identifier.FindAllString(d, -1)...)
			}
		}
		frontier = next
	}
	return names, sb.String()
}

// guessPart places the elements at pos: what they hold, in what unit, and
// which literal means none.
func (l *luaLimiter) guessPart(g *replyGuess, pos int, elems []string) {
	var none []string
	var exprs []string
	zero := false
	for _, e := range elems {
		v := strings.TrimSpace(e)
		if m := regexp.MustCompile(`^tostring\s*\(\s*(-\d+)\s*\)$`).FindStringSubmatch(v); m != nil {
			v = m[1]
		}
		if m := numberLit.FindStringSubmatch(v); m != nil {
			if strings.HasPrefix(m[1], "-") {
				none = appendNew(none, m[1])
			}
			zero = zero || m[1] == "0"
			continue
		}
		if stringLit.MatchString(v) {
			continue
		}
		exprs = append(exprs, e)
	}
	if len(exprs) == 0 {
		g.checks = append(g.checks, fmt.Sprintf("reply position %d: only literals (%s); not read", pos, strings.Join(elems, ", ")))
		return
	}
	// A local that starts at -1 and is set only when it applies
	// (local retry_after = -1) means none by -1 too.
	for _, e := range exprs {
		if main := l.mainIdentifier(e); main != "" {
			for _, d := range l.definitions(main) {
				if m := numberLit.FindStringSubmatch(d); m != nil && strings.HasPrefix(m[1], "-") {
					none = appendNew(none, m[1])
				}
			}
		}
	}
	for _, e := range exprs {
		part, unit, why, ok := l.classify(e, len(none) > 0 || zero)
		if !ok {
			continue
		}
		if g.layout.Has(part) {
			continue
		}
		if part == algorithms.PartRemaining {
			g.layout.Remaining = pos
			if len(none) > 0 {
				g.layout.Remaining = 0
				g.set(part, algorithms.ReplyValue{Position: pos, None: none})
			}
		} else {
			g.set(part, algorithms.ReplyValue{Position: pos, Unit: unit, None: none})
		}
		note := fmt.Sprintf("%s, read from %q (%s)", part, strings.TrimSpace(e), why)
		if len(none) > 0 {
			note += fmt.Sprintf(", %s meaning none", strings.Join(none, ", "))
		}
		g.notes[part.String()] = note
		g.checks = append(g.checks, fmt.Sprintf("reply.%s: position %d: %s", part, pos, note))
		return
	}
	g.checks = append(g.checks, fmt.Sprintf("reply position %d (%s): not read; rlbench reads remaining, retry_after, reset_after, reset_at, window_end and server_time", pos, strings.Join(exprs, " / ")))
}

func (g *replyGuess) set(part algorithms.ReplyPart, v algorithms.ReplyValue) {
	if g.layout.Values == nil {
		g.layout.Values = map[algorithms.ReplyPart]algorithms.ReplyValue{}
	}
	g.layout.Values[part] = v
}

// classify says what a reply element holds, in what unit, and why; ok is
// false when it cannot tell. onlyWhenDenied says another return statement
// puts a literal 0 or a negative one there (-1 for none), as scripts do
// for a retry-after when they admit.
func (l *luaLimiter) classify(e string, onlyWhenDenied bool) (part algorithms.ReplyPart, unit algorithms.TimeUnit, why string, ok bool) {
	lower := strings.ToLower(e)
	main := l.mainIdentifier(e)
	names, text := l.reach(e)
	text = strings.ToLower(text)
	if l.src.nowVar != "" && main == l.src.nowVar {
		if l.timeFromEpoch() {
			return algorithms.PartServerTime, l.src.timeUnit, "the time the script took from TIME", true
		}
		return 0, "", "", false
	}
	ident := strings.ToLower(main)
	switch {
	case l.involvesNowSubtracted(lower):
		// Something less the time now is how long until it: a wait.
		part, why = algorithms.PartRetryAfter, "a time less now"
		if !onlyWhenDenied && !retryElement.MatchString(text) && strings.Contains(text, "reset") {
			part, why = algorithms.PartResetAfter, "a reset less now"
		}
	case windowEndWords.MatchString(ident):
		part, why = algorithms.PartWindowEnd, "its name"
	case resetAtWords.MatchString(ident):
		part, why = algorithms.PartResetAt, "its name"
	case resetAfterWords.MatchString(ident):
		part, why = algorithms.PartResetAfter, "its name"
	case strings.Contains(ident, "reset"):
		// reset = start + window is an instant; reset = ttl, or
		// something less now, a duration.
		part, why = algorithms.PartResetAt, "its name, an instant"
		if l.involvesNowSubtracted(text) || strings.Contains(text, "ttl") {
			part, why = algorithms.PartResetAfter, "its name, a time less now"
		}
	case retryElement.MatchString(ident) || retryElement.MatchString(lower):
		part, why = algorithms.PartRetryAfter, "its name"
	case strings.Contains(text, "'pttl'") || strings.Contains(text, `"pttl"`) || strings.Contains(text, "'ttl'") || strings.Contains(text, `"ttl"`):
		// The key's TTL: a wait when only denials carry it, else how
		// long until the window resets.
		part, why = algorithms.PartResetAfter, "the key's TTL, in every reply"
		if onlyWhenDenied {
			part, why = algorithms.PartRetryAfter, "the key's TTL, when denied"
		}
	case usedElement.MatchString(ident):
		return 0, "", "", false
	case remainingElement.MatchString(lower) || remainingElement.MatchString(ident):
		return algorithms.PartRemaining, "", "its name", true
	case l.limitLess(e):
		return algorithms.PartRemaining, "", "the limit less what is used", true
	case l.semantics == algorithms.SemanticsFixedWindow && l.timePlusWindow(e) != "":
		// now + window: the instant the window that opened now ends.
		return algorithms.PartResetAt, l.timePlusWindow(e), "a time plus the window: where the window ends; in " + l.timePlusWindow(e).Name(), true
	default:
		return 0, "", "", false
	}
	unit, unitWhy := l.unitOfExpr(e, main, names, text)
	if (part == algorithms.PartResetAt || part == algorithms.PartWindowEnd) && !l.epochBased(names) {
		return 0, "", "", false
	}
	return part, unit, why + "; " + unitWhy, true
}

// mainIdentifier is the local an element is about: x in x, tostring(x),
// math.ceil(x / 1000), string.format('%d', x); empty for a call to Redis.
func (l *luaLimiter) mainIdentifier(e string) string {
	skip := map[string]bool{"tostring": true, "tonumber": true, "math": true, "ceil": true, "floor": true, "max": true, "min": true,
		"string": true, "format": true, "redis": true, "call": true, "pcall": true, "KEYS": true, "ARGV": true}
	for _, id := range identifier.FindAllString(e, -1) {
		if !skip[id] {
			return id
		}
	}
	return ""
}

// involvesNowSubtracted reports whether text takes the time away: x - now.
func (l *luaLimiter) involvesNowSubtracted(text string) bool {
	for _, n := range l.timeNames() {
		if regexp.MustCompile(`-\s*` + regexp.QuoteMeta(strings.ToLower(n)) + `\b`).MatchString(text) {
			return true
		}
	}
	return false
}

// timeNames are the locals that hold the script's time: TIME's, and the
// caller's time argument's.
func (l *luaLimiter) timeNames() []string {
	var out []string
	if l.src.nowVar != "" {
		out = append(out, l.src.nowVar)
	}
	for k, a := range l.argGuesses {
		if a.role == roleNow && l.src.argVars[k+1] != "" {
			out = append(out, l.src.argVars[k+1])
		}
	}
	return out
}

// timeFromEpoch reports whether the time the script computes from TIME
// counts from the epoch: not when it takes a constant off the seconds (as
// scripts that move the epoch to 2017 to keep a float exact do).
func (l *luaLimiter) timeFromEpoch() bool {
	for _, d := range l.definitions(l.src.nowVar) {
		if regexp.MustCompile(regexp.QuoteMeta(l.src.timeVar) + `\s*\[\s*1\s*\]\s*\)?\s*-`).MatchString(d) {
			return false
		}
	}
	return true
}

// epochBased reports whether an instant built from names counts from the
// epoch: it uses the caller's time or an epoch-based TIME.
func (l *luaLimiter) epochBased(names map[string]bool) bool {
	for k, a := range l.argGuesses {
		if a.role == roleNow && (names[l.src.argVars[k+1]] || l.src.argVars[k+1] == "") {
			return true
		}
	}
	return l.src.nowVar != "" && names[l.src.nowVar] && l.timeFromEpoch()
}

// unitOfExpr is the unit of a time or a duration element: its local's
// name (rescaled by what the element does to it), PTTL or TTL, the time
// or the window it is made of, else the unit the script keeps time in.
func (l *luaLimiter) unitOfExpr(e, main string, names map[string]bool, text string) (algorithms.TimeUnit, string) {
	if u := unitFromName(main); u != "" {
		// The element may scale what it is made of: math.ceil(wait_us /
		// 1000), math.ceil((next_us - now_us) / 1000).
		after := e[strings.Index(e, main)+len(main):]
		factor := int64(0)
		if loc := scaleAnywhere.FindStringIndex(after); loc != nil {
			factor = scaleOf(after[loc[0]:])
		}
		if r := rescale(u, -factor); r != "" {
			return r, "in " + r.Name() + ", as its name and scaling say"
		}
	}
	switch {
	case strings.Contains(text, "'pttl'") || strings.Contains(text, `"pttl"`):
		return algorithms.Milliseconds, "in milliseconds, from PTTL"
	case strings.Contains(text, "'ttl'") || strings.Contains(text, `"ttl"`):
		return algorithms.Seconds, "in seconds, from TTL"
	}
	if l.src.nowVar != "" && names[l.src.nowVar] {
		return l.src.timeUnit, "in " + l.src.timeUnit.Name() + ", as the script counts TIME"
	}
	for k, a := range l.argGuesses {
		if (a.role == roleNow || a.role == roleWindow) && a.unit != "" && names[l.src.argVars[k+1]] {
			return a.unit, fmt.Sprintf("in %s, as %s", a.unit.Name(), l.src.describeArg(k+1))
		}
	}
	if u := l.timeUnitAnywhere(); u != "" {
		return u, "in " + u.Name() + ", as the script keeps time"
	}
	return algorithms.Milliseconds, "in milliseconds: nothing in the script says"
}

// splitTopLevel splits a Lua table's elements at the commas outside any
// brackets or strings.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			depth--
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// positionText renders a reply part for the profile: the short form where
// it says all (remaining: 2, retry_after_ms: 3, server_time_us: 4), else
// in full.
func positionText(part algorithms.ReplyPart, v algorithms.ReplyValue) (field, value string) {
	if len(v.None) == 0 {
		switch {
		case part == algorithms.PartRemaining:
			return "remaining", strconv.Itoa(v.Position)
		case part == algorithms.PartRetryAfter && v.Unit == algorithms.Milliseconds:
			return "retry_after_ms", strconv.Itoa(v.Position)
		case part == algorithms.PartServerTime && v.Unit == algorithms.Microseconds:
			return "server_time_us", strconv.Itoa(v.Position)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{position: %d", v.Position)
	if v.Unit != "" {
		fmt.Fprintf(&b, ", unit: %s", v.Unit)
	}
	switch len(v.None) {
	case 0:
	case 1:
		fmt.Fprintf(&b, ", none: %s", yamlScalar(v.None[0]))
	default:
		q := make([]string, len(v.None))
		for i, n := range v.None {
			q[i] = yamlScalar(n)
		}
		fmt.Fprintf(&b, ", none: [%s]", strings.Join(q, ", "))
	}
	b.WriteString("}")
	return part.String(), b.String()
}

// timePlusWindow is the unit of e when it is the caller's time plus the
// window (the end of a window that opens then), else "".
func (l *luaLimiter) timePlusWindow(e string) algorithms.TimeUnit {
	for n, a := range l.argGuesses {
		if a.role != roleNow {
			continue
		}
		for w, b := range l.argGuesses {
			if b.role != roleWindow || a.unit == "" || a.unit != b.unit {
				continue
			}
			nt, wt := l.src.token(n+1).String(), l.src.token(w+1).String()
			if regexp.MustCompile(`^\s*(tonumber\s*\(\s*)?(` + nt + `)\s*\)?\s*\+\s*(tonumber\s*\(\s*)?(` + wt + `)\s*\)?\s*$`).MatchString(e) {
				return a.unit
			}
		}
	}
	return ""
}

// countFrom matches a count a script keeps: what INCR, INCRBY or HINCRBY
// return.
var countFrom = regexp.MustCompile(`(?i)redis\.p?call\s*\(\s*['"](h?incr(by)?)['"]`)

// allCounts reports whether every element is the count the script keeps:
// what INCR or INCRBY returned, or a local set from it (or named as one,
// hits, count, consumed), never the limit less it.
func (l *luaLimiter) allCounts(elems []string) bool {
	for _, e := range elems {
		main := l.mainIdentifier(e)
		if main == "" || strings.TrimSpace(e) != main && !regexp.MustCompile(`^\s*tonumber\s*\(\s*`+regexp.QuoteMeta(main)+`\s*\)\s*$`).MatchString(e) {
			if !countFrom.MatchString(e) {
				return false
			}
			continue
		}
		fromIncr := false
		for _, d := range l.definitions(main) {
			fromIncr = fromIncr || countFrom.MatchString(d)
		}
		if !fromIncr {
			return false
		}
	}
	return len(elems) > 0
}
