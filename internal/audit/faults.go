package audit

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// auditFaults is what the audit knows of a run's fault timeline, so that
// what the faults and the caller's error policy did is reported as such
// and not as the limiter's doing, while everything else is judged as
// strictly as in a run without faults:
//
//   - the error policy's decisions are kept per identity: the audit
//     replays them beside Redis's to tell how far fail-open (or a local
//     fallback) let an identity past the policy, and which of them a
//     working limiter would have decided otherwise;
//   - a fault that took the limiter's state away (restart, kill,
//     failover) starts a new lifetime of it: the model goes on from the
//     state the new server has (none, or what the replica had), windows
//     are measured within one lifetime, and what the loss let through is
//     counted apart;
//   - a call that failed inside a fault that may have let it run unseen
//     (a stall, a slow or lost reply) leaves its identity's state unknown
//     to the model: that identity's later decisions are checked against
//     the bound only, until a loss of state makes it known again.
type auditFaults struct {
	kinds []plan.FaultKind
	// spanUs are the faults' scheduled starts in server microseconds: a
	// time belongs to the last fault that started by then.
	spanUs []int64
	// callsHeld are the faults that held the calls back until they ended.
	callsHeld []heldSpan
	// events are the losses of state, in order, and resets the resets seen
	// on the server; set once the run is over.
	events []event.StateLoss
	resets []event.Reset
	// onError and unseen are, per audited slot, the error policy's
	// decisions (time and answer, as auditRecords) and the sends of calls
	// that may have run unseen.
	// Both are kept by slot in maps, a map per lock shard (guarded by the
	// auditor's lock of the slot): most runs have neither.
	onError [auditShards]map[int][]auditRecord
	unseen  [auditShards]map[int][]unseenCall
	limit   int64
	policyW int64
	// offset turns the client's clock into the server's.
	offset event.Offset

	fig FaultFigures
}

// FaultFigures are the audit's figures of a run's faults: per fault, and
// for the run.
type FaultFigures struct {
	// counterfactual is set when the limiter has a reference model, so
	// that admittedByFault and deniedByFault mean something.
	counterfactual  bool
	admittedByFault []int64
	deniedByFault   []int64
	policyExcess    []int64
	stateLost       []*result.StateLoss
	unjudged        int64
	unjudgedWrong   int64
	sampled         bool
	// identitiesWithUnseen had calls whose outcome is unknown;
	// identitiesBranched were replayed over more than one possible state;
	// gaveUp passed maxBranches and were held to the bound from there.
	identitiesWithUnseen, identitiesBranched, gaveUp int64
}

// watchFaults makes the audit aware of a run's faults.
func (a *Auditor) watchFaults(tl Timeline) {
	faults, start, offset := tl.Faults, tl.Start, tl.Offset
	pol := a.limiter.Policy()
	af := &auditFaults{
		limit: pol.Limit, policyW: pol.WindowMicros(),
		offset: offset,
	}
	n := len(faults)
	af.fig = FaultFigures{
		counterfactual: a.model != nil, sampled: a.sampled,
		admittedByFault: make([]int64, n), deniedByFault: make([]int64, n), policyExcess: make([]int64, n),
		stateLost: make([]*result.StateLoss, n),
	}
	for i, f := range faults {
		af.kinds = append(af.kinds, f.Kind)
		af.spanUs = append(af.spanUs, offset.ServerMicros(start.Add(f.At)))
		if f.Kind.LosesState() {
			af.fig.stateLost[i] = &result.StateLoss{}
		}
		if f.Kind.HoldsCalls() {
			af.callsHeld = append(af.callsHeld, heldSpan{startUs: offset.ServerMicros(start.Add(f.At)), endUs: offset.ServerMicros(start.Add(f.End()))})
		}
	}
	a.faults = af
}

