package audit

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/result"
)

// The replay of one identity keeps, where something whose effect is not
// known may have changed the limiter's state, every state it may be in: a
// branch each. A call whose outcome is unknown (it timed out, its
// connection broke) may have run or not, and if it ran it ran before one
// of the identity's next decisions; a reset seen on the server (a
// FLUSHALL, keys deleted or evicted by another client) took the state at
// an instant known only within the readings around it. Each decision keeps
// the branches that explain it (its answer, and the remaining and retry
// hint its reply gave); it is a mismatch only when none does.
const (
	// maxBranches bounds the states one identity's replay keeps from one
	// decision to the next; past it the replay gives up on the identity,
	// whose later decisions are held to the bound only (and counted
	// unjudged) until its state is known again: a restart that kept
	// nothing, or a reply that states the whole state.
	maxBranches = 64
	// maxForks bounds the states the forks of one decision may make
	// before the decision prunes them: a decision's answer and reply
	// settle most of what a backlog of calls left unknown, so the bound
	// on what is kept applies after it.
	maxForks = 16 * maxBranches
	// unseenPlacements is how many of the identity's decisions, after a
	// call whose outcome is unknown was sent, the call may have run before.
	unseenPlacements = 3
)

// branch is one state the identity's key may be in.
type branch struct {
	model algorithms.Model
	// hist is every request fed to model since it was last made fresh:
	// what a copy is made from, and what a replica kept.
	hist []fed
	// pending are calls that may yet have run.
	pending []pendingCall
	// resets has bit i set once reset i has been placed (taken or passed
	// over) on this branch.
	resets uint64
	// placed says a call whose outcome is unknown was placed in this
	// state, at an instant known only within uncertainUs: the remaining
	// and retry hints a reply gives, which the instant moves, are then not
	// held against it (its answers are); and a model whose state a reply
	// states (algorithms.Anchorer) takes the first plausible one.
	placed      bool
	uncertainUs int64
	// placedLo and placedHi bound, on the model's clock, the instants at
	// which the calls placed in this state may truly have run.
	placedLo, placedHi int64
	// stale is set once the branch went on from its own answer to a
	// decision held to the bound: its state is the replay's guess until
	// rebuilt from what the limiter admitted.
	stale bool
	// anchors are the states replies stated, at their place in hist.
	anchors []anchor
	// cuts are the instants of the decisions a reset came right before.
	cuts []int64
}

// anchor is a state a reply stated, right after hist[:at] was fed.
type anchor struct {
	at        int
	remaining float64
	instant   int64
}

// backlogUs is how long a server that wakes from a stall may take to run
// the backlog it received meanwhile, in whatever order its connections
// come: the identity's own decisions in that burst do not tell whether a
// call of the backlog ran yet.
const backlogUs = 10_000

// settledUs is the instant from which the identity's decisions count as
// ones call u may have run before: once its caller gave up, and once the
// server that received it (the first to decide anything after its send)
// ran its backlog.
func (u unseenCall) settledUs() int64 { return max(u.doneUs, u.nextUs) + backlogUs }

// earliestUs is the earliest instant at which call u may have run, after
// the identity's decision at last: not before its send, nor before the end
// of a fault that held the calls back. (A call the server ran at once may
// have gone unanswered all the same, its reply lost or late: the server's
// next decision does not bound it.) The latest is the decision it is
// placed before: not its caller's giving up, since a proxy or a busy
// machine between the two may deliver it later.
func (u unseenCall) earliestUs(last int64) int64 {
	return max(u.sentUs, u.notBeforeUs, last)
}

// pendingCall is a call whose outcome is unknown, and how many of the
// identity's decisions it has been passed over for.
type pendingCall struct {
	unseenCall
	passed int
}

// fed is a request fed to a branch's model: its instant on the model's
// clock, the instant the server ran it, and its units. The two differ for
// a limiter that decides by its caller's clock; a loss of state cuts its
// history where the server's clock puts the cut.
type fed struct{ at, serverAt, units int64 }

