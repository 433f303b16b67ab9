package algorithms

import "slices"

// ScriptArgs is the ARGV a built-in limiter sends with its script, built
// from its policy, so its script can be run by other means (EVALSHA from
// redis-benchmark, a variant of the script in a test).
func (s *scripted) ScriptArgs() []any { return slices.Clone(s.args) }
