// Package calibrate checks what rlbench init read from a limiter's Lua
// against a real Redis before the profile is written. Short probes, on
// fresh identities under a small policy, ask what every family of limiter
// does: a fresh identity is admitted the limit and denied the next
// request; a request of cost 2 takes two units; after twice the window it
// is admitted again; half a window refills what its family says (a
// bucket about half, a window nothing); what is left falls by one.
//
// The guess is probed beside its variants: each argument's template
// changed for the ones it is most often confused with (the cost taken for
// the limit, a rate per second for one per window, a time in another
// unit, the caller's time left for TIME to fill), and the answer read
// other ways (reversed, at another position). Where the guess fails a
// probe and exactly one smallest change passes them all, the change is
// certain and made; otherwise the report says, in plain words, what it
// doubts. The probes write keys only under the namespace they are given;
// removing them is the caller's.
package calibrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
)

// Redis is what the probes need of a client: scripts and functions, and
// the server's TIME to judge the instants a reply carries.
type Redis interface {
	algorithms.Redis
	Time(ctx context.Context) *redis.TimeCmd
}

// Guess is a declaration as init read it.
type Guess struct {
	// Declaration is the limiter as init would declare it. Its script or
	// library, keys, arguments, reply and semantics are probed.
	Declaration *algorithms.Declaration
	// Unknown are the arguments (0-based) init could not place: the guess
	// sends them empty, and the probes try each of candidates in their
	// place.
	Unknown []int
}

// Report is what the probes found.
type Report struct {
	// Declaration is the guess with every certain fix made.
	Declaration *algorithms.Declaration
	// BoundOf, when set, says the limiter keeps its limit but admits less
	// than its family promises (it refills in steps, or blocks after an
	// overflow): declare semantics: bound with that family's bound in one
	// window, since its family's model would call the difference an
	// under-admission.
	BoundOf algorithms.Semantics
	// Findings say, line by line, what was fixed or doubted.
	Findings []Finding
	// Passed says the declaration as reported passed every probe but,
	// with BoundOf, the family's refill.
	Passed bool
	// Probed says how many variants of the guess were probed, and Calls
	// how many calls that took.
	Probed, Calls int
}

// Finding is what the probes say of one line of the declaration.
type Finding struct {
	// Field names the line: ARGV[3], time_from, reply.allowed,
	// reply.remaining, semantics.
	Field string
	// Fixed says the probes changed the line; Doubt that it stays a
	// guess to check.
	Fixed, Doubt bool
	// Text says it in plain words.
	Text string
}

// String is the finding as a line: fixed, or to check.
func (f Finding) String() string {
	switch {
	case f.Fixed && f.Doubt:
		return fmt.Sprintf("%s: changed, CHECK: %s", f.Field, f.Text)
	case f.Fixed:
		return fmt.Sprintf("%s: changed: %s", f.Field, f.Text)
	case f.Doubt:
		return fmt.Sprintf("%s: CHECK: %s", f.Field, f.Text)
	}
	return fmt.Sprintf("%s: %s", f.Field, f.Text)
}

// Note is what the report says of the line field, joined, and whether the
// line stays marked CHECK; ok is false when it says nothing of it.
func (r *Report) Note(field string) (text string, check, ok bool) {
	var texts []string
	for _, f := range r.Findings {
		if f.Field == field {
			texts = append(texts, f.Text)
			check = check || f.Doubt
		}
	}
	return strings.Join(texts, "; "), check, len(texts) > 0
}

func (r *Report) add(f Finding) { r.Findings = append(r.Findings, f) }

// Run probes the guess on rdb, every key under namespace (which the
// caller removes after), and reports what it found. It takes a few
// seconds: the probes wait for half a window and twice another. It
// returns an error only when it could not probe at all (the script does
// not load, the server is gone, ctx ended).
func Run(ctx context.Context, rdb Redis, namespace string, g Guess) (*Report, error) {
	hyps := hypotheses(g)
	p := &prober{rdb: rdb, namespace: namespace}
	runs, err := p.probe(ctx, hyps)
	defer p.unload(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	rep := judge(g, runs)
	rep.Probed, rep.Calls = len(runs), p.calls
	return rep, nil
}