// feed decides a request of units at instant t, which the server ran at
// serverAt.
func (b *branch) feed(t, serverAt, units int64) bool {
	b.hist = append(b.hist, fed{t, serverAt, units})
	return allowN(b.model, t, units)
}

// copyOf is a copy of b made from a fresh model fed b's history.
func (b *branch) copyOf(fresh func() algorithms.Model) *branch {
	c := &branch{model: fresh(), hist: make([]fed, 0, len(b.hist)+1), pending: slices.Clone(b.pending), resets: b.resets,
		placed: b.placed, uncertainUs: b.uncertainUs, placedLo: b.placedLo, placedHi: b.placedHi, stale: b.stale, anchors: slices.Clone(b.anchors), cuts: slices.Clone(b.cuts)}
	k := 0
	for i, f := range b.hist {
		c.feed(f.at, f.serverAt, f.units)
		for k < len(b.anchors) && b.anchors[k].at == i+1 {
			c.model.(algorithms.Anchorer).Anchor(b.anchors[k].remaining, b.anchors[k].instant)
			k++
		}
	}
	return c
}

// placeRun feeds b a call placed at instant t (the model's clock; the
// server's is serverAt), one that may truly have run at any instant from
// lo to hi (the model's clock), and notes what its instant leaves
// uncertain: what a log holds of it, or the end of the window it opened.
func (b *branch) placeRun(t, serverAt, units, lo, hi int64) {
	admitted := b.feed(t, serverAt, units)
	if wo, ok := b.model.(algorithms.WindowOpener); ok {
		admitted = admitted && wo.Remaining() == float64(wo.Limit()-units)
	}
	b.placedWithin(lo, hi, admitted)
}

// placedWithin notes that a call was placed in b, one that may truly have
// run at any instant from lo to hi (the model's clock): when the model
// admitted it, what it holds is known only within that span.
func (b *branch) placedWithin(lo, hi int64, admitted bool) {
	if !b.placed {
		b.placedLo, b.placedHi = 0, 0
	}
	b.placed = true
	switch {
	case !admitted:
	case b.placedLo == 0 && b.placedHi == 0:
		b.placedLo, b.placedHi = lo, hi
	default:
		b.placedLo, b.placedHi = min(b.placedLo, lo), max(b.placedHi, hi)
	}
}

// restart makes b's state the one a new server had: fresh, with the
// requests the server ran before cutUs (its clock) that a replica kept
// (math.MinInt64: none).
func (b *branch) restart(fresh func() algorithms.Model, cutUs int64) {
	kept := b.hist
	b.model, b.hist, b.placed, b.anchors = fresh(), make([]fed, 0, len(kept)), false, nil
	b.stale = b.stale && cutUs != math.MinInt64
	for _, f := range kept {
		if f.serverAt < cutUs {
			b.feed(f.at, f.serverAt, f.units)
		}
	}
}

// identityReplay is the replay of one identity's decisions.
type identityReplay struct {
	a        *Auditor
	af       *auditFaults
	branches []*branch
	// gaveUp is set while the replay holds the identity to the bound
	// only: from when the branches passed maxBranches until its state is
	// known again.
	gaveUp bool
	// everGaveUp is set once the replay gave up on the identity.
	everGaveUp bool
	// opening is set while the identity's decisions are held because a
	// window that a placed call opened may have ended, at an instant known
	// only within a span: until a reply shows the first admission of a
	// window (algorithms.WindowOpener).
	opening bool
	// doubtUntil is, on the model's clock, the latest instant at which a
	// call in doubt that no branch holds pending any more may have run.
	doubtUntil int64
	// decs are the identity's decisions, and k the one being judged.
	decs []auditRecord
	k    int
	// forked is set once the replay kept more than one state.
	forked bool
}

