package profile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// luaSource is a limiter's Lua as init reads it: the code without its
// comments, the names its keys and arguments go by, and what each argument
// is read into.
type luaSource struct {
	// code is the Lua with every comment blanked out (line breaks kept).
	code string
	// keysName and argsName are what the code indexes for KEYS and ARGV:
	// KEYS and ARGV in a script, a function's parameters in a library.
	keysName, argsName string
	keys, args         int
	// argVars are the locals the arguments are read into, by position,
	// and argScale how the local scales the argument (1000 for
	// tonumber(ARGV[2]) * 1000, -1000 for / 1000, 0 for not at all).
	argVars  map[int]string
	argScale map[int]int64
	// timeVar is the local TIME's reply goes into ("" when the code does
	// not call TIME); nowVar the local the code computes the time into,
	// and timeUnit its unit.
	timeVar, nowVar string
	timeUnit        algorithms.TimeUnit
	// wholeSeconds says the script's time is TIME's whole seconds alone.
	wholeSeconds bool
	// lines are the Lua's lines as written, comments kept: what a
	// comment beside an argument says of it. argLine is the line (0-based)
	// each argument is read on.
	lines   []string
	argLine map[int]int
	// fallback marks the arguments the script replaces with Redis TIME
	// when they are sent empty (tonumber(ARGV[3]) or redis.call('TIME')).
	fallback map[int]bool
}

// stripLuaComments blanks out Lua comments (-- to the end of the line, and
// --[[ ... ]] with any level of =), keeping strings and line breaks, so
// that what the code calls is not confused with what its comments say.
func stripLuaComments(src string) string {
	b := []byte(src)
	blank := func(from, to int) {
		for k := from; k < to && k < len(b); k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(b) && b[j] != c && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case c == '[' && longBracket(b[i:]) >= 0:
			level := longBracket(b[i:])
			end := strings.Index(string(b[i+level+2:]), "]"+strings.Repeat("=", level)+"]")
			if end < 0 {
				return string(b)
			}
			i += level + 2 + end + level + 2
		case c == '-' && i+1 < len(b) && b[i+1] == '-':
			if level := longBracket(b[i+2:]); level >= 0 {
				closer := "]" + strings.Repeat("=", level) + "]"
				end := strings.Index(string(b[i+2+level+2:]), closer)
				if end < 0 {
					blank(i, len(b))
					return string(b)
				}
				stop := i + 2 + level + 2 + end + len(closer)
				blank(i, stop)
				i = stop
				continue
			}
			j := i
			for j < len(b) && b[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		default:
			i++
		}
	}
	return string(b)
}

// longBracket is the level of a Lua long bracket ([[ is 0, [==[ is 2) that
// b starts with, or -1.
func longBracket(b []byte) int {
	if len(b) < 2 || b[0] != '[' {
		return -1
	}
	level := 0
	for level+1 < len(b) && b[level+1] == '=' {
		level++
	}
	if level+1 < len(b) && b[level+1] == '[' {
		return level
	}
	return -1
}

var (
	functionParams = regexp.MustCompile(`function\s*[A-Za-z0-9_.:]*\s*\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*\)`)
	multiAssign    = regexp.MustCompile(`(?m)local\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*=\s*([^\n]+)`)
	timeCall       = regexp.MustCompile(`(?:local\s+)?([A-Za-z_]\w*)\s*=\s*redis\.p?call\s*\(\s*['"][Tt][Ii][Mm][Ee]['"]\s*\)`)
)

// timeAnywhere is a call of Redis TIME, however its reply is used.
var timeAnywhere = regexp.MustCompile(`redis\.p?call\s*\(\s*['"][Tt][Ii][Mm][Ee]['"]`)

// callsTime reports whether the Lua src calls Redis TIME (in code, not in
// a comment).
func callsTime(src string) bool { return timeAnywhere.MatchString(stripLuaComments(src)) }

// readLuaSource finds, in src, the code without comments, the names of KEYS
// and ARGV, how many of each it reads, what each argument is read into,
// and the time the code takes from TIME.
func readLuaSource(src string, library bool) *luaSource {
	s := &luaSource{code: stripLuaComments(src), keysName: "KEYS", argsName: "ARGV", argVars: map[int]string{}, argScale: map[int]int64{},
		lines: strings.Split(src, "\n"), argLine: map[int]int{}, fallback: map[int]bool{}}
	if library {
		// The function's parameters name its keys and arguments.
		for _, m := range functionParams.FindAllStringSubmatch(s.code, -1) {
			if strings.Contains(s.code, m[1]+"[") && strings.Contains(s.code, m[2]+"[") {
				s.keysName, s.argsName = m[1], m[2]
				break
			}
		}
	}
	for _, m := range s.indexRegexp(s.keysName).FindAllStringSubmatch(s.code, -1) {
		n, _ := strconv.Atoi(m[1])
		s.keys = max(s.keys, min(n, algorithms.MaxDeclaredKeys))
	}
	for _, m := range s.indexRegexp(s.argsName).FindAllStringSubmatch(s.code, -1) {
		n, _ := strconv.Atoi(m[1])
		s.args = max(s.args, min(n, algorithms.MaxDeclaredArgs))
	}
	s.readArgLocals()
	s.readTime()
	s.readArgLines()
	return s
}

