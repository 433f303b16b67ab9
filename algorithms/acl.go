package algorithms

import (
	"regexp"
	"slices"
	"strings"
)

// luaCall finds the commands a Lua script calls on the server by name:
// redis.call('ZADD', ...), redis.pcall("get", ...).
var luaCall = regexp.MustCompile(`redis\.p?call\(\s*(?:'([A-Za-z_|]+)'|"([A-Za-z_|]+)"|([^'")\s,][^,)]*))`)

// LuaCalls lists, in lower case and in order of first use, the commands
// the Lua source calls with redis.call or redis.pcall. dynamic reports a
// call whose command the script names in a variable or an expression,
// which no reading of the source can list.
func LuaCalls(src string) (calls []string, dynamic bool) {
	for _, m := range luaCall.FindAllStringSubmatch(src, -1) {
		name := strings.ToLower(m[1] + m[2])
		if name == "" {
			dynamic = true
			continue
		}
		if !slices.Contains(calls, name) {
			calls = append(calls, name)
		}
	}
	return calls, dynamic
}

// ACLCommands lists the commands lim sends to Redis and those the server
// runs for it inside its Lua (an ACL checks those too), as ACL SETUSER
// names them ("evalsha", "script|load", "zadd"): what a user needs to run
// it. dynamic reports a Lua call whose command the script names in a
// variable, which the list cannot hold.
func ACLCommands(lim Limiter) (cmds []string, dynamic bool) {
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(cmds, n) {
				cmds = append(cmds, n)
			}
		}
	}
	lua := func(src string) {
		calls, d := LuaCalls(src)
		add(calls...)
		dynamic = dynamic || d
	}
	if d, ok := lim.(*declaredExact); ok {
		lim = d.Declared
	}
	switch l := lim.(type) {
	case *Declared:
		if l.fn != nil {
			add("fcall", "function|load", "function|list", "function|delete")
			lua(l.fn.Source())
		} else {
			add("evalsha", "script|load")
			if s, ok := l.callee.(*Script); ok {
				lua(s.Source())
			}
		}
	case *FixedWindowNX:
		if !l.pipelined {
			add("multi", "exec")
		}
		add("incr", l.expireCommand(), "pttl")
	case *NaiveCounter:
		add("time", "get", "pttl", "incr", "pexpireat")
	case interface{ Script() *Script }:
		add("evalsha", "script|load")
		lua(l.Script().Source())
	}
	return cmds, dynamic
}
