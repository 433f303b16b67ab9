package algorithms

import "regexp"

// deleteCall finds a Lua call of a command that deletes keys.
var deleteCall = regexp.MustCompile(`(?i)redis\.p?call\(\s*['"](del|unlink|getdel)['"]`)

// DeletesKeys reports whether lim's decisions may delete keys themselves
// (its script calls DEL, UNLINK or GETDEL): then keys deleted during a run
// cannot be told from another client's doing. The built-ins never delete.
func DeletesKeys(lim Limiter) bool {
	d, ok := lim.(*Declared)
	if !ok {
		return false
	}
	return deleteCall.MatchString(d.decl.Script) || deleteCall.MatchString(d.decl.Library)
}
