package audit

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// auditShards spreads the audit's locks, so workers rarely wait for each
// other.
const auditShards = 64

// Auditor keeps, for each audited identity, every decision that came back:
// when it was made and its answer, and what its reply said that the model
// can check. Replaying them in time order after the run is the audit:
// through the limiter's reference model when it has one and the decisions
// carry the server time they used; against its bound alone otherwise.
// Memory is 16 bytes per audited decision in the common case (store.go).
type Auditor struct {
	limiter algorithms.Bounded
	// model is nil when only the bound is judged.
	model algorithms.Auditable
	// exact, for an approximate algorithm, is the exact one whose
	// decisions on the same arrivals it is compared with.
	exact algorithms.Auditable
	// fields are the reply parts checked against the model.
	fields algorithms.ReplyFields
	// window is the interval the bound is stated over, in microseconds.
	window int64
	// slots maps a sampled identity to its slot; nil when every identity
	// is audited and the identity is the slot. n is how many slots there
	// are.
	slots   map[uint64]int32
	n       int
	sampled bool
	// logs keep the decisions, each identity's in the shard of its slot
	// (slot % auditShards), which locks guards.
	logs  [auditShards]logShard
	locks [auditShards]sync.Mutex
	// edges, when watched, measures admissions around each identity's
	// window boundary.
	edges *edges
	// faults, when the run has faults or an error policy, keeps what the
	// audit needs to tell their doing from the limiter's.
	faults *auditFaults
	// decided counts every decision of the run, audited or not, for the
	// audit's coverage.
	decided atomic.Int64
	// unseenFromOutcomes: see Config.UnseenFromOutcomes.
	unseenFromOutcomes bool
	// promiseAdmits and promiseWithinUs are the limiter's promise to
	// admit (algorithms.Promiser); zero when it states none.
	promiseAdmits, promiseWithinUs int64
	// linear is the limiter's linear bound, when it has one (a bucket):
	// checked over every interval between two admissions at known times.
	linear struct {
		capacity, limit, windowUs int64
		ok                        bool
	}
	// argsClock says the limiter decides by the caller's clock its
	// arguments carry (Decision.ClientNowMicros); tickUs is the unit they
	// carry it in (algorithms.CallerTicked), in microseconds.
	argsClock bool
	tickUs    int64
	// seenTooFar is set when a decision by the caller's clock carried a
	// time further than an int32 of microseconds from the server's: the
	// model cannot be fed the times the limiter saw, and only the bound
	// is judged.
	seenTooFar atomic.Bool
	// fleet is the run's application instances, whose clocks count from
	// fleetStart (nil without a fleet); instances is how many there are,
	// and inExcess counts, per instance, the admissions within the busiest
	// window of each identity that went past the bound.
	fleet      *plan.Fleet
	fleetStart time.Time
	instances  int
	inExcess   [plan.MaxFleetInstances]int64
	// certainDenied counts the replayed decisions the model denied in
	// every state the limiter may have been in: where an admission beyond
	// the model would have shown.
	certainDenied int64
	// ideal sets each identity's decisions beside the ideal limiter of the
	// policy, on the same arrivals.
	ideal *idealAudit
	// scratch is reused by the comparisons with another limiter.
	scratch []arrival
	// identities is, for a sampled audit, each slot's identity in the run
	// (built when first asked: identityOf).
	identities []uint64
	// boundOnly counts the replayed decisions judged by the bound only,
	// after the replay gave up on their identity (too many possible
	// states): there the bound is what could catch an excess.
	boundOnly int64
}

var (
	_ event.Sink         = (*Auditor)(nil)
	_ event.BoundarySink = (*Auditor)(nil)
)