// recordOnError keeps the error policy's decision for identity, made for
// a call sent at atUs (server microseconds).
func (a *Auditor) recordOnError(identity uint64, atUs int64, allowed bool, units int64) {
	if a == nil || a.faults == nil {
		return
	}
	slot, ok := a.slot(identity)
	if !ok {
		return
	}
	r := auditRecord{key: uint64(max(atUs, 0)) << 1, remaining: math.NaN(), retryMs: noRetry, units: recordUnits(units)}
	if !allowed {
		r.key |= 1
	}
	mu := &a.locks[slot%auditShards]
	mu.Lock()
	m := &a.faults.onError[slot%auditShards]
	if *m == nil {
		*m = map[int][]auditRecord{}
	}
	(*m)[slot] = append((*m)[slot], r)
	mu.Unlock()
}

// RecordUnseen notes that a call of identity sent at sentUs and given up
// at doneUs (server microseconds) failed in a way that may have let it
// run on the server; carriedUs is the caller's time its request carried
// (0: none). A nil Auditor, or one without a timeline, ignores it.
func (a *Auditor) RecordUnseen(identity uint64, sentUs, doneUs, units, carriedUs int64) {
	if a == nil || a.faults == nil {
		return
	}
	slot, ok := a.slot(identity)
	if !ok {
		return
	}
	mu := &a.locks[slot%auditShards]
	mu.Lock()
	m := &a.faults.unseen[slot%auditShards]
	if *m == nil {
		*m = map[int][]unseenCall{}
	}
	u := unseenCall{sentUs: sentUs, doneUs: doneUs, units: recordUnits(units)}
	if a.argsClock {
		u.carriedUs = carriedUs
	}
	(*m)[slot] = append((*m)[slot], u)
	mu.Unlock()
}

// setStateLosses hands the audit the losses of state the run's faults
// caused, and the resets seen on the server, once the run is over.
func (a *Auditor) setStateLosses(losses []event.StateLoss, resets []event.Reset) {
	for _, e := range losses {
		a.faults.fig.grow(e.Fault + 1)
		if a.faults.fig.stateLost[e.Fault] == nil {
			// A switch of primary nobody scheduled, after the schedule's
			// faults.
			a.faults.fig.stateLost[e.Fault] = &result.StateLoss{}
		}
	}
	a.faults.events = slices.SortedFunc(slices.Values(losses), func(x, y event.StateLoss) int { return cmp.Compare(x.ResumeUs, y.ResumeUs) })
	a.faults.resets = resetsFrom(resets)
}

// grow makes room for the figures of n faults.
func (fig *FaultFigures) grow(n int) {
	for len(fig.stateLost) < n {
		fig.admittedByFault = append(fig.admittedByFault, 0)
		fig.deniedByFault = append(fig.deniedByFault, 0)
		fig.policyExcess = append(fig.policyExcess, 0)
		fig.stateLost = append(fig.stateLost, nil)
	}
}

// faultAt is the index of the fault whose span holds server time us, or
// -1 before the first.
func (af *auditFaults) faultAt(us int64) int {
	return sort.Search(len(af.spanUs), func(i int) bool { return af.spanUs[i] > us }) - 1
}

