package profile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// guessSemantics names the family the code's commands and words suggest,
// or leaves it empty with what to check.
func (l *luaLimiter) guessSemantics() {
	code := l.src.code
	lower := strings.ToLower(code)
	word := func(w string) bool { return regexp.MustCompile(`\b` + w + `\b`).MatchString(lower) }
	switch {
	case word("tat") || word("new_tat") || strings.Contains(lower, "theoretical") || strings.Contains(lower, "gcra") || strings.Contains(lower, "emission"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsGCRA, "its theoretical arrival time (tat)"
	case l.src.calls("ZADD") && l.src.calls("ZREMRANGEBYSCORE", "ZCOUNT", "ZCARD", "ZRANGEBYSCORE", "ZRANGE"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsSlidingLog, "ZADD and ZREMRANGEBYSCORE (a log of request times in a sorted set)"
	case l.src.calls("LPUSH", "RPUSH") && l.src.calls("LTRIM", "LINDEX", "LRANGE", "LLEN", "LPOP", "RPOP", "LREM"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsSlidingLog, "LPUSH with LTRIM, LINDEX or LLEN (a log of request times in a list)"
	case strings.Contains(lower, "leak") || word("level") || strings.Contains(lower, "drain") || word("water"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsLeakyBucket, "its level and leak"
	case (strings.Contains(lower, "token") || strings.Contains(lower, "refill")) && l.src.calls("HSET", "HMSET", "HMGET", "HGET", "SET", "GET"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsTokenBucket, "its tokens, refilled over time"
	case (word("prev") || word("previous") || strings.Contains(lower, "prev_")) && (strings.Contains(lower, "weight") || strings.Contains(lower, "elapsed")):
		l.semantics, l.boundOf = algorithms.SemanticsBound, algorithms.SemanticsFixedWindow
		l.semanticsWhy = "it looks like a sliding-window counter (two windows, the previous one weighted), which has no reference model here: held to twice the limit in a window, the fixed window's bound"
	case l.src.calls("HINCRBY", "HINCRBYFLOAT"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsFixedWindow, "HINCRBY in a hash with an expiry (a counter per window, kept in a hash)"
	case l.src.calls("INCR", "INCRBY", "DECR", "DECRBY"):
		l.semantics, l.semanticsWhy = algorithms.SemanticsFixedWindow, "INCR with an expiry (a counter per window)"
	}
	switch family := l.semantics; {
	case !family.HasModel():
	case l.blocks() != "":
		l.semantics, l.boundOf = algorithms.SemanticsBound, family
		l.semanticsWhy = fmt.Sprintf("it blocks a caller for a while once it passes the limit (%s): it admits less than a %s after an overflow, which that model would call under-admission; held to the %s's bound", l.blocks(), family, family)
	case family != algorithms.SemanticsFixedWindow && family != algorithms.SemanticsSlidingLog && l.refillsInSteps():
		l.semantics, l.boundOf = algorithms.SemanticsBound, algorithms.SemanticsTokenBucket
		l.semanticsWhy = "its tokens come back in whole intervals (math.floor of the time passed over the interval), not little by little: across a refill it admits more in an instant than a token bucket's model would, and less between; held to the token bucket's bound in one window"
	}
}

// blockWords name the key or flag of a block a caller serves after an
// overflow.
var blockWords = regexp.MustCompile(`(?i)\b\w*(block|ban|penalty|lockout|locked|jail|suspend)\w*\b`)

// blocks is the name of the block the script sets once the limit is
// passed (a key given an expiry of its own), or "".
func (l *luaLimiter) blocks() string {
	for _, line := range strings.Split(l.src.code, "\n") {
		if !l.src.callsIn(line, "SET", "SETEX", "PSETEX", "EXPIRE", "PEXPIRE") {
			continue
		}
		if m := blockWords.FindString(line); m != "" {
			return m
		}
	}
	return ""
}

// refillsInSteps reports whether a rate per window is added in whole
// intervals: math.floor of a time over the window, times the rate.
func (l *luaLimiter) refillsInSteps() bool {
	for _, a := range l.argGuesses {
		if a.role == roleRate && a.perWindow {
			return regexp.MustCompile(`math\.floor\s*\(`).MatchString(l.src.code)
		}
	}
	return false
}

// guessTime says whose clock the limiter decides by: the caller's when an
// argument carries the time, else Redis's (TIME, or where it expires
// keys).
func (l *luaLimiter) guessTime() {
	for k, a := range l.argGuesses {
		if a.role == roleFallback && !l.hasRole(roleNow) {
			l.timeFrom, l.timeWhy = algorithms.TimeFromRedis, l.src.describeArg(k+1)+" is sent empty, and the script takes Redis TIME without it"
			return
		}
		if a.role == roleNow {
			l.timeFrom, l.timeWhy = algorithms.TimeFromArgs, l.src.describeArg(k+1)+" is the caller's clock"
			if l.src.timeVar != "" {
				l.timeWhy += "; the script calls TIME too: say redis if it decides by that"
			}
			return
		}
	}
	l.timeFrom, l.timeWhy = algorithms.TimeFromRedis, "the script calls TIME"
	if l.src.timeVar == "" {
		l.timeWhy = "no argument carries the time; its windows end where Redis expires its keys"
	}
}