// Config says what one run's audit judges.
type Config struct {
	// Limiter is the run's limiter: its bound, and its reference model
	// when it has one.
	Limiter algorithms.Limiter
	// Identities is how many callers the run has; at most Sample of them
	// are audited (a sample drawn with Seed beyond that), none when
	// Sample is 0.
	Identities, Sample int
	Seed               int64
	// EdgeFromMs and EdgeToMs, when they differ, make the audit measure
	// how admissions fall around each identity's window boundary, over
	// that span of milliseconds around it (see Auditor.Boundary).
	EdgeFromMs, EdgeToMs int64
	// Timeline places the run's faults and the error policy's decisions
	// on the server's clock (the zero Timeline: no faults, the local clock
	// taken for the server's).
	Timeline Timeline
	// UnseenFromOutcomes makes the audit take a failed request that may
	// have run on the server (Outcome.MayHaveRun) as a call whose outcome
	// is unknown. A run whose caller tells the audit of each failed call
	// itself (RecordUnseen) leaves it unset.
	UnseenFromOutcomes bool
	// Fleet is the run's application instances (nil without a fleet),
	// whose clocks' offsets count from FleetStart, on the local clock: the
	// audit takes each instance's skew off the times it carried, and says
	// how each took part in admissions past the bound.
	Fleet      *plan.Fleet
	FleetStart time.Time
	// Ideal is the ideal limiter of the limiter's policy its decisions are
	// set beside (empty: the one the policy describes,
	// algorithms.DefaultIdeal).
	Ideal algorithms.Ideal
}

// Timeline is a run's fault schedule as the audit places it: the faults,
// the start of the traffic they are scheduled from, and the offset that
// turns local times into the server's.
type Timeline struct {
	Faults plan.Faults
	Start  time.Time
	Offset event.Offset
}

// auditRecord is one decision as the audit keeps it.
type auditRecord struct {
	// key is the decision's time in microseconds shifted left by one, with
	// bit 0 set for a denial, so that sorting puts decisions in time order
	// and, within one microsecond, admissions before denials: the order
	// every limiter decides in when time stands still. The time is the
	// server's, or without it the client's send.
	key uint64
	// remaining is the reply's, NaN when it is not checked.
	remaining float64
	// widthUs is how long after the send the reply came, when the time is
	// the client's: the decision was made somewhere in between. For a
	// decision by the caller's clock that carries the server's time too
	// (seen), it holds instead, as an int32, the caller's time less the
	// server's: the time the limiter saw (see modelAt).
	widthUs uint32
	// retryMs is a denial's retry hint, in whole milliseconds rounded up;
	// noRetry when the reply carries none.
	retryMs uint32
	// units is how many units the request asked for (zero is one).
	units uint32
	// argsTime says the time is the one the limiter's arguments carried,
	// which it decided by: exact for its bound; its widthUs is then the
	// round trip, within which the server may have run it after requests
	// stamped later (a denial may follow admissions of later times).
	argsTime bool
	// seen says the limiter decided by the caller's clock and the reply
	// carries the server's time: the time is the server's (the true time
	// the bound is judged at), and the time the limiter saw, which its
	// model is fed, is in widthUs.
	seen bool
	// instance is the application instance of the run's fleet that sent
	// the request (0 without a fleet).
	instance uint8
	// callerTimed says the limiter decided by the caller's clock: its
	// bound is judged on the true clock, where the decision lies somewhere
	// from sentUs after its time (a negative number: before it) to
	// roundTripUs after that, its request's send and its reply on the
	// server's clock.
	callerTimed bool
	sentUs      int32
	roundTripUs uint32
}

// noRetry marks a record whose reply carried no retry hint.
const noRetry = math.MaxUint32

func (r auditRecord) at() int64     { return int64(r.key >> 1) }
func (r auditRecord) allowed() bool { return r.key&1 == 0 }

// timed reports whether the time is the client's, known only to lie
// between the send and the reply.
func (r auditRecord) timed() bool { return r.widthUs > 0 && !r.argsTime && !r.seen }

// width is how long after the send the reply came, for a decision whose
// instant is known only within it (zero when the server's time places it).
func (r auditRecord) width() int64 {
	if r.seen {
		return 0
	}
	return int64(r.widthUs)
}

