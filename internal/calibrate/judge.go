package calibrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// judge reads every hypothesis every way, and reports: the guess as it
// is when it passed every probe; else the smallest change that passes
// them all, when it is the only one; else the smallest that keeps the
// limit but refills less than its family (declared by its bound); else
// what the guess did, in words, as doubts.
func judge(g Guess, runs []*run) *Report {
	guess := g.Declaration
	rep := &Report{Declaration: guess}
	rds := readings(guess.Reply, runs)
	var all []*scored
	for _, r := range runs {
		for _, rd := range rds {
			all = append(all, score(r, rd, guess.Semantics))
		}
	}
	base := all[0]
	pick := base
	switch {
	case base.passed():
	default:
		var tied []*scored
		if pick, tied = choose(all, (*scored).passed, g.Unknown); pick != nil {
			applyPick(rep, g, base, pick, tied)
			break
		}
		if pick, tied = choose(all, (*scored).conservative, g.Unknown); pick != nil && boundable(guess.Semantics) {
			applyPick(rep, g, base, pick, tied)
			rep.BoundOf = guess.Semantics
			rep.add(Finding{Field: "semantics", Fixed: true, Doubt: true, Text: fmt.Sprintf(
				"it keeps its limit and has it back after the window, but %s: it refills in steps, or blocks after an overflow, which the %s model would call under-admission; so semantics: bound, with the %s's bound in one window",
				pick.half.text, guess.Semantics, guess.Semantics)})
			break
		}
		doubt(rep, g, base, tied)
		return rep
	}
	rep.Passed = true
	for _, i := range g.Unknown {
		if !slices.ContainsFunc(pick.run.h.changes, func(c change) bool { return c.arg == i }) {
			rep.add(Finding{Field: argField(i), Doubt: true, Text: "the probes could not tell what it is: sent empty, the limiter kept its limit"})
		}
	}
	d := *rep.Declaration
	d.Reply = checkParts(rep, pick, d.Reply)
	rep.Declaration = &d
	return rep
}

// boundable reports whether a family has a bound a declaration can state
// instead.
func boundable(s algorithms.Semantics) bool {
	return s != "" && s != algorithms.SemanticsBound && s.Bound(burstPolicy, burstPolicy.Window) > 0
}

// choose picks, among the scored that keep, the one with the fewest
// changes from the guess. When several differ in that fewest, it picks
// none and returns them (tied), unless they differ only in an argument
// init could not place: then the first, by the candidates' order, with
// the others tied.
func choose(all []*scored, keep func(*scored) bool, unknown []int) (pick *scored, tied []*scored) {
	fewest := -1
	for _, s := range all {
		if !keep(s) {
			continue
		}
		switch n := s.changes(); {
		case fewest < 0 || n < fewest:
			fewest, tied = n, []*scored{s}
		case n == fewest && !slices.ContainsFunc(tied, func(t *scored) bool { return sameDecisions(t, s) }):
			tied = append(tied, s)
		}
	}
	switch {
	case len(tied) == 1:
		return tied[0], nil
	case len(tied) > 1 && onlyUnknownDiffer(tied, unknown):
		return tied[0], tied[1:]
	}
	return nil, tied
}

// onlyUnknownDiffer reports whether the hypotheses differ only in the
// arguments init could not place, read the same way.
func onlyUnknownDiffer(tied []*scored, unknown []int) bool {
	known := func(s *scored) []change {
		var out []change
		for _, c := range s.run.h.changes {
			if !slices.Contains(unknown, c.arg) {
				out = append(out, c)
			}
		}
		return out
	}
	for _, s := range tied[1:] {
		if !slices.Equal(known(s), known(tied[0])) || !sameAllowed(s.rd.layout, tied[0].rd.layout) {
			return false
		}
	}
	return true
}

// applyPick makes pick's changes, each said with what the guess did.
func applyPick(rep *Report, g Guess, base, pick *scored, tied []*scored) {
	fails := base.failures()
	why := strings.Join(fails[:min(len(fails), 2)], "; ")
	if why == "" {
		why = "it did not keep its limit"
	}
	d := *pick.run.h.decl
	d.Reply = mergeAllowed(rep, g.Declaration.Reply, pick.rd.layout)
	for _, c := range pick.run.h.changes {
		f := Finding{Field: argField(c.arg), Fixed: true}
		switch {
		case slices.Contains(g.Unknown, c.arg) && len(tied) > 0:
			var others []string
			for _, t := range tied {
				for _, tc := range t.run.h.changes {
					if tc.arg == c.arg {
						others = append(others, quoted(tc.to))
					}
				}
			}
			f.Doubt = true
			f.Text = fmt.Sprintf("sent empty, %s; as %s every probe held, and so they did as %s", why, quoted(c.to), strings.Join(others, ", "))
		case slices.Contains(g.Unknown, c.arg):
			f.Text = fmt.Sprintf("sent empty, %s; as %s, and as nothing else tried, every probe held", why, quoted(c.to))
		case c.redis:
			f.Text = fmt.Sprintf("left empty for the script to take Redis TIME, as an application that sends no time has it: as %s, %s", quoted(c.from), why)
		default:
			f.Text = fmt.Sprintf("%s, not %s: as %s, %s; as %s every probe held", quoted(c.to), quoted(c.from), quoted(c.from), why, quoted(c.to))
		}
		rep.add(f)
	}
	if d.TimeFrom != g.Declaration.TimeFrom && d.TimeFrom != "" {
		rep.add(Finding{Field: "time_from", Fixed: true, Text: fmt.Sprintf("%s, as the arguments now say", d.TimeFrom)})
	}
	if pick.rd.change != "" {
		rep.add(Finding{Field: "reply.allowed", Fixed: true, Text: fmt.Sprintf("%s: as guessed, %s; so read, every probe held", pick.rd.change, why)})
	}
	rep.Declaration = &d
}

