package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// outcome is what a burst read as, one way of reading its answers.
type outcome struct {
	admitted []bool
	// answers are the raw values at the answer's position, as text.
	answers []string
	err     error
}

// count is how many were admitted.
func (o outcome) count() int {
	n := 0
	for _, a := range o.admitted {
		if a {
			n++
		}
	}
	return n
}

// readBurst reads every reply of b with layout.
func readBurst(layout algorithms.ReplyLayout, b burst) outcome {
	var o outcome
	for _, c := range b.calls {
		if c.err != nil {
			o.err = fmt.Errorf("the script failed: %v", c.err)
			return o
		}
		d, _, err := layout.Parse(c.req, c.raw)
		if err != nil {
			o.err = fmt.Errorf("its reply could not be read: %v", err)
			return o
		}
		o.admitted = append(o.admitted, d.Allowed)
		o.answers = append(o.answers, answerText(c.raw, layout.Allowed))
	}
	return o
}

// answerText is the value at pos of a raw reply, as the reply said it.
func answerText(raw any, pos int) string {
	arr, ok := raw.([]any)
	if !ok {
		arr = []any{raw}
	}
	if pos > len(arr) {
		return "nothing"
	}
	switch v := arr[pos-1].(type) {
	case nil:
		return "false"
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	default:
		return fmt.Sprint(v)
	}
}

// number reads a reply value as a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// verdict is one probe's result: whether it held, whether it admitted
// fewer than the probe expects, and what happened in words.
type verdict struct {
	ok, low bool
	text    string
}

// limitThenDeny says whether the burst admitted exactly its first n and
// denied the next, the first thing every family does.
func limitThenDeny(o outcome, n int, what string) verdict {
	if o.err != nil {
		return verdict{text: fmt.Sprintf("%s: %v", what, o.err)}
	}
	k := o.count()
	ok := k == n && len(o.admitted) == n+1
	for i := 0; ok && i < n; i++ {
		ok = o.admitted[i]
	}
	if ok {
		return verdict{ok: true}
	}
	return verdict{low: k < n, text: fmt.Sprintf("%s %s", what, pattern(o, n))}
}

// pattern says what a burst that should have admitted n did.
func pattern(o outcome, n int) string {
	total, k := len(o.admitted), o.count()
	said := sayings(o)
	switch {
	case k == 0:
		return fmt.Sprintf("denied all %d (the reply said %s)", total, said)
	case k == 1 && n > 1 && o.admitted[0] && !o.admitted[total-1] && k < total:
		return fmt.Sprintf("admitted only the first of %d (the reply said %s)", total, said)
	case k == 1 && !o.admitted[0] && o.admitted[total-1]:
		return fmt.Sprintf("denied the first %d and admitted the last (the reply said %s)", total-1, said)
	case k == total:
		return fmt.Sprintf("admitted all %d, %d past the limit (the reply said %s)", total, total-n, said)
	}
	return fmt.Sprintf("admitted %d of %d, where the limit allows %d (the reply said %s)", k, total, n, said)
}

// sayings sums up the answers a burst's replies gave, in order: "1 (10
// times), then 0"; a run of answers that change every time, as a count
// does, as "1, 2, 3, ..., 11".
func sayings(o outcome) string {
	type group struct {
		v string
		n int
	}
	var groups []group
	for _, a := range o.answers {
		if len(groups) > 0 && groups[len(groups)-1].v == a {
			groups[len(groups)-1].n++
			continue
		}
		groups = append(groups, group{a, 1})
	}
	if len(groups) > 4 {
		return fmt.Sprintf("%s, %s, %s, ..., %s", groups[0].v, groups[1].v, groups[2].v, groups[len(groups)-1].v)
	}
	var parts []string
	for _, g := range groups {
		switch {
		case len(groups) == 1 && g.n > 1:
			parts = append(parts, g.v+" to each")
		case g.n > 1:
			parts = append(parts, fmt.Sprintf("%s (%d times)", g.v, g.n))
		default:
			parts = append(parts, g.v)
		}
	}
	return strings.Join(parts, ", then ")
}

