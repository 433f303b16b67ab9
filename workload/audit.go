package workload

import (
	"slices"
	"sync"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// auditShards spreads the audit's locks, so workers rarely wait for each
// other.
const auditShards = 64

// auditor keeps, for each audited identity, every decision that came back:
// the server time it used and its answer, packed into one word. Replaying
// them in server order through the limiter's model after the run is the
// audit. Memory is 8 bytes per audited decision.
type auditor struct {
	limiter algorithms.Auditable
	// slots maps a sampled identity to its index in decisions; nil when
	// every identity is audited and the identity is the index.
	slots     map[uint64]int32
	decisions [][]uint64
	sampled   bool
	locks     [auditShards]sync.Mutex
	// edges, when watched, measures admissions around each identity's
	// window boundary.
	edges *edges
}

// newAuditor prepares the audit of a run over identities callers, keeping
// at most spec.Identities of them (a sample drawn with seed). It returns
// nil, which audits nothing, when the limiter has no model or the audit is
// turned off.
func newAuditor(lim algorithms.Limiter, identities int, spec profile.AuditSpec, seed int64) *auditor {
	a, ok := lim.(algorithms.Auditable)
	if !ok || spec.Identities <= 0 || identities <= 0 {
		return nil
	}
	au := &auditor{limiter: a}
	n := identities
	if identities > spec.Identities {
		au.slots = sampleIdentities(uint64(identities), uint64(spec.Identities), seed)
		au.sampled = true
		n = spec.Identities
	}
	au.decisions = make([][]uint64, n)
	return au
}

// record keeps one outcome of identity, if it is audited and got a
// decision. A nil auditor records nothing.
func (a *auditor) record(identity uint64, d algorithms.Decision, err error) {
	if a == nil || err != nil {
		return
	}
	slot, ok := a.slot(identity)
	if !ok {
		return
	}
	// Bit 0 is set for a denial, so that sorting puts decisions in server
	// time order and, within one microsecond, admissions before denials:
	// the order every limiter decides in when time stands still.
	v := uint64(d.ServerNowMicros) << 1
	if !d.Allowed {
		v |= 1
	}
	mu := &a.locks[slot%auditShards]
	mu.Lock()
	a.decisions[slot] = append(a.decisions[slot], v)
	mu.Unlock()
}

func (a *auditor) slot(identity uint64) (int, bool) {
	if a.slots == nil {
		return int(identity), identity < uint64(len(a.decisions))
	}
	s, ok := a.slots[identity]
	return int(s), ok
}

// result replays every audited identity through a fresh model and measures
// its busiest window (see result.Audit for what each figure means), and the
// edge curve when it was watched. It frees the decisions as it goes and
// must be called once all recording has finished. A nil auditor has no
// result.
func (a *auditor) result() (*result.Audit, *result.Edge) {
	if a == nil {
		return nil, nil
	}
	policy := a.limiter.Policy()
	window := policy.WindowMicros()
	res := &result.Audit{Sampled: a.sampled, BoundWindow: a.limiter.Bound(policy.Window)}
	var admitted []int64
	for slot, decs := range a.decisions {
		if len(decs) == 0 {
			continue
		}
		a.decisions[slot] = nil
		slices.Sort(decs)
		res.Identities++
		res.Decisions += int64(len(decs))
		model := a.limiter.Model()
		admitted = admitted[:0]
		for _, v := range decs {
			stamp, allowed := int64(v>>1), v&1 == 0
			expected := model.Allow(stamp)
			if expected {
				res.ExpectedAllowed++
			}
			if expected != allowed {
				res.ModelMismatches++
			}
			if allowed {
				admitted = append(admitted, stamp)
			}
		}
		res.Allowed += int64(len(admitted))
		if a.edges != nil {
			a.edges.add(slot, admitted)
		}
		busiest := maxInWindow(admitted, window)
		res.MaxWindowAdmitted = max(res.MaxWindowAdmitted, busiest)
		if over := busiest - res.BoundWindow; over > 0 {
			res.Overshoot += over
			res.Violations++
		}
		res.PolicyExcess = max(res.PolicyExcess, busiest-policy.Limit)
	}
	return res, a.edges.contract()
}

// maxInWindow is the most stamps (sorted, microseconds) within any
// half-open interval [t, t+window): the largest j-i+1 with
// stamps[j]-stamps[i] < window, found with two pointers in one pass.
func maxInWindow(stamps []int64, window int64) int64 {
	best, i := 0, 0
	for j := range stamps {
		for stamps[j]-stamps[i] >= window {
			i++
		}
		best = max(best, j-i+1)
	}
	return int64(best)
}