// mergeAllowed is guess with its answer read as allowed says: a part at
// the answer's new position is left out (unless it is what is left,
// beside an answer that reads 0 or more).
func mergeAllowed(rep *Report, guess, allowed algorithms.ReplyLayout) algorithms.ReplyLayout {
	out := algorithms.ReplyLayout{Allowed: allowed.Allowed, When: allowed.When, Admit: allowed.Admit, Deny: allowed.Deny}
	for _, name := range algorithms.ReplyPartNames() {
		part, _ := algorithms.ParseReplyPart(name)
		v, ok := guess.Value(part)
		if !ok {
			continue
		}
		if v.Position == out.Allowed && !(part == algorithms.PartRemaining && out.When == algorithms.AllowedNonNegative) {
			rep.add(Finding{Field: "reply." + name, Fixed: true, Text: fmt.Sprintf("left out: position %d is the answer", v.Position)})
			continue
		}
		setPart(&out, part, v)
	}
	return out
}

// setPart puts part into r, in full.
func setPart(r *algorithms.ReplyLayout, part algorithms.ReplyPart, v algorithms.ReplyValue) {
	if r.Values == nil {
		r.Values = map[algorithms.ReplyPart]algorithms.ReplyValue{}
	}
	r.Values[part] = v
}

// doubt says what the guess did where nothing passed, each on the line
// it puts in doubt.
func doubt(rep *Report, g Guess, base *scored, tied []*scored) {
	d := g.Declaration
	for _, v := range []struct {
		v     verdict
		field string
		ask   string
	}{
		{base.first, firstField(d, base), firstQuestion(base)},
		{base.cost, varField(d, "semantics", algorithms.VarCost), "is this the argument that carries the cost?"},
		{base.half, varField(d, "semantics", algorithms.VarRatePerS, algorithms.VarRatePerMs, algorithms.VarLimit),
			"is the rate in the right unit (per second, per window or per millisecond), and the family right?"},
		{base.again, varField(d, "semantics", algorithms.VarWindowS, algorithms.VarWindowMs, algorithms.VarWindowUs),
			"is the window's unit right (one 1000 times too long keeps denying), or does it block after an overflow (then semantics: bound)?"},
	} {
		if v.v.ok || v.v.text == "" {
			continue
		}
		rep.add(Finding{Field: v.field, Doubt: true, Text: v.v.text + ": " + v.ask})
	}
	if len(tied) > 1 {
		var ways []string
		for _, t := range tied {
			var cs []string
			for _, c := range t.run.h.changes {
				cs = append(cs, c.String())
			}
			if t.rd.change != "" {
				cs = append(cs, "reply.allowed "+t.rd.change)
			}
			ways = append(ways, strings.Join(cs, " and "))
		}
		rep.add(Finding{Doubt: true, Text: "each of these passed every probe, so none was taken: " + strings.Join(ways, "; or ")})
	}
}

// firstField is the line a failed first probe puts in doubt: the answer
// when its replies read backwards or not at all, else the limit.
func firstField(d *algorithms.Declaration, s *scored) string {
	o := readBurst(s.rd.layout, s.run.first)
	if o.err != nil || o.count() <= 1 {
		return "reply.allowed"
	}
	return varField(d, "reply.allowed", algorithms.VarLimit, algorithms.VarBurst)
}

// firstQuestion asks what a failed first probe suggests.
func firstQuestion(s *scored) string {
	o := readBurst(s.rd.layout, s.run.first)
	switch k := o.count(); {
	case o.err != nil:
		return "is the reply declared as the script answers?"
	case k == 0 || k == 1 && !o.admitted[0]:
		return "is allowed reversed, or at another position?"
	case k == 1:
		return "does an argument taken as ${limit} or ${burst} carry the cost (each request took every unit)?"
	case k == len(o.admitted):
		return "is the limit's argument right, and the window's unit (a window 1000 times too short admits everything)?"
	}
	return "is the limit's argument right?"
}

// varField is the line of the first argument that uses any of vars, else
// fallback.
func varField(d *algorithms.Declaration, fallback string, vars ...string) string {
	for i, a := range d.Args {
		if a.UsesAny(vars) {
			return argField(i)
		}
	}
	return fallback
}

// argField names argument i (0-based) as the script does: ARGV[i+1].
func argField(i int) string { return fmt.Sprintf("ARGV[%d]", i+1) }