// replay runs one identity's decisions (in server time order) through the
// model across the run's losses of state, calls whose outcome is unknown
// and resets seen on the server, and judges each decision (see above).
// What the losses of state let through is measured against the state the
// first branch would have had without them.
//
// It returns the instants at which the first state it kept took a reset,
// where the identity's windows are measured anew.
func (af *auditFaults) replay(a *Auditor, slot int, decs []auditRecord, res *result.Audit, checks *result.ReplyCheck) (cuts []int64) {
	fresh := a.model.Model
	rp := &identityReplay{a: a, af: af, branches: []*branch{{model: fresh()}}}
	unseen := af.unseen[slot%auditShards][slot]
	slices.SortFunc(unseen, func(x, y unseenCall) int { return cmp.Compare(x.sentUs, y.sentUs) })
	ui, ev := 0, 0
	var kept algorithms.Model // the state had the loss not happened
	var loss *result.StateLoss
	var net int64
	lost, first := false, false
	closeLoss := func() {
		if loss != nil {
			loss.Admitted += max(net, 0)
			if lost {
				loss.Identities++
			}
		}
		kept, loss, net, lost = nil, nil, 0, false
	}
	if len(unseen) > 0 {
		af.fig.identitiesWithUnseen++
	}
	rp.decs = decs
	for k, r := range decs {
		rp.k = k
		// The replay runs in the server's order and places what happened
		// on its clock; the model is fed the time the limiter saw, which
		// is shift from it when the limiter decided by its caller's clock.
		at, shift := r.at(), r.modelAt()-r.at()
		for ev < len(af.events) && af.events[ev].ResumeUs <= at {
			e := af.events[ev]
			ev++
			closeLoss()
			kept = rp.branches[0].copyOf(fresh).model
			for ui < len(unseen) && unseen[ui].sentUs < e.ResumeUs {
				rp.add(unseen[ui])
				ui++
			}
			for _, b := range rp.branches {
				b.restart(fresh, e.CutUs)
				// What ran unseen on the old server after the cut is gone
				// with it; a call given up only once the new server was
				// there may have run on it (waiting for a connection that
				// reached the new server), and stays.
				b.pending = slices.DeleteFunc(b.pending, func(u pendingCall) bool {
					return (e.CutUs == math.MinInt64 || u.sentUs >= e.CutUs) && u.doneUs < e.ResumeUs
				})
			}
			switch {
			case e.Unknown:
				rp.unknown(e.ResumeUs + shift)
			case rp.gaveUp && e.CutUs == math.MinInt64:
				// The new server kept nothing: the state is known again.
				rp.resume()
			}
			loss, first = af.fig.stateLost[e.Fault], true
		}
		for ui < len(unseen) && unseen[ui].sentUs <= at {
			rp.add(unseen[ui])
			ui++
		}
		if !rp.gaveUp {
			rp.settle(r.modelAt())
			rp.placeResets(at)
			rp.placeUnseen(at, shift)
			if len(rp.branches) > maxForks {
				rp.giveUp()
			}
		}
		if kept != nil {
			k := allowN(kept, at+shift, unitsOf(r.units))
			if k != r.allowed() {
				lost = true
			}
			net += b2i(r.allowed()) - b2i(k)
		}
		rp.decide(r, res, checks)
		if len(rp.branches) > maxBranches {
			rp.giveUp()
		}
		if first && kept != nil {
			first = false
			km, ok1 := kept.(algorithms.ReplyModel)
			mm, ok2 := rp.branches[0].model.(algorithms.ReplyModel)
			if ok1 && ok2 && mm.Remaining() > km.Remaining()+1e-9 {
				lost = true
			}
		}
	}
	closeLoss()
	if rp.forked {
		af.fig.identitiesBranched++
	}
	if rp.everGaveUp {
		af.fig.gaveUp++
	}
	return rp.branches[0].cuts
}

// giveUp keeps one branch and holds the identity's decisions to the bound
// only until its state is known again. The branch kept is taken as placed
// with no bound on its uncertainty, so that the first reply that states
// the whole state exactly (algorithms.Anchorer) anchors it.
func (rp *identityReplay) giveUp() {
	b := rp.branches[0]
	b.placed, b.uncertainUs = true, unknownPast
	rp.branches = rp.branches[:1]
	rp.gaveUp, rp.everGaveUp = true, true
}