// refillVerdict judges the refill identity's second burst, halfway after
// its first under the refill policy, by what the family admits then: a
// bucket refilled at limit / window, with the clock in whole seconds or
// finer; a fixed window nothing, or all of it when a boundary fell
// between; a sliding log nothing. Without a family nothing is expected but
// the limit.
func refillVerdict(o outcome, s algorithms.Semantics, elapsed time.Duration) verdict {
	if o.err != nil {
		return verdict{text: fmt.Sprintf("%s later: %v", seconds(elapsed), o.err)}
	}
	k, limit := o.count(), int(refillPolicy.Limit)
	accept, want := map[int]bool{}, ""
	switch s {
	case algorithms.SemanticsTokenBucket, algorithms.SemanticsLeakyBucket, algorithms.SemanticsGCRA:
		rate := refillPolicy.RatePerSecond()
		e := elapsed.Seconds()
		for _, secs := range []float64{e, math.Floor(e), math.Ceil(e)} {
			c := int(math.Round(secs * rate))
			for d := -1; d <= 1; d++ {
				accept[min(max(c+d, 0), limit)] = true
			}
		}
		want = fmt.Sprintf("a %s refilled at %s a second admits about %d", s, strconv.FormatFloat(rate, 'f', -1, 64), int(math.Round(e*rate)))
	case algorithms.SemanticsFixedWindow:
		accept[0], accept[limit] = true, true
		want = fmt.Sprintf("a fixed window admits none before its window ends (or all %d when a window's boundary fell between)", limit)
	case algorithms.SemanticsSlidingLog:
		accept[0] = true
		want = "a sliding log admits none until a window has passed"
	default:
		for c := 0; c <= limit; c++ {
			accept[c] = true
		}
	}
	if accept[k] {
		return verdict{ok: true}
	}
	lowest := limit
	for c := range accept {
		lowest = min(lowest, c)
	}
	return verdict{low: k < lowest, text: fmt.Sprintf("%s after a burst under %s it admitted %d of %d, where %s",
		seconds(elapsed), refillPolicy, k, len(o.admitted), want)}
}

// seconds writes a duration in seconds as people say it: 1.5s.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(math.Round(d.Seconds()*10)/10, 'f', -1, 64) + "s"
}

// scored is one hypothesis read one way, with each probe's verdict.
type scored struct {
	run *run
	rd  reading
	// first: the burst identity's and the refill identity's first bursts;
	// cost: requests of cost 2; half: the refill halfway on; again: the
	// burst identity once its window has passed; topped: the top-up
	// identity.
	first, cost, half, again, topped verdict
}

// changes counts how far it is from the guess.
func (s *scored) changes() int {
	n := len(s.run.h.changes)
	if s.rd.change != "" {
		n++
	}
	return n
}

// passed says every probe held.
func (s *scored) passed() bool {
	return s.first.ok && s.cost.ok && s.half.ok && s.again.ok && s.topped.ok
}

// conservative says it keeps its limit, has it back after twice its
// window, and admitted fewer halfway than its family would: it refills in
// steps, or blocks for a while after an overflow.
func (s *scored) conservative() bool {
	return s.first.ok && s.cost.ok && s.again.ok && s.topped.ok && !s.half.ok && s.half.low
}

// failures are the probes that did not hold, in words.
func (s *scored) failures() []string {
	var out []string
	for _, v := range []verdict{s.first, s.cost, s.half, s.again, s.topped} {
		if !v.ok && v.text != "" {
			out = append(out, v.text)
		}
	}
	return out
}

