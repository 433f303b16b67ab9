package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// A note is one thing a reader of the figures must know, about one run, a
// scenario, or the result as a whole.
type note struct {
	kind *noteKind
	// where is the run's key (algorithm/scenario), a scenario's name for a
	// note about a scenario, or "" for a note about the whole result.
	where string
	// text says it all in one line: a note alone of its kind reads so.
	text string
	// detail is the note's own figures, for a kind whose explanation its
	// group says once; "" when text is all there is to say.
	detail string
}

// noteKind is what a note is about. Notes of one kind are said together:
// one line naming where they apply, the explanation once, then each
// one's figures.
type noteKind struct {
	// limiter marks the limiter's own failures: they come before every
	// note on the machine, the server or the measurement, in rank order
	// (the verdict's, most serious first).
	limiter bool
	rank    int
	// title names the kind in its group's line.
	title string
	// explain is what every note of the kind means, and what to do about
	// it; "" when each note's text says it.
	explain string
}

// The kinds of note. A kind with an explanation gives each note a
// detail; the others repeat nothing long, and a group of them lists
// their texts.
var (
	kindOvershoot = &noteKind{limiter: true, rank: 1, title: "OVERSHOOT: more admitted than the algorithm's own bound",
		explain: "the limiter does not keep its promise: some identity got more admitted within one window than its algorithm ever allows"}
	kindMismatch = &noteKind{limiter: true, rank: 2, title: "MISMATCH: decisions that differ from the reference model",
		explain: "the limiter does not keep its promise: on the same arrivals, at the server times it decided at, its algorithm's reference model decides otherwise, in every state the run may have left it in"}
	kindUnder = &noteKind{limiter: true, rank: 3, title: "UNDER-ADMISSION: denied what its semantics promise to admit",
		explain: "the limiter does not keep its promise to admit"}
	kindWindowNoTTL = &noteKind{limiter: true, rank: 5, title: "WINDOW WITHOUT TTL"}
	kindLeak        = &noteKind{limiter: true, rank: 4, title: "keys left without a TTL (a leak)"}
	kindOutside     = &noteKind{limiter: true, rank: 6, title: "keys written outside the run prefix"}

	kindIncomplete   = &noteKind{title: "incomplete"}
	kindRejudged     = &noteKind{title: "verdict recorded otherwise"}
	kindHotNode      = &noteKind{title: "a hot node in a Redis Cluster"}
	kindStateReset   = &noteKind{title: "limiter state reset by the server (not judged)"}
	kindEvicted      = &noteKind{title: "keys evicted during the run"}
	kindPolicyChange = &noteKind{title: "maxmemory-policy changed during the run"}
	kindUnscheduled  = &noteKind{title: "unscheduled faults"}
	kindSkipped      = &noteKind{title: "checks not made (SKIPPED)"}
	kindUnavailable  = &noteKind{title: "figures not measured (UNAVAILABLE): the server refused the commands that read them"}
	kindServer       = &noteKind{title: "the server"}
	kindEvicting     = &noteKind{title: "an evicting maxmemory-policy"}
	kindRunStopped   = &noteKind{title: "runs that did not complete"}
	kindErrors       = &noteKind{title: "calls that got no decision"}
	kindUnsent       = &noteKind{title: "requests never sent",
		explain: "the generator fell behind, and requests due before the end were never sent"}
	kindSlipped = &noteKind{title: "late sends: over 1% of requests went out more than 1ms late",
		explain: "the generator could not keep the schedule, so these runs' latency from the due time is mostly the generator's own queue, not the limiter's; " +
			"the p99 from the actual send is nearer the limiter's. More concurrency, pipelining or a lower rate would keep the schedule"}
	kindNoScript = &noteKind{title: "scripts reloaded (NOSCRIPT)",
		explain: "the server lost the script and it was reloaded"}
	kindCapacity       = &noteKind{title: "capacity searches"}
	kindPipelineOff    = &noteKind{title: "pipelines asked for, not in effect"}
	kindPipelineResent = &noteKind{title: "requests sent again after NOSCRIPT inside a pipeline",
		explain: "NOSCRIPT cannot be recovered inside a pipeline; the requests that met it were sent again once the script was reloaded, their latency including the reload"}
	kindCPUWait = &noteKind{title: fmt.Sprintf("rlbench waited for a CPU %.0f%% of the traffic's time or more", 100*CPUWaitNoted)}
	kindByBound = &noteKind{title: "judged by its bound only",
		explain: "these limiters declare a bound, not a semantics with a reference model to replay; they were judged by the bound at the server times their replies carried"}
	kindCallerTime = &noteKind{title: "judged by its bound only, on the caller's clock",
		explain: "these limiters decide by the caller's clock, so they were judged by their bound only, on the true clock: each decision somewhere between its request's send and its reply"}
	kindClientTime = &noteKind{title: "judged by its bound only, on the client's clock",
		explain: "these limiters' replies carry no server time, so they were judged by their bound only, on the client's clock: each decision lies within half its round trip of the midpoint"}
	kindSampled = &noteKind{title: "audit of a sample"}
	kindWindow  = &noteKind{title: "how window ends were found"}
	kindClock   = &noteKind{title: "bursts near the boundary, on a clock aligned too loosely"}
	kindProbe   = &noteKind{title: "what the probes noted"}
)