// readArgLines finds the line each argument is first read on, and the
// arguments that fall back to Redis TIME when sent empty: read with an
// or whose other side calls TIME (tonumber(ARGV[3]) or
// redis.call('TIME')[1]), or tested for nil or "" and then set from TIME.
func (s *luaSource) readArgLines() {
	code := strings.Split(s.code, "\n")
	argIndex := s.indexRegexp(s.argsName)
	for i, line := range code {
		for _, m := range argIndex.FindAllStringSubmatch(line, -1) {
			k, _ := strconv.Atoi(m[1])
			if _, seen := s.argLine[k]; !seen {
				s.argLine[k] = i
			}
		}
	}
	timeish := func(text string) bool {
		return timeAnywhere.MatchString(text) || s.timeVar != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(s.timeVar)+`\b`).MatchString(text)
	}
	for k, i := range s.argLine {
		line := code[i]
		if loc := argIndex.FindStringIndex(line); loc != nil {
			if rest := line[loc[1]:]; regexp.MustCompile(`^\s*\)?\s*or\b`).MatchString(rest) && timeish(rest) {
				s.fallback[k] = true
				continue
			}
		}
		// if not now or now == '' then now = ... TIME ... end
		name := s.argVars[k]
		if name == "" {
			continue
		}
		empty := regexp.MustCompile(`\bif\s+[^\n]*(\bnot\s+` + regexp.QuoteMeta(name) + `\b|\b` + regexp.QuoteMeta(name) + `\s*==\s*(nil|''|"")|#` + regexp.QuoteMeta(name) + `\s*==\s*0)`)
		for j := i + 1; j < len(code) && j <= i+4; j++ {
			if empty.MatchString(code[j]) {
				after := strings.Join(code[j:min(j+3, len(code))], "\n")
				if regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\s*=\s*[^=]`).MatchString(after) && timeish(after) {
					s.fallback[k] = true
				}
			}
		}
	}
}

// argComment is the comment on the line argument k is read on, as written
// ("" without one).
func (s *luaSource) argComment(k int) string {
	i, ok := s.argLine[k]
	if !ok || i >= len(s.lines) {
		return ""
	}
	line := s.lines[i]
	if c := strings.Index(line, "--"); c >= 0 && !strings.Contains(strings.Split(s.code, "\n")[i][c:], "--") {
		return strings.TrimSpace(line[c+2:])
	}
	return ""
}

// unused reports whether the code never reads argument k: its index never
// appears, or the local it is read into is never used again.
func (s *luaSource) unused(k int) bool {
	name := s.argVars[k]
	if _, read := s.argLine[k]; !read && name == "" {
		return true
	}
	if name == "" {
		return false
	}
	uses := regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).FindAllStringIndex(s.code, -1)
	return len(uses) <= 1
}

// indexRegexp matches name[n], capturing n.
func (s *luaSource) indexRegexp(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\[\s*(\d+)\s*\]`)
}

// readArgLocals finds the local each argument is read into: local x =
// tonumber(ARGV[1]), several at once (local a, b = ARGV[1], ARGV[2]), or
// all of them (local a, b = unpack(ARGV)), with how the local scales it.
func (s *luaSource) readArgLocals() {
	rest := s.code
	argIndex := s.indexRegexp(s.argsName)
	unpack := regexp.MustCompile(`^(?:table\.)?unpack\s*\(\s*` + regexp.QuoteMeta(s.argsName) + `\s*\)`)
	for _, m := range multiAssign.FindAllStringSubmatchIndex(s.code, -1) {
		names := strings.Split(s.code[m[2]:m[3]], ",")
		rhs := strings.TrimSpace(s.code[m[4]:m[5]])
		if unpack.MatchString(rhs) {
			for i, n := range names {
				s.setArgLocal(i+1, strings.TrimSpace(n), 0)
			}
			s.args = max(s.args, min(len(names), algorithms.MaxDeclaredArgs))
		} else {
			values := splitTopLevel(rhs)
			for i, n := range names {
				if i < len(values) {
					if a := argIndex.FindStringSubmatch(values[i]); a != nil {
						k, _ := strconv.Atoi(a[1])
						s.setArgLocal(k, strings.TrimSpace(n), scaleOf(values[i][strings.Index(values[i], a[0])+len(a[0]):]))
					}
				}
			}
		}
		rest = rest[:m[0]] + strings.Repeat(" ", m[1]-m[0]) + rest[m[1]:]
	}
	single := regexp.MustCompile(`(?m)(?:local\s+)?([A-Za-z_]\w*)\s*=\s*(?:tonumber\s*\(\s*)?` + regexp.QuoteMeta(s.argsName) + `\s*\[\s*(\d+)\s*\]([^\n]*)`)
	for _, m := range single.FindAllStringSubmatch(rest, -1) {
		k, _ := strconv.Atoi(m[2])
		s.setArgLocal(k, m[1], scaleOf(m[3]))
	}
}

func (s *luaSource) setArgLocal(k int, name string, scale int64) {
	if _, seen := s.argVars[k]; seen || k < 1 || k > algorithms.MaxDeclaredArgs {
		return
	}
	s.argVars[k], s.argScale[k] = name, scale
}

var scaleRegexp = regexp.MustCompile(`^\s*\)?\s*([*/])\s*(1000000|1e6|1000|1e3)\b`)

// scaleOf reads a scaling right after a value: * 1000 is 1000, / 1e6 is
// -1000000, nothing is 0.
func scaleOf(after string) int64 {
	m := scaleRegexp.FindStringSubmatch(after)
	if m == nil {
		return 0
	}
	n := int64(1000)
	if strings.Contains(m[2], "6") {
		n = 1_000_000
	}
	if m[1] == "/" {
		return -n
	}
	return n
}

// readTime finds the local the code puts TIME's reply in, and the unit of
// the time it computes from it: t[1] * 1000000 + t[2] is microseconds,
// t[1] * 1000 + ... milliseconds, t[1] + t[2] / 1000000 (or t[1] alone)
// seconds.
func (s *luaSource) readTime() {
	m := timeCall.FindStringSubmatch(s.code)
	if m == nil {
		return
	}
	t := regexp.QuoteMeta(m[1])
	s.timeVar, s.timeUnit = m[1], algorithms.Seconds
	if regexp.MustCompile(regexp.QuoteMeta(m[0]) + `\s*\[\s*1\s*\]`).MatchString(s.code) {
		// now = redis.call('TIME')[1]: the local holds whole seconds.
		s.nowVar, s.wholeSeconds = m[1], true
		return
	}
	s.wholeSeconds = !regexp.MustCompile(t + `\s*\[\s*2\s*\]`).MatchString(s.code)
	first := regexp.MustCompile(t + `\s*\[\s*1\s*\]\s*\)?\s*\*\s*(1000000|1e6|1000|1e3)\b`)
	if f := first.FindStringSubmatch(s.code); f != nil {
		s.timeUnit = algorithms.Microseconds
		if f[1] == "1000" || f[1] == "1e3" {
			s.timeUnit = algorithms.Milliseconds
		}
	}
	// The local the time is computed into: the first assignment that
	// reads t[1].
	assign := regexp.MustCompile(`(?m)(?:local\s+)?([A-Za-z_]\w*)\s*=\s*[^\n]*\b` + t + `\s*\[\s*1\s*\]`)
	if a := assign.FindStringSubmatch(s.code); a != nil {
		s.nowVar = a[1]
	}
}

// token is how the code refers to argument k: its local, or ARGV[k] where
// it reads it inline.
func (s *luaSource) token(k int) *regexp.Regexp {
	inline := `\b` + regexp.QuoteMeta(s.argsName) + `\s*\[\s*` + strconv.Itoa(k) + `\s*\]`
	if name := s.argVars[k]; name != "" {
		// The local, or the argument read again inline.
		return regexp.MustCompile(`(?:\b` + regexp.QuoteMeta(name) + `\b|` + inline + `)`)
	}
	return regexp.MustCompile(inline)
}

// statements are the code's lines that use argument k, other than the one
// that reads it into its local.
func (s *luaSource) statements(k int) []string {
	tok := s.token(k)
	def := s.indexRegexp(s.argsName)
	var out []string
	for _, line := range strings.Split(s.code, "\n") {
		if !tok.MatchString(line) {
			continue
		}
		if s.argVars[k] != "" && def.MatchString(line) && regexp.MustCompile(`^\s*(local\s+)?[\w\s,]*\b`+regexp.QuoteMeta(s.argVars[k])+`\b[\w\s,]*=`).MatchString(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// calls reports whether the code calls any of the Redis commands.
func (s *luaSource) calls(commands ...string) bool {
	return slices.ContainsFunc(commands, func(c string) bool { return commandCall(c).MatchString(s.code) })
}

// commandCall matches redis.call('CMD' or redis.pcall("cmd".
func commandCall(cmd string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)redis\.p?call\s*\(\s*['"]` + cmd + `['"]`)
}

// describeArg names argument k for messages: ARGV[3] (now).
func (s *luaSource) describeArg(k int) string {
	if n := s.argVars[k]; n != "" {
		return fmt.Sprintf("%s[%d] %s", s.argsName, k, n)
	}
	return fmt.Sprintf("%s[%d]", s.argsName, k)
}

// callsIn reports whether line calls any of the Redis commands.
func (s *luaSource) callsIn(line string, commands ...string) bool {
	return slices.ContainsFunc(commands, func(c string) bool { return commandCall(c).MatchString(line) })
}