// score reads r's probes with rd and judges each against the family s.
func score(r *run, rd reading, s algorithms.Semantics) *scored {
	sc := &scored{run: r, rd: rd}
	if r.loadErr != nil {
		v := verdict{text: r.loadErr.Error()}
		sc.first, sc.cost, sc.half, sc.again, sc.topped = v, v, v, v, v
		return sc
	}
	limit := int(burstPolicy.Limit)
	sc.first = limitThenDeny(readBurst(rd.layout, r.first), limit, fmt.Sprintf("of %d requests of a fresh identity under %s it", limit+1, burstPolicy))
	if sc.first.ok {
		sc.first = limitThenDeny(readBurst(rd.layout, r.refill), int(refillPolicy.Limit),
			fmt.Sprintf("of %d requests of a fresh identity under %s it", refillPolicy.Limit+1, refillPolicy))
	}
	sc.cost = verdict{ok: true}
	if r.hasCostLim {
		n := limit / costly
		sc.cost = limitThenDeny(readBurst(rd.layout, r.cost), n, fmt.Sprintf("of %d requests of cost %d of a fresh identity under %s (%d units) it", n+1, costly, burstPolicy, limit))
	}
	sc.half = refillVerdict(readBurst(rd.layout, r.refillHalf), s, r.refillHalf.sentAt.Sub(r.refill.sentAt))
	sc.topped = toppedVerdict(rd.layout, r, s)
	sc.again = limitThenDeny(readBurst(rd.layout, r.again), limit,
		fmt.Sprintf("%s after its first burst (its %s window past) it", seconds(r.again.sentAt.Sub(r.first.sentAt)), burstPolicy.Window))
	return sc
}

// bursts are a run's bursts, for what spans them all.
func (r *run) bursts() []burst {
	return []burst{r.first, r.cost, r.refill, r.refillHalf, r.again, r.topA, r.topB, r.topC}
}

// sameDecisions reports whether a and b admitted the same requests in
// every burst: two readings of one run that say the same.
func sameDecisions(a, b *scored) bool {
	if a.run != b.run {
		return false
	}
	for _, bs := range a.run.bursts() {
		oa, ob := readBurst(a.rd.layout, bs), readBurst(b.rd.layout, bs)
		if (oa.err == nil) != (ob.err == nil) || len(oa.admitted) != len(ob.admitted) {
			return false
		}
		for i := range oa.admitted {
			if oa.admitted[i] != ob.admitted[i] {
				return false
			}
		}
	}
	return true
}

// toppedVerdict judges the top-up identity: its first few requests and the
// one after are admitted, and its burst after the window admits what the
// family admits then: a bucket (refilled past full while its keys were
// kept alive) its limit; a window its limit less the one request still in
// it, or all of it; without a family anything up to the limit. A limiter
// that refills only when its keys expire shows here.
func toppedVerdict(layout algorithms.ReplyLayout, r *run, s algorithms.Semantics) verdict {
	limit := int(burstPolicy.Limit)
	what := fmt.Sprintf("of %d requests of a fresh identity, %d more %s later, then %d at %s (under %s), it", topFirst, 1, seconds(topLater), limit+1, seconds(topAfter), burstPolicy)
	for _, b := range []burst{r.topA, r.topB} {
		o := readBurst(layout, b)
		if o.err != nil {
			return verdict{text: fmt.Sprintf("%s: %v", what, o.err)}
		}
		if o.count() != len(o.admitted) {
			return verdict{low: true, text: fmt.Sprintf("%s denied some of the first %d (the reply said %s)", what, topFirst+1, sayings(o))}
		}
	}
	o := readBurst(layout, r.topC)
	if o.err != nil {
		return verdict{text: fmt.Sprintf("%s: %v", what, o.err)}
	}
	k := o.count()
	var accept []int
	want := ""
	switch s {
	case algorithms.SemanticsTokenBucket, algorithms.SemanticsLeakyBucket, algorithms.SemanticsGCRA:
		accept, want = []int{limit}, fmt.Sprintf("a %s, full again, admits %d", s, limit)
	case algorithms.SemanticsFixedWindow, algorithms.SemanticsSlidingLog:
		accept, want = []int{limit - 1, limit}, fmt.Sprintf("a %s admits %d, or %d while the request %s in still counts", s, limit, limit-1, seconds(topLater))
	default:
		for c := 0; c <= limit; c++ {
			accept = append(accept, c)
		}
	}
	if slices.Contains(accept, k) {
		return verdict{ok: true}
	}
	return verdict{low: k < slices.Min(accept), text: fmt.Sprintf("%s admitted %d of the last %d, where %s (the reply said %s)", what, k, len(o.admitted), want, sayings(o))}
}