// epochs splits an identity's decisions (in time order) at each loss of
// state, and at each instant in cuts (where the replay placed a reset
// seen on the server); without either, they are one epoch.
func (af *auditFaults) epochs(decs []auditRecord, cuts []int64) [][]auditRecord {
	if af == nil || len(af.events)+len(cuts) == 0 {
		return [][]auditRecord{decs}
	}
	at := slices.Clone(cuts)
	for _, e := range af.events {
		at = append(at, e.ResumeUs)
	}
	slices.Sort(at)
	var out [][]auditRecord
	from := 0
	for _, t := range at {
		i := sort.Search(len(decs), func(i int) bool { return decs[i].at() >= t })
		if i > from {
			out = append(out, decs[from:i])
			from = i
		}
	}
	if from < len(decs) {
		out = append(out, decs[from:])
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// identity measures, for one identity, what the error policy and the
// losses of state let through: how far admissions on error took it past
// the policy beyond the limiter's own admissions in one window, which of
// the policy's decisions a working limiter would have decided otherwise,
// and the busiest window that spans each loss of state.
func (af *auditFaults) identity(a *Auditor, slot int, decs []auditRecord) {
	if af == nil {
		return
	}
	onErr := af.onError[slot%auditShards][slot]
	delete(af.onError[slot%auditShards], slot)
	delete(af.unseen[slot%auditShards], slot)
	slices.SortFunc(onErr, func(x, y auditRecord) int { return cmp.Compare(x.key, y.key) })
	var redis tally
	for _, r := range decs {
		if r.allowed() {
			redis.add(r.at(), unitsOf(r.units))
		}
	}
	for k := range af.kinds {
		var extra tally
		for _, r := range onErr {
			if r.allowed() && af.faultAt(r.at()) == k {
				extra.add(r.at(), unitsOf(r.units))
			}
		}
		af.fig.policyExcess[k] = max(af.fig.policyExcess[k], excessBeyond(&redis, &extra, af.policyW, af.limit))
	}
	if a.model != nil && len(onErr) > 0 {
		af.counterfactual(a.model.Model(), decs, onErr)
	}
	for _, e := range af.events {
		if l := af.fig.stateLost[e.Fault]; l != nil {
			l.MaxWindowAdmitted = max(l.MaxWindowAdmitted, redis.maxInAt(e.ResumeUs, af.policyW))
		}
	}
}

// counterfactual replays every request of one identity, Redis's decisions
// and the error policy's, through a fresh model: the limiter as it would
// have decided had Redis answered every call. Each policy decision it
// would have decided otherwise counts as admitted or denied by the fault.
func (af *auditFaults) counterfactual(model algorithms.Model, decs, onErr []auditRecord) {
	i, j := 0, 0
	for i < len(decs) || j < len(onErr) {
		if j >= len(onErr) || (i < len(decs) && decs[i].at() <= onErr[j].at()) {
			allowN(model, decs[i].modelAt(), unitsOf(decs[i].units))
			i++
			continue
		}
		r := onErr[j]
		j++
		would := allowN(model, r.at(), unitsOf(r.units))
		k := af.faultAt(r.at())
		if k < 0 {
			continue
		}
		switch {
		case r.allowed() && !would:
			af.fig.admittedByFault[k]++
		case !r.allowed() && would:
			af.fig.deniedByFault[k]++
		}
	}
}

// excessBeyond is the most, over any interval of window microseconds,
// that admissions on error (extra) added past the policy's limit beyond
// what the limiter itself admitted there (redis), in units: in each
// interval, all admissions minus the larger of the limit and the
// limiter's own. Intervals start at an admission.
func excessBeyond(redis, extra *tally, window, limit int64) int64 {
	if len(extra.at) == 0 {
		return 0
	}
	type adm struct {
		at, units int64
		redis     bool
	}
	all := make([]adm, 0, len(redis.at)+len(extra.at))
	for i, t := range redis.at {
		all = append(all, adm{t, redis.unitsOfOne(i), true})
	}
	for i, t := range extra.at {
		all = append(all, adm{t, extra.unitsOfOne(i), false})
	}
	slices.SortFunc(all, func(x, y adm) int { return cmp.Compare(x.at, y.at) })
	var best int64
	j := 0
	var inAll, inRedis int64
	for i := range all {
		for j < len(all) && all[j].at-all[i].at < window {
			inAll += all[j].units
			if all[j].redis {
				inRedis += all[j].units
			}
			j++
		}
		best = max(best, inAll-max(limit, inRedis))
		inAll -= all[i].units
		if all[i].redis {
			inRedis -= all[i].units
		}
	}
	return best
}

// Apply writes the audit's figures into the run's faults; a nil
// FaultFigures (a run without a timeline, or without an audit) writes
// nothing.
func (fig *FaultFigures) Apply(f *result.Faults) {
	if fig == nil || f == nil {
		return
	}
	var admitted, denied int64
	for k := range f.Windows {
		w := &f.Windows[k]
		if k >= len(fig.policyExcess) {
			break
		}
		w.PolicyExcess = fig.policyExcess[k]
		f.PolicyExcess = max(f.PolicyExcess, w.PolicyExcess)
		if fig.counterfactual {
			a, d := fig.admittedByFault[k], fig.deniedByFault[k]
			w.AdmittedByFault, w.DeniedByFault = &a, &d
			admitted += a
			denied += d
		}
		if l := fig.stateLost[k]; l != nil {
			c := *l
			w.StateLost = &c
			f.StateLostIdentities += c.Identities
			f.StateLostAdmitted += c.Admitted
		}
	}
	if fig.counterfactual {
		f.AdmittedByFault, f.DeniedByFault = &admitted, &denied
	}
	f.Unjudged, f.UnjudgedMismatches = fig.unjudged, fig.unjudgedWrong
	f.Uncertain = &result.Uncertain{Identities: fig.identitiesWithUnseen, Branched: fig.identitiesBranched, GaveUp: fig.gaveUp}
	if fig.sampled {
		f.Notes = append(f.Notes, "the figures from the audit (policy excess, admitted and denied by the fault, state lost) cover its sample of identities")
	}
}

// unseenCall is a call that failed but may have run on the server: when
// it was sent and when its caller gave up, in server microseconds.
type unseenCall struct {
	sentUs, doneUs int64
	// units is what the call asked for (zero is one).
	units uint32
	// nextUs is the first instant, after the call's send, at which the
	// server decided any audited request: a server that held calls back
	// ran them as it woke (0 until known).
	nextUs int64
	// notBeforeUs is the earliest instant it may have run: its send, or
	// the end of a fault that held the calls back (0 until known).
	notBeforeUs int64
	// carriedUs is, for a limiter that decides by its caller's clock, the
	// time the request carried: whenever the server ran it, that is the
	// time it decided by (0: not known).
	carriedUs int64
}

// placeAfterDecisions finds, for every call whose outcome is unknown, the
// first instant after its send at which the server decided any audited
// request. A server runs what it received in order: a call that ran, ran
// no earlier than that (a stalled server woke and ran its backlog from
// there), and a replay places it there when it ran before the identity's
// next decision. It reads every decision once, only when there are such
// calls.
func (a *Auditor) placeAfterDecisions() {
	var calls []*unseenCall
	for i := range a.faults.unseen {
		for _, us := range a.faults.unseen[i] {
			for k := range us {
				calls = append(calls, &us[k])
			}
		}
	}
	if len(calls) == 0 {
		return
	}
	var all []int64
	for i := range a.logs {
		l := &a.logs[i]
		for _, c := range l.chunks {
			for _, s := range c {
				if r := s.decode(l.extras); !r.timed() {
					all = append(all, r.at())
				}
			}
		}
	}
	slices.Sort(all)
	for _, u := range calls {
		u.notBeforeUs = a.faults.heldUntil(u.sentUs)
		if i, _ := slices.BinarySearch(all, u.sentUs); i < len(all) {
			u.nextUs = all[i]
		}
	}
}

// injectionMargin is how far from its schedule a fault may take effect
// or end.
const injectionMargin = 100 * time.Millisecond

// heldSpan is a fault that held the calls back, from its scheduled start
// to its scheduled end, in server microseconds.
type heldSpan struct{ startUs, endUs int64 }

// heldUntil is the earliest instant (server microseconds) at which a call
// sent at sentUs may have run when a fault held it back until its end: a
// call sent within the fault's schedule (give or take the margin) ran no
// earlier than its scheduled end, less the margin; any other, at its send.
func (af *auditFaults) heldUntil(sentUs int64) int64 {
	t := sentUs
	margin := injectionMargin.Microseconds()
	for _, s := range af.callsHeld {
		if sentUs >= s.startUs-margin && sentUs <= s.endUs+margin {
			t = max(t, s.endUs-margin)
		}
	}
	return t
}

// resetCuts are where, judged by the bound alone, one identity's state
// may have started a new lifetime: the end of each reset seen on the
// server that took every key, and, for a reset of some keys (which may or
// may not have been this identity's), each of its decisions within the
// reset's span and the span's end. Windows are measured between cuts, so
// an admission a reset explains is never counted against the limiter.
func (af *auditFaults) resetCuts(decs []auditRecord) []int64 {
	if af == nil {
		return nil
	}
	var out []int64
	for _, r := range af.resets {
		out = append(out, r.ToUs)
		if r.AllKeys {
			continue
		}
		i := sort.Search(len(decs), func(i int) bool { return decs[i].at() >= r.FromUs })
		for ; i < len(decs) && decs[i].at() <= r.ToUs; i++ {
			out = append(out, decs[i].at())
		}
	}
	return out
}