// unknown holds the identity's decisions to the bound only from a loss of
// state after which the new server's state is not known (a replica's copy
// of the old one's, up to an unknown instant), resuming at instant
// resumeUs (the model's clock), until its state is known again: a window
// that opens at its first request, at a reply that shows a window's first
// admission (reopen); a log of admissions, once the window before a
// decision lies wholly after the loss (settle rebuilds it from what the
// limiter admitted there); any other, at the first reply that states its
// whole state (an Anchorer's), or never.
func (rp *identityReplay) unknown(resumeUs int64) {
	switch rp.branches[0].model.(type) {
	case algorithms.WindowOpener:
		rp.branches = rp.branches[:1]
		rp.opening = true
	case algorithms.LogModel:
		rp.branches = rp.branches[:1]
		b := rp.branches[0]
		b.stale, b.placed, b.placedLo, b.placedHi, b.uncertainUs = true, true, resumeUs, resumeUs, 0
		rp.doubtUntil = max(rp.doubtUntil, resumeUs)
	default:
		rp.giveUp()
	}
}

// unknownPast is the uncertainty of a branch the replay gave up on: any
// reply that states the whole state exactly may anchor it.
const unknownPast = math.MaxInt64 / 4

// statesExactly says whether a reply's remaining states a bucket's state
// exactly, not only its whole requests: it carries a fraction, or it is
// what a full bucket has (a whole number there is exact).
func (a *Auditor) statesExactly(remaining float64) bool {
	if remaining != math.Trunc(remaining) {
		return true
	}
	full, ok := a.model.Model().(algorithms.ReplyModel)
	return ok && remaining == full.Remaining()
}

// resume judges the identity's decisions again from its one branch, whose
// state is known.
func (rp *identityReplay) resume() {
	rp.branches = rp.branches[:1]
	rp.branches[0].placed, rp.branches[0].uncertainUs = false, 0
	rp.gaveUp = false
}

// add makes call u one every branch may have run.
func (rp *identityReplay) add(u unseenCall) {
	for _, b := range rp.branches {
		b.pending = append(b.pending, pendingCall{unseenCall: u})
	}
}

// placeUnseen forks, for each branch with calls pending, the branches in
// which some of them ran right before the decision at at. A server runs
// what it received in order: the first m pending calls (by send) ran,
// each at the first instant after its send at which the server decided
// anything (a reply that came late, a stalled server that woke and ran its
// backlog) or at the decision's own instant; or one call ran alone, the
// earlier ones lost with a connection that broke. Instants are the
// server's; the model is fed them shift later, as it is fed the decision
// at at, or, for a limiter that decides by its caller's clock, at the time
// the call's request carried: whenever the server ran it, that is the
// time it decided by.
func (rp *identityReplay) placeUnseen(at, shift int64) {
	fresh := rp.a.model.Model
	var added []*branch
	for _, b := range rp.branches {
		n := len(b.pending)
		if n == 0 {
			continue
		}
		last := b.lastServed(math.MinInt64)
		// place runs call p on c at server instant t, the earliest it may
		// have run being lo.
		place := func(c *branch, p pendingCall, t, lo int64) {
			if p.carriedUs > 0 {
				c.placeRun(p.carriedUs, t, unitsOf(p.units), p.carriedUs, p.carriedUs)
				return
			}
			c.uncertainUs = max(c.uncertainUs, at-lo)
			c.placeRun(t+shift, t, unitsOf(p.units), lo+shift, at+shift)
		}
		ranAlone := func(i int) *branch {
			c := b.copyOf(fresh)
			place(c, b.pending[i], at, b.pending[i].earliestUs(last))
			c.pending = slices.Delete(slices.Clone(b.pending), i, i+1)
			return c
		}
		for m := 1; m <= n; m++ {
			atWake := b.copyOf(fresh)
			atSend := b.copyOf(fresh)
			differ := false
			for _, p := range b.pending[:m] {
				lo := p.earliestUs(last)
				place(atWake, p, at, lo)
				t := min(max(p.sentUs, p.nextUs, atSend.lastServed(last)), at)
				differ = differ || t != at
				place(atSend, p, t, lo)
			}
			atWake.pending, atSend.pending = slices.Clone(b.pending[m:]), slices.Clone(b.pending[m:])
			added = append(added, atWake)
			if differ {
				added = append(added, atSend)
			}
		}
		for i := 1; i < n; i++ {
			added = append(added, ranAlone(i))
		}
	}
	if len(added) > 0 {
		rp.branches = dedup(append(rp.branches, added...))
		rp.forked = true
	}
}

