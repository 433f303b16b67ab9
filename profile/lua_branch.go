package profile

import (
	"regexp"
	"strings"
)

// branch is which way the path to a return statement goes: where the
// limit is passed (deny), where it is not (admit), or past every test at
// the end of the script (final), when init can tell.
type branch int

const (
	branchUnknown branch = iota
	branchDeny
	branchAdmit
	branchFinal
)

var (
	blockKeyword = regexp.MustCompile(`\b(if|elseif|else|end|for|while|function|then|do)\b`)
	comparison   = regexp.MustCompile(`^(.+?)(<=|>=|==|~=|<|>)(.+)$`)
	conjunction  = regexp.MustCompile(`\s+(?:and|or)\s+`)
	// Words of what is used up, what is left, and the limit.
	usedWords  = regexp.MustCompile(`(?i)\b(count|current|used|usage|hits|total|n|requests|consumed|level|num|size|card|len|cnt)\b|llen|zcard|zcount|incr|#`)
	leftWords  = regexp.MustCompile(`(?i)tokens?\b|remaining|\bleft\b|available|balance|filled|allowance`)
	limitWords = regexp.MustCompile(`(?i)limit|\bmax|capacity|quota|threshold|burst`)
)

// branchOf says which way the path to the return statement at offset at
// of code goes: the condition of the if it sits in (negated past an
// else), read as the limit passed or not (usage.go's usage, what is left
// and the limit); branchFinal for a return outside every if.
func (l *luaLimiter) branchOf(code string, at int) branch {
	before := code[:at]
	kws := blockKeyword.FindAllStringIndex(before, -1)
	depth, negate := 0, false
	for i := len(kws) - 1; i >= 0; i-- {
		kw := before[kws[i][0]:kws[i][1]]
		switch kw {
		case "end":
			depth++
		case "for", "while", "function":
			if depth > 0 {
				depth--
			}
		case "else":
			if depth == 0 {
				negate = !negate
			}
		case "if", "elseif":
			if kw == "if" && depth > 0 {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			cond := before[kws[i][1]:]
			if t := strings.Index(cond, "then"); t >= 0 {
				cond = cond[:t]
			}
			b := l.condition(cond)
			if negate {
				switch b {
				case branchDeny:
					b = branchAdmit
				case branchAdmit:
					b = branchDeny
				}
			}
			return b
		}
	}
	return branchFinal
}

// condition reads an if's condition: the limit passed (deny), or not
// (admit), from its first comparison that says either: what is used over
// (or at) the limit, what is left under the cost or at nothing.
func (l *luaLimiter) condition(cond string) branch {
	for _, part := range conjunction.Split(cond, -1) {
		m := comparison.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			continue
		}
		left, op, right := strings.TrimSpace(m[1]), m[2], strings.TrimSpace(m[3])
		if b := l.compare(left, op, right); b != branchUnknown {
			return b
		}
		if b := l.compare(right, flip(op), left); b != branchUnknown {
			return b
		}
	}
	return branchUnknown
}

// compare reads a op b with a on the side of what is used or left.
func (l *luaLimiter) compare(a, op, b string) branch {
	limit := l.isLimit(b)
	switch {
	case l.isUsed(a) && limit:
		switch op {
		case ">", ">=":
			return branchDeny
		case "<", "<=", "==":
			return branchAdmit
		}
	case l.isLeft(a) && !limit:
		switch op {
		case "<":
			return branchDeny
		case "==":
			if strings.TrimSpace(b) == "0" {
				return branchDeny
			}
		case ">=", ">":
			return branchAdmit
		}
	}
	return branchUnknown
}

// flip is the comparison with its sides swapped: a < b is b > a.
func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

// isLimit reports whether an operand is the limit: an argument taken for
// the limit or the capacity, or a name that says so.
func (l *luaLimiter) isLimit(e string) bool {
	for k, a := range l.argGuesses {
		if (a.role == roleLimit || a.role == roleBurst) && l.src.token(k+1).MatchString(e) {
			return true
		}
	}
	return limitWords.MatchString(e) && !usedWords.MatchString(e)
}

// isUsed reports whether an operand is what is used up: a count, a log's
// length, a level.
func (l *luaLimiter) isUsed(e string) bool {
	return usedWords.MatchString(e) && !limitWords.MatchString(e)
}

// isLeft reports whether an operand is what is left: tokens, remaining.
func (l *luaLimiter) isLeft(e string) bool {
	return leftWords.MatchString(e) && !limitWords.MatchString(e)
}