// modelAt is the time the limiter decided the request by, which its model
// is fed: the caller's clock for a decision it carried besides the
// server's time (seen), else the decision's time.
func (r auditRecord) modelAt() int64 {
	if r.seen {
		return r.at() + int64(int32(r.widthUs))
	}
	return r.at()
}

// New prepares the audit of a run. It returns nil, which audits nothing,
// when the limiter has no bound or the audit is turned off.
func New(c Config) *Auditor {
	lim, identities := c.Limiter, c.Identities
	b, ok := lim.(algorithms.Bounded)
	if !ok || c.Sample <= 0 || identities <= 0 {
		return nil
	}
	au := &Auditor{limiter: b, window: lim.Policy().WindowMicros()}
	if m, ok := lim.(algorithms.Auditable); ok {
		au.model = m
		au.fields = algorithms.ReplyFields{Remaining: true, RetryAfter: true}
		if r, ok := lim.(algorithms.ReplyDescriber); ok {
			au.fields = r.ReplyFields()
		}
	}
	if ap, ok := lim.(algorithms.Approximation); ok {
		au.exact = ap.Exact()
	}
	if bi, ok := lim.(algorithms.BoundIntervaler); ok {
		au.window = bi.BoundInterval().Microseconds()
	}
	if lb, ok := lim.(algorithms.LinearBounded); ok {
		c, l, w, ok := lb.LinearBound()
		au.linear.capacity, au.linear.limit, au.linear.windowUs, au.linear.ok = c, l, w.Microseconds(), ok
	}
	if c, ok := lim.(algorithms.Clocked); ok && c.TimeFrom() == algorithms.TimeFromArgs {
		au.argsClock, au.tickUs = true, 1
		if t, ok := lim.(algorithms.CallerTicked); ok {
			au.tickUs = max(t.CallerTick().Microseconds(), 1)
		}
	}
	if pr, ok := lim.(algorithms.Promiser); ok {
		admits, within := pr.AdmitPromise()
		au.promiseAdmits, au.promiseWithinUs = admits, within.Microseconds()
	}
	n := identities
	if identities > c.Sample {
		au.slots = sampleIdentities(uint64(identities), uint64(c.Sample), c.Seed)
		au.sampled = true
		n = c.Sample
	}
	au.n = n
	au.ideal = newIdealAudit(c.Ideal, lim.Policy(), au.sampled)
	if c.EdgeFromMs != c.EdgeToMs {
		au.watchEdges(c.EdgeFromMs, c.EdgeToMs)
	}
	au.watchFaults(c.Timeline)
	au.unseenFromOutcomes = c.UnseenFromOutcomes
	au.fleet, au.fleetStart = c.Fleet, c.FleetStart
	au.instances = min(c.Fleet.Instances(), plan.MaxFleetInstances)
	return au
}