// lastFed is the last instant fed to b, or otherwise.
func (b *branch) lastFed(otherwise int64) int64 {
	if n := len(b.hist); n > 0 {
		return b.hist[n-1].at
	}
	return otherwise
}

// lastServed is the server's instant of the last request fed to b, or
// otherwise.
func (b *branch) lastServed(otherwise int64) int64 {
	if n := len(b.hist); n > 0 {
		return b.hist[n-1].serverAt
	}
	return otherwise
}

// dedup keeps one branch of each state, where the models can state theirs
// (algorithms.Stater): branches in one state, with the same resets placed,
// decide alike from here on, but for the calls that may yet run on them.
// The branch kept takes every call pending on the others too: it may then
// run a call that the state already holds, which can only explain a
// denial, never an admission (a limiter that admits too much is caught as
// before). Every decision replayed passes here, most with one branch,
// which returns at once.
func dedup(bs []*branch) []*branch {
	if len(bs) < 2 {
		return bs
	}
	seen := map[string]*branch{}
	out := bs[:0]
	var key []int64
	var buf []byte
	for _, b := range bs {
		st, ok := b.model.(algorithms.Stater)
		if !ok {
			return bs
		}
		key = st.AppendState(key[:0])
		key = append(key, -1, int64(b.resets))
		// Eight bytes a number: keys of different states differ.
		buf = buf[:0]
		for _, v := range key {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
		}
		k := string(buf)
		if kept := seen[k]; kept != nil {
			kept.absorb(b)
			continue
		}
		seen[k] = b
		out = append(out, b)
	}
	return out
}

// absorb makes the calls pending on o, a branch in b's state, pending on b
// too (in order of send, each once, passed over as few times as either
// says), and keeps the larger uncertainty of the two.
func (b *branch) absorb(o *branch) {
	if o.placed {
		b.placedWithin(o.placedLo, o.placedHi, o.placedLo != 0 || o.placedHi != 0)
	}
	b.uncertainUs = max(b.uncertainUs, o.uncertainUs)
	if len(o.pending) == 0 {
		return
	}
	merged := make([]pendingCall, 0, len(b.pending)+len(o.pending))
	i, j := 0, 0
	for i < len(b.pending) || j < len(o.pending) {
		switch {
		case j >= len(o.pending) || (i < len(b.pending) && b.pending[i].before(o.pending[j])):
			merged = append(merged, b.pending[i])
			i++
		case i >= len(b.pending) || o.pending[j].before(b.pending[i]):
			merged = append(merged, o.pending[j])
			j++
		default:
			p := b.pending[i]
			p.passed = min(p.passed, o.pending[j].passed)
			merged = append(merged, p)
			i++
			j++
		}
	}
	b.pending = merged
}

// before orders pending calls by send, then by when they were given up.
func (p pendingCall) before(q pendingCall) bool {
	if p.sentUs != q.sentUs {
		return p.sentUs < q.sentUs
	}
	if p.doneUs != q.doneUs {
		return p.doneUs < q.doneUs
	}
	return p.units < q.units
}

