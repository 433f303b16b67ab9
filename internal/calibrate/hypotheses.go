package calibrate

import (
	"fmt"
	"slices"

	"github.com/rlbench/rlbench/algorithms"
)

// alternatives are, for each template init writes, the templates it is
// most often confused with: the cost with the limit or the capacity, a
// rate per second with one per window or per millisecond, and the units
// of a window and of the caller's clock.
var alternatives = map[string][]string{
	"${limit}":       {"${cost}", "${rate_per_s}"},
	"${burst}":       {"${cost}"},
	"${rate_per_s}":  {"${limit}", "${rate_per_ms}"},
	"${rate_per_ms}": {"${rate_per_s}", "${limit}"},
	"${window_s}":    {"${window_ms}", "${window_us}", "${rate_per_s}"},
	"${window_ms}":   {"${window_s}", "${window_us}", "${rate_per_s}"},
	"${window_us}":   {"${window_ms}", "${window_s}"},
	"${now_s}":       {"${now_ms}", "${now_us}", "${now_s_float}"},
	"${now_s_float}": {"${now_ms}", "${now_us}", "${now_s}"},
	"${now_ms}":      {"${now_s_float}", "${now_us}"},
	"${now_us}":      {"${now_ms}", "${now_s_float}"},
}

// candidates are tried in place of an argument init could not place, in
// the order the first that passes is taken when several do.
var candidates = []string{"${limit}", "${window_s}", "${window_ms}", "${now_s_float}", "${now_s}", "${now_ms}", "${cost}", "${burst}", "${rate_per_s}", "${identity}"}

// maxPairs bounds the variants that change two arguments at once: past it
// only single changes are probed.
const maxPairs = 120

// change is one argument's template changed from the guess's.
type change struct {
	// arg is 0-based; to "" with redis set leaves the argument empty for
	// the script to take Redis TIME.
	arg      int
	from, to string
	redis    bool
}

// String says the change as a profile line would: ARGV[4]: ${now_ms}.
func (c change) String() string {
	to := c.to
	if to == "" {
		to = `""`
	}
	return fmt.Sprintf("ARGV[%d]: %s for %s", c.arg+1, to, quoted(c.from))
}

func quoted(t string) string {
	if t == "" {
		return `""`
	}
	return t
}

// hypothesis is the guess, or a variant of it.
type hypothesis struct {
	decl    *algorithms.Declaration
	changes []change
}

// hypotheses are the guess (first) and its variants: each argument's
// template changed for each of its alternatives, then (while they are
// few) every pair of such changes on two arguments.
func hypotheses(g Guess) []*hypothesis {
	d := g.Declaration
	var singles []change
	for i, a := range d.Args {
		from := a.String()
		switch {
		case slices.Contains(g.Unknown, i):
			for _, c := range candidates {
				singles = append(singles, change{arg: i, from: from, to: c})
			}
			continue
		case slices.Contains(algorithms.NowVariables, variableOf(from)) && d.CallsTime && timeArgs(d) == 1:
			// The caller's time, which the script may take from TIME
			// when it is not sent.
			singles = append(singles, change{arg: i, from: from, to: "", redis: true})
		}
		for _, to := range alternatives[from] {
			singles = append(singles, change{arg: i, from: from, to: to})
		}
	}
	out := []*hypothesis{{decl: d}}
	for _, c := range singles {
		out = append(out, variant(d, c))
	}
	var pairs []*hypothesis
	for i, a := range singles {
		for _, b := range singles[i+1:] {
			if a.arg != b.arg {
				pairs = append(pairs, variant(d, a, b))
			}
		}
	}
	if len(pairs) <= maxPairs {
		out = append(out, pairs...)
	}
	return out
}

// variant is d with changes made.
func variant(d *algorithms.Declaration, changes ...change) *hypothesis {
	v := *d
	v.Args = slices.Clone(d.Args)
	for _, c := range changes {
		v.Args[c.arg] = algorithms.MustParseTemplate(c.to, algorithms.ArgVariables)
		if c.redis {
			v.TimeFrom = algorithms.TimeFromRedis
		}
	}
	switch {
	case v.TimeFrom == algorithms.TimeFromArgs && !v.TakesCallerTime():
		v.TimeFrom = algorithms.TimeFromRedis
	case v.TimeFrom == algorithms.TimeFromRedis && v.TakesCallerTime() && !d.TakesCallerTime():
		// An argument placed as the caller's time: the script decides
		// by it.
		v.TimeFrom = algorithms.TimeFromArgs
	}
	return &hypothesis{decl: &v, changes: changes}
}

// variableOf is the variable a template is made of alone (${now_ms} is
// now_ms), or "".
func variableOf(t string) string {
	if len(t) > 3 && t[:2] == "${" && t[len(t)-1] == '}' {
		return t[2 : len(t)-1]
	}
	return ""
}

// timeArgs counts the arguments that carry the caller's clock.
func timeArgs(d *algorithms.Declaration) int {
	n := 0
	for _, a := range d.Args {
		if a.UsesAny(algorithms.NowVariables) {
			n++
		}
	}
	return n
}