// Record implements event.Sink: it keeps the outcome, if its identity is
// audited and it got a decision, or, in a run with a timeline, the
// decision the caller's error policy made in Redis's place. A nil Auditor
// records nothing.
func (a *Auditor) Record(o *event.Outcome) {
	if a == nil {
		return
	}
	if o.Err != nil {
		var pd *event.PolicyDecision
		if errors.As(o.Err, &pd) && pd.Decided {
			a.recordOnError(o.Identity, a.faults.offset.ServerMicros(o.Sent), pd.Allowed, o.Decision.Units())
		}
		if a.unseenFromOutcomes && o.MayHaveRun {
			a.RecordUnseen(o.Identity, a.faults.offset.ServerMicros(o.Sent), a.faults.offset.ServerMicros(o.Done), o.Decision.Units(), o.Decision.ClientNowMicros)
		}
		return
	}
	a.decided.Add(1)
	slot, ok := a.slot(o.Identity)
	if !ok {
		return
	}
	d := &o.Decision
	r := auditRecord{remaining: math.NaN(), retryMs: noRetry, units: recordUnits(d.Units()), instance: uint8(min(max(o.Instance, 0), plan.MaxFleetInstances-1))}
	at := d.ServerNowMicros
	switch {
	case at > 0 && a.argsClock && d.ClientNowMicros > 0:
		// The limiter decided by the caller's clock, and the reply says
		// when on the server's: the bound is judged then, the true time,
		// and the model is fed the time the limiter saw.
		if delta := d.ClientNowMicros - at; delta >= math.MinInt32 && delta <= math.MaxInt32 {
			r.seen, r.widthUs = true, uint32(int32(delta))
		} else {
			a.seenTooFar.Store(true)
		}
	case at <= 0 && a.argsClock && d.ClientNowMicros > 0:
		// The limiter decided by the caller's clock its arguments carried:
		// exactly then, on the server's clock, less the skew of the
		// instance that sent it (the true time it carried).
		at = a.faults.offset.ServerMicros(time.UnixMicro(d.ClientNowMicros - d.ClientSkewMicros))
		r.argsTime = true
		r.widthUs = uint32(min(max(o.Done.Sub(o.Sent).Microseconds(), 1), math.MaxUint32))
	case at <= 0:
		// No server time: the decision was made between the send and the
		// reply.
		at = o.Sent.UnixMicro()
		r.widthUs = uint32(min(max(o.Done.Sub(o.Sent).Microseconds(), 1), math.MaxUint32))
	}
	if a.argsClock && d.ClientNowMicros > 0 {
		a.placeOnTrueClock(&r, at, o)
	}
	r.key = uint64(at) << 1
	if !d.Allowed {
		r.key |= 1
	}
	// A part the reply is declared to carry but did not (a value meaning
	// none, or one that could not be read) is not checked.
	if a.fields.Remaining && d.Carries(algorithms.PartRemaining) {
		if v, err := strconv.ParseFloat(d.Remaining, 64); err == nil {
			r.remaining = v
		}
	}
	if a.fields.RetryAfter && !d.Allowed && d.Carries(algorithms.PartRetryAfter) {
		ms := (d.RetryAfter + time.Millisecond - 1) / time.Millisecond
		r.retryMs = uint32(min(max(int64(ms), 0), noRetry-1))
	}
	mu := &a.locks[slot%auditShards]
	mu.Lock()
	a.logs[slot%auditShards].add(slot, r)
	mu.Unlock()
}

func (a *Auditor) slot(identity uint64) (int, bool) {
	if a.slots == nil {
		return int(identity), identity < uint64(a.n)
	}
	s, ok := a.slots[identity]
	return int(s), ok
}

// identityOf is the run's identity audited in slot.
func (a *Auditor) identityOf(slot int) int64 {
	if a.slots == nil {
		return int64(slot)
	}
	if a.identities == nil {
		a.identities = make([]uint64, a.n)
		for id, s := range a.slots {
			a.identities[s] = id
		}
	}
	return int64(a.identities[slot])
}

// Report is what the audit of one run found.
type Report struct {
	// Audit and Edge are the run's sections of the result (nil when
	// nothing was audited, or no boundary was watched).
	Audit *result.Audit
	Edge  *result.Edge
	// Faults are the audit's figures of the run's faults; nil without a
	// timeline.
	Faults *FaultFigures
	// HeapBytes is the most the audit held on the heap: every decision it
	// kept, before it replayed and freed them.
	HeapBytes uint64
	// Accuracy sets the audited identities' decisions beside the ideal
	// limiter of the policy; nil when none was compared.
	Accuracy *result.Accuracy
	// InExcess is, per application instance of the run's fleet, how many
	// units it had admitted within the busiest window of each audited
	// identity that went past the bound; nil without a fleet.
	InExcess []int64
}