// placeResets forks, for each reset seen on the server whose span has
// begun by at, a branch whose state it took right before the decision at
// at; once the span is over, a reset of every key is taken on the
// branches that had not placed it, and a reset of some keys is one they
// may or may not have met.
func (rp *identityReplay) placeResets(at int64) {
	fresh := rp.a.model.Model
	var added []*branch
	for i, rs := range rp.af.resets {
		if i >= 64 || rs.FromUs >= at {
			continue
		}
		bit := uint64(1) << i
		for _, b := range rp.branches {
			if b.resets&bit != 0 {
				continue
			}
			switch {
			case at <= rs.ToUs || !rs.AllKeys:
				// Within the span (or, for some keys, at the first
				// decision after it): taken now, or not (yet).
				c := &branch{model: fresh(), pending: slices.Clone(b.pending), resets: b.resets | bit, cuts: append(slices.Clone(b.cuts), at)}
				added = append(added, c)
				if at > rs.ToUs {
					b.resets |= bit
				}
			default:
				b.model, b.hist, b.placed, b.anchors, b.stale = fresh(), nil, false, nil, false
				b.resets |= bit
				b.cuts = append(b.cuts, at)
			}
		}
	}
	if len(added) > 0 {
		rp.branches = dedup(append(rp.branches, added...))
		rp.forked = true
	}
}

// decide judges decision r on every branch and keeps those it agrees
// with; when none does, it is a mismatch (an under-admission when every
// branch would have admitted what the limiter denied), and every branch
// goes on from its own answer. After the replay gave up on the identity,
// its decisions are counted unjudged (and held to the bound only).
func (rp *identityReplay) decide(r auditRecord, res *result.Audit, checks *result.ReplyCheck) {
	a := rp.a
	held := rp.expiring(r.modelAt()) || rp.mayHaveEnded(r.modelAt())
	var agree []*branch
	var firstCheck judgement
	allAdmit, allDeny := true, true
	for i, b := range rp.branches {
		j := a.check(b, r)
		if i == 0 {
			firstCheck = j
		}
		allAdmit = allAdmit && j.expected
		allDeny = allDeny && !j.expected
		if !j.wrong {
			if agree == nil {
				firstCheck = j
			}
			agree = append(agree, b)
		}
	}
	if firstCheck.expected {
		res.ExpectedAllowed++
	}
	switch {
	case rp.gaveUp || held:
		if held {
			for _, b := range rp.branches {
				b.stale = true
			}
		}
		a.boundOnly++
		rp.af.fig.unjudged++
		if len(agree) == 0 {
			rp.af.fig.unjudgedWrong++
		}
		if rp.gaveUp && !rp.branches[0].placed {
			// The reply stated the whole state: judged again from the
			// next decision.
			rp.resume()
		}
		if rp.opening {
			rp.reopen(r)
		}
	default:
		firstCheck.count(checks)
		if allDeny {
			a.certainDenied++
		}
		if len(agree) == 0 {
			res.ModelMismatches++
			if allAdmit && !r.allowed() {
				res.UnderAdmitted++
			}
		} else {
			rp.branches = dedup(agree)
		}
	}
	for _, b := range rp.branches {
		for i := range b.pending {
			// A call runs, if at all, before the server hears that its
			// caller gave up, and a server that stalled runs its backlog
			// as it wakes: the decisions it may come after are those made
			// once both are past.
			if r.at() > b.pending[i].settledUs() {
				b.pending[i].passed++
			}
		}
		b.pending = slices.DeleteFunc(b.pending, func(p pendingCall) bool {
			if p.passed < unseenPlacements {
				return false
			}
			// Taken to have not run, in this branch; it may have run as
			// late as this decision.
			rp.doubtUntil = max(rp.doubtUntil, r.modelAt())
			return true
		})
	}
}

// expiring says whether, at instant stamp (the model's clock), some
// branch counts admissions within a window (algorithms.LogModel) and a
// call placed in it, at an instant known only within a span, may or may
// not have left the window by now: the decision then depends on when the
// call truly ran, and is held to the bound only.
func (rp *identityReplay) expiring(stamp int64) bool {
	for _, b := range rp.branches {
		lm, ok := b.model.(algorithms.LogModel)
		if !ok || b.uncertainUs >= unknownPast {
			continue
		}
		if b.stale {
			return true
		}
		if from := stamp - lm.LogWindowMicros(); b.placed && b.placedLo <= from && b.placedHi > from {
			return true
		}
	}
	return false
}