// NoteGroup is the notes of one kind: the line that names the kind and
// where it applies, what it means said once, and each note's own
// figures. A kind with one note is that note's text alone.
type NoteGroup struct {
	// Limiter marks the limiter's own failures; they come first.
	Limiter bool
	// Line names the kind and the runs (or scenarios) it applies to, or is
	// the only note's whole text.
	Line string
	// Explanation is what every note of the kind means; "" when Line or
	// the details say it.
	Explanation string
	// Details are each note's own figures, one line each.
	Details []string
}

// NoteGroups are Notes grouped by kind: the limiter's own failures
// first, then what the server, the machine and the measurement limit,
// most serious first.
func NoteGroups(r *result.Result) []NoteGroup {
	return groupNotes(r, noteList(r, verdict.Assess(r)))
}

// groupNotes groups notes by kind: the limiter's kinds first, most
// serious first, then the others, each where its first note stood.
func groupNotes(r *result.Result, notes []note) []NoteGroup {
	var kinds []*noteKind
	byKind := map[*noteKind][]note{}
	for _, n := range notes {
		if byKind[n.kind] == nil {
			kinds = append(kinds, n.kind)
		}
		byKind[n.kind] = append(byKind[n.kind], n)
	}
	slices.SortStableFunc(kinds, func(a, b *noteKind) int {
		switch {
		case a.limiter && b.limiter:
			return a.rank - b.rank
		case a.limiter:
			return -1
		case b.limiter:
			return 1
		}
		return 0
	})
	groups := make([]NoteGroup, len(kinds))
	for i, k := range kinds {
		groups[i] = group(r, k, byKind[k])
	}
	return groups
}

// group says one kind's notes: a note alone of its kind is its whole
// text; several are a line naming where they apply, the explanation once
// and each note's own figures.
func group(r *result.Result, k *noteKind, notes []note) NoteGroup {
	g := NoteGroup{Limiter: k.limiter}
	if len(notes) == 1 {
		g.Line = notes[0].text
		return g
	}
	var where []string
	for _, n := range notes {
		if n.where != "" {
			where = append(where, n.where)
		}
		switch {
		case n.detail == "":
			g.Details = append(g.Details, n.text)
		case n.detail != n.where: // a detail that is only the run's name is in the line
			g.Details = append(g.Details, n.detail)
		}
	}
	g.Line = k.title
	if len(where) > 0 {
		g.Line += ": " + runList(r, where)
	}
	g.Explanation = k.explain
	return g
}

// runList names the runs (algorithm/scenario keys) a kind of note applies
// to, in one line: "every run (12)"; "every algorithm in steady and
// straddle"; then the others, as "sliding_log/burst-one" or
// "silence (fixed_window, sliding_log)". A name that is not a run's key
// (a scenario's) is listed as it is.
func runList(r *result.Result, keys []string) string {
	in := map[string]bool{}
	for _, k := range keys {
		in[k] = true
	}
	var scenarios []string
	algs := map[string][]string{}
	total := map[string]int{}
	covered := 0
	for i := range r.Runs {
		run := &r.Runs[i]
		s := run.Scenario
		if _, seen := total[s]; !seen {
			scenarios = append(scenarios, s)
		}
		total[s]++
		if in[run.Key()] {
			algs[s] = append(algs[s], run.Algorithm)
			covered++
			delete(in, run.Key())
		}
	}
	var others []string
	for _, k := range keys {
		if in[k] { // not a run's key
			others = append(others, k)
			delete(in, k)
		}
	}
	if covered == len(r.Runs) && covered > 1 && len(others) == 0 {
		return fmt.Sprintf("every run (%d)", covered)
	}
	var whole, parts []string
	for _, s := range scenarios {
		switch a := algs[s]; {
		case len(a) == 0:
		case len(a) == total[s] && len(a) > 1:
			whole = append(whole, s)
		case len(a) == 1:
			parts = append(parts, a[0]+"/"+s)
		default:
			parts = append(parts, s+" ("+strings.Join(a, ", ")+")")
		}
	}
	if len(whole) > 0 {
		parts = append([]string{"every algorithm in " + joinAnd(whole)}, parts...)
	}
	return strings.Join(append(parts, others...), "; ")
}