// Finish judges the run once all recording has finished, given the losses
// of state its faults caused and the resets seen on the server, and frees
// what the audit held: call it once. A nil Auditor reports nothing.
func (a *Auditor) Finish(losses []event.StateLoss, resets []event.Reset) Report {
	if a == nil {
		return Report{}
	}
	rep := Report{HeapBytes: a.heapBytes()}
	a.setStateLosses(losses, resets)
	rep.Audit, rep.Edge = a.result()
	rep.Faults = &a.faults.fig
	rep.InExcess = a.excessByInstance()
	rep.Accuracy = a.ideal.result()
	if decided := a.decided.Load(); rep.Audit != nil && decided > 0 {
		// What share of the run's decisions was replayed: all of them,
		// unless the audit kept a sample of the identities.
		rep.Audit.Coverage = min(float64(rep.Audit.Decisions)/float64(decided), 1)
	}
	return rep
}

// result replays every audited identity, through a fresh model when the
// limiter has one and the decisions carry the server time they used (a
// limiter whose replies have none, such as the fixed window without Lua,
// is judged by its bound on the client's clock), and measures its busiest
// window (see result.Audit for what each figure means), and the edge
// curve when it was watched. It reads each identity's decisions back from
// the logs, freeing them as it goes, and must be called once all
// recording has finished.
func (a *Auditor) result() (*result.Audit, *result.Edge) {
	policy := a.limiter.Policy()
	if a.seenTooFar.Load() {
		// Some times the limiter saw were not kept: its decisions cannot
		// be replayed, only held to the bound.
		a.model = nil
	}
	res := &result.Audit{Sampled: a.sampled, BoundWindow: a.limiter.Bound(time.Duration(a.window) * time.Microsecond), Basis: result.AuditByModel}
	if a.model == nil {
		res.Basis = result.AuditByBound
		if a.argsClock {
			res.Basis = result.AuditByBoundCallerTime
		}
	}
	if a.window != policy.WindowMicros() {
		res.WindowMs = a.window / 1000
	}
	var checks result.ReplyCheck
	var vsExact *result.ExactComparison
	var timing *timingAudit
	var admitted []auditRecord
	var offered, admittedUnits tally
	var offeredMax, spanMax int64
	var cc *result.AuditCallerClock
	replayed, trueTimes := false, false
	a.placeAfterDecisions()
	for i := range a.logs {
		a.logs[i].byIdentity((a.n - i + auditShards - 1) / auditShards)
	}
	var decs []auditRecord
	for slot := range a.n {
		decs = a.logs[slot%auditShards].identity(decs[:0], slot)
		if len(decs) == 0 {
			continue
		}
		slices.SortFunc(decs, func(x, y auditRecord) int { return cmp.Compare(x.key, y.key) })
		res.Identities++
		res.Decisions += int64(len(decs))
		spanMax = max(spanMax, decs[len(decs)-1].at()-decs[0].at())
		// The bound and the promise are judged at the true times: a
		// limiter that decided by its caller's clock is replayed at the
		// times its requests carried (in the server's order when its
		// replies say when the server ran each), and its bound is judged on
		// rlbench's own clock, each decision somewhere between its send and
		// its reply.
		judged, onTrue := decs, decs[0].callerTimed
		if onTrue {
			judged, trueTimes = onTrueClock(decs), true
		}
		// Resets seen on the server start a new lifetime of the state:
		// where the replay placed them, or, judged by the bound alone,
		// after those that took every key.
		var cuts []int64
		if a.model != nil && !decs[0].timed() {
			under := res.UnderAdmitted
			cuts = a.faults.replay(a, slot, decs, res, &checks)
			replayed = true
			if decs[0].callerTimed {
				// The model was fed the times the limiter saw; the promise
				// to admit holds on the true clock. A denial either finds
				// is counted once: the larger count stands.
				byPromise := a.shortfall(judged, a.faults.unseen[slot%auditShards][slot])
				res.UnderAdmitted += max(byPromise-(res.UnderAdmitted-under), 0)
			}
		} else {
			cuts = a.faults.resetCuts(decs)
			res.UnderAdmitted += a.shortfall(judged, a.faults.unseen[slot%auditShards][slot])
		}
		if a.exact != nil && !decs[0].timed() {
			if vsExact == nil {
				vsExact = &result.ExactComparison{Algorithm: a.exact.Name()}
			}
			// Each lifetime of the limiter's state against an exact
			// limiter that lost its state at the same instants.
			for _, epoch := range a.faults.epochs(decs, cuts) {
				compareWithExact(a.exact.Model(), epoch, vsExact, &a.scratch)
			}
		}
		var busiest, policyBusiest, beyond, own int64
		var burst *result.CallerClockBurst
		// Windows are measured within each lifetime of the limiter's
		// state: across a fault that took it away, what was admitted
		// before is not what the limiter knew of after.
		for _, epoch := range a.faults.epochs(judged, cuts) {
			offeredMax = max(offeredMax, tallyOf(&offered, epoch).maxIn(a.window))
			admitted = admitted[:0]
			for _, r := range epoch {
				if r.allowed() {
					admitted = append(admitted, r)
				}
			}
			res.Allowed += int64(len(admitted))
			stamps := tallyOf(&admittedUnits, admitted)
			if a.edges != nil {
				a.edges.add(slot, stamps)
			}
			var b, pb int64
			// Over every interval, only where the server's clock orders the
			// decisions: a limiter that decides by the caller's clock may
			// have run them out of order, and a bucket that takes each
			// request's time as it comes refills across the times it went
			// back (what its own clock says, not rlbench's).
			if a.linear.ok && !epoch[0].timed() && !epoch[0].argsTime {
				beyond = max(beyond, linearBeyond(stamps, a.linear.capacity, a.linear.limit, a.linear.windowUs))
			}
			if epoch[0].timed() {
				if timing == nil {
					timing = newTimingAudit()
				}
				var at int64
				b, pb, at = timing.identity(epoch, admitted, a.window, policy.WindowMicros())
				if onTrue {
					own = max(own, a.ownBusiest(admitted))
					if b > res.BoundWindow && (burst == nil || b > burst.Admitted) {
						burst = a.burstAt(admitted, at, b, res.BoundWindow)
					}
				}
			} else {
				b = stamps.maxIn(a.window)
				pb = b
				if a.window != policy.WindowMicros() {
					pb = stamps.maxIn(policy.WindowMicros())
				}
			}
			busiest, policyBusiest = max(busiest, b), max(policyBusiest, pb)
		}
		a.ideal.identity(a.identityOf(slot), decs, a.faults.unseen[slot%auditShards][slot], a.faults)
		a.faults.identity(a, slot, decs)
		if onTrue {
			cc = a.callerClock(cc, own, burst)
		}
		res.MaxWindowAdmitted = max(res.MaxWindowAdmitted, busiest)
		if over := max(busiest-res.BoundWindow, beyond); over > 0 {
			res.Overshoot += over
			res.Violations++
			a.attribute(judged, cuts)
		}
		res.PolicyExcess = max(res.PolicyExcess, policyBusiest-policy.Limit)
	}
	a.logs = [auditShards]logShard{}
	if timing != nil {
		if !trueTimes {
			res.Basis = result.AuditByBoundClientTime
		}
		res.Timing = timing.result()
	}
	res.CallerClock = cc
	if checks != (result.ReplyCheck{}) {
		res.Reply = &checks
	}
	res.VsExact = vsExact
	res.Power = a.power(res, offeredMax, spanMax, replayed, trueTimes)
	return res, a.edges.contract()
}

// compareWithExact feeds one identity's arrivals, in server time order, to
// the exact algorithm's model, which keeps its own state, and counts the
// decisions it would have made otherwise. scratch is reused.
func compareWithExact(exact algorithms.Model, decs []auditRecord, c *result.ExactComparison, scratch *[]arrival) {
	*scratch = arrivalsOf((*scratch)[:0], decs, auditRecord.modelAt)
	var b beside
	b.feed(exact, *scratch)
	c.Decisions += b.decisions
	c.Differ += b.falseAdmits + b.falseDenies
	c.AdmittedBeyond += b.falseAdmits
	c.DeniedWithin += b.falseDenies
}