// windowTickUs is how far a window that opens at its first request
// (algorithms.WindowOpener) may end from where the model's clock puts it:
// the fixed window reads the time in whole milliseconds.
const windowTickUs = 1000

// mayHaveEnded says whether the identity's decisions are held because a
// window a placed call opened (algorithms.WindowOpener) may have ended by
// instant stamp (the model's clock), at an instant known only within the
// span the call may have run in; once so, they are held until a reply
// shows a window's first admission (reopen).
func (rp *identityReplay) mayHaveEnded(stamp int64) bool {
	if rp.opening || rp.gaveUp {
		return rp.opening
	}
	for _, b := range rp.branches {
		wo, ok := b.model.(algorithms.WindowOpener)
		if !ok || !b.placed || b.uncertainUs >= unknownPast || b.placedLo == 0 && b.placedHi == 0 {
			continue
		}
		w := wo.WindowMicros()
		switch {
		case stamp > b.placedHi+w+windowTickUs:
			// Ended in every placement before a decision could tell
			// when: the state no longer depends on it.
			b.placedLo, b.placedHi = 0, 0
		case stamp >= b.placedLo+w-windowTickUs:
			rp.opening = true
		}
	}
	return rp.opening
}

// reopen makes the identity's state known again when decision r, which
// every branch has decided, admitted units and left the limit less them:
// it was a window's first admission, and the window is what it opened.
func (rp *identityReplay) reopen(r auditRecord) {
	b := rp.branches[0]
	wo, ok := b.model.(algorithms.WindowOpener)
	units := unitsOf(r.units)
	if !ok || !r.allowed() || math.IsNaN(r.remaining) || r.remaining != float64(wo.Limit()-units) {
		return
	}
	for _, o := range rp.branches[1:] {
		b.absorb(o)
	}
	b.model, b.hist, b.anchors = rp.a.model.Model(), nil, nil
	b.feed(r.modelAt(), r.at(), units)
	b.placed, b.placedLo, b.placedHi, b.uncertainUs, b.stale = false, 0, 0, 0, false
	rp.branches = rp.branches[:1]
	rp.opening = false
}

// settle rebuilds, before the decision at instant stamp (the model's
// clock), each branch that counts admissions within a window
// (algorithms.LogModel) whose placed calls have all left the window in
// every placement, when no other call in doubt may have run within it:
// what its log holds is what the limiter admitted within the window, all
// of it seen.
func (rp *identityReplay) settle(stamp int64) {
	rebuilt := false
	for _, b := range rp.branches {
		lm, ok := b.model.(algorithms.LogModel)
		if !ok || !b.placed && !b.stale || b.uncertainUs >= unknownPast {
			continue
		}
		// No call in doubt may have run within the window before stamp:
		// every admission there is one the replay saw.
		if from := stamp - lm.LogWindowMicros(); b.placedHi <= from && rp.doubtUntil <= from && len(b.pending) == 0 {
			rp.rebuild(b, from)
			rebuilt = true
		}
	}
	if rebuilt {
		rp.branches = dedup(rp.branches)
	}
}

// rebuild makes b's state what the limiter admitted after instant from,
// before the decision being judged.
func (rp *identityReplay) rebuild(b *branch, from int64) {
	b.model, b.hist, b.anchors, b.placed, b.uncertainUs, b.stale = rp.a.model.Model(), nil, nil, false, 0, false
	for _, d := range rp.decs[:rp.k] {
		if d.allowed() && d.modelAt() > from {
			b.feed(d.modelAt(), d.at(), unitsOf(d.units))
		}
	}
}

// judgement is what one branch made of one decision.
type judgement struct {
	expected, wrong                  bool
	remainingChecked, remainingWrong bool
	retryChecked, retryTooEarly      bool
}