// joinAnd joins names as people write them: a, b and c.
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// noteList is every note on r, most serious first: the result's own,
// then each run's, then what the probes noted.
func noteList(r *result.Result, j verdict.Judgement) []note {
	var notes []note
	whole := func(k *noteKind, text string) { notes = append(notes, note{kind: k, text: text}) }
	if !r.Complete {
		whole(kindIncomplete, "INCOMPLETE: "+r.IncompleteReason+"; the figures cover what was measured before it stopped")
	}
	if r.Verdict != "" && r.Verdict != j.Verdict {
		whole(kindRejudged, fmt.Sprintf("this result was recorded with verdict %s; by the rules of this rlbench it is %s", r.Verdict, j.Verdict))
	}
	for _, h := range HotNodeNotes(r) {
		whole(kindHotNode, h)
	}
	notes = append(notes, evictionNotes(r, j)...)
	notes = append(notes, unscheduledNotes(r)...)
	notes = append(notes, leakNotes(r, j)...)
	notes = append(notes, skippedNotes(r)...)
	notes = append(notes, unavailableNotes(r)...)
	notes = append(notes, replayNotes(r)...)
	if r.Redis.Note != "" {
		whole(kindServer, r.Redis.Note)
	}
	if p := evictingPolicies(r); len(p) > 0 {
		whole(kindEvicting, fmt.Sprintf("maxmemory-policy was %s during the runs: under memory pressure Redis may evict limiter state and admit more than the limit", strings.Join(p, ", then ")))
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		key := run.Key()
		if f, ok := j.Runs[i].Finding(verdict.WindowNoTTL); ok {
			notes = append(notes, note{kind: kindWindowNoTTL, where: key, text: f.Text})
		}
		if run.Incomplete && run.Note != "" {
			notes = append(notes, note{kind: kindRunStopped, where: key, text: fmt.Sprintf("%s: incomplete: %s", key, run.Note)})
		}
		if run.Requests.Errors > 0 {
			msg := ""
			if len(run.Errors) > 0 {
				msg = ": " + describeErrors(run.Errors)
			}
			notes = append(notes, note{kind: kindErrors, where: key, text: fmt.Sprintf("%s: %d of %d %s failed%s", key, run.Requests.Errors, run.Requests.Sent, plural.Noun(run.Requests.Sent, "request", "requests"), msg)})
		}
		if n := run.Requests.Unsent; n > 0 {
			notes = append(notes, note{kind: kindUnsent, where: key,
				text:   fmt.Sprintf("%s: the generator fell behind and %d %s due before the end never sent", key, n, plural.Noun(n, "request was", "requests were")),
				detail: fmt.Sprintf("%s: %d %s never sent", key, n, plural.Noun(n, "request", "requests"))})
		}
		if ScheduleSlipped(run) {
			notes = append(notes, slipNote(run))
		}
		if n, ok := shortRunNote(r, run); ok {
			notes = append(notes, n)
		}
		if n := run.Requests.NoScriptReloads; n > 0 {
			notes = append(notes, note{kind: kindNoScript, where: key,
				text:   fmt.Sprintf("%s: the server lost the script %d %s (NOSCRIPT) and it was reloaded", key, n, plural.Noun(n, "time", "times")),
				detail: fmt.Sprintf("%s: %d %s", key, n, plural.Noun(n, "time", "times"))})
		}
	}
	notes = append(notes, pipelineNotes(r)...)
	for _, c := range capacityNotes(r) {
		whole(kindCapacity, c)
	}
	notes = append(notes, generatorNotes(r, j)...)
	notes = append(notes, auditNotes(r, j)...)
	notes = append(notes, memoryNotes(r)...)
	notes = append(notes, heavyKeyNotes(r)...)
	return notes
}

// texts are the notes' texts, each said in full.
func texts(notes []note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.text
	}
	return out
}