// count adds the reply checks j made to checks.
func (j judgement) count(checks *result.ReplyCheck) {
	checks.RemainingChecked += b2i(j.remainingChecked)
	checks.RemainingWrong += b2i(j.remainingWrong)
	checks.RetryAfterChecked += b2i(j.retryChecked)
	checks.RetryAfterTooEarly += b2i(j.retryTooEarly)
}

// check feeds decision r to branch b and says whether they disagree: on
// the answer, or on the remaining or retry hint the reply gave.
func (a *Auditor) check(b *branch, r auditRecord) judgement {
	var j judgement
	rm, _ := b.model.(algorithms.ReplyModel)
	stamp, allowed := r.modelAt(), r.allowed()
	j.expected = b.feed(stamp, r.at(), unitsOf(r.units))
	j.wrong = j.expected != allowed
	if b.placed {
		// The past is known only roughly: a reply that states the whole
		// state (a bucket's fraction, or a full bucket: a whole number of
		// requests left says only that the state lies within one of it),
		// within what the instants' uncertainty (and this request, decided
		// either way) can move, tells what it left.
		if an, ok := b.model.(algorithms.Anchorer); ok && rm != nil && !math.IsNaN(r.remaining) &&
			math.Abs(r.remaining-rm.Remaining()) <= 1+an.Rate()*float64(b.uncertainUs)+1e-6 &&
			a.statesExactly(r.remaining) {
			an.Anchor(r.remaining, stamp)
			b.anchors = append(b.anchors, anchor{at: len(b.hist), remaining: r.remaining, instant: stamp})
			b.placed, b.uncertainUs, j.wrong = false, 0, false
		}
		if !j.wrong && !math.IsNaN(r.remaining) && a.countSure(b, stamp) {
			// The count is exact, if not when what it holds expires:
			// the remaining is checked, the retry hint is not.
			j.remainingChecked = true
			if !algorithms.RemainingAgrees(r.remaining, rm.Remaining()) {
				j.remainingWrong, j.wrong = true, true
			}
		}
		return j
	}
	if rm == nil || j.wrong {
		return j
	}
	if !math.IsNaN(r.remaining) {
		j.remainingChecked = true
		if !algorithms.RemainingAgrees(r.remaining, rm.Remaining()) {
			j.remainingWrong, j.wrong = true, true
		}
	}
	if a.fields.RetryAfter && !allowed && r.retryMs != noRetry {
		j.retryChecked = true
		if !algorithms.RetryAgrees(rm, stamp, durationMs(r.retryMs)) {
			j.retryTooEarly, j.wrong = true, true
		}
	}
	return j
}

// countSure says whether a placed branch's remaining is exact at instant
// stamp all the same: no placed call was admitted, or its model counts
// admissions within a window (algorithms.LogModel) and the span in which
// the admitted placed calls may have run lies wholly inside or wholly
// outside the window before stamp, or it is a window that opens at its
// first request (algorithms.WindowOpener) that none of them can have
// opened and seen end yet.
func (a *Auditor) countSure(b *branch, stamp int64) bool {
	if b.uncertainUs >= unknownPast {
		return false
	}
	none := b.placedLo == 0 && b.placedHi == 0
	switch m := b.model.(type) {
	case algorithms.LogModel:
		from := stamp - m.LogWindowMicros()
		return none || b.placedLo > from || b.placedHi <= from
	case algorithms.WindowOpener:
		return none || stamp < b.placedLo+m.WindowMicros()-windowTickUs
	}
	return false
}

// durationMs is ms whole milliseconds.
func durationMs(ms uint32) time.Duration { return time.Duration(ms) * time.Millisecond }

// resetsFrom keeps the resets the replay can place (the first 64, by
// start), in order.
func resetsFrom(resets []event.Reset) []event.Reset {
	out := slices.SortedFunc(slices.Values(resets), func(x, y event.Reset) int { return cmp.Compare(x.FromUs, y.FromUs) })
	return out[:min(len(out), 64)]
}
