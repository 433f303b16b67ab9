package audit

import (
	"math"
	"sort"

	"github.com/rlbench/rlbench/result"
)

// shortfall counts the denials among one identity's decisions (in time
// order) that the limiter's promise to admit rules out: the units admitted
// within the promised interval before the denial, with the denied
// request's own, were no more than the promise, wherever in its round trip
// each decision was made (a decision with the server's time was made at
// that instant; one by the caller's clock, placed on the true clock, at
// some instant from its send to its reply). A call whose outcome is
// unknown counts as an admission
// that may have happened at any time from its send: the count is the most
// units any placement puts in the interval, so a denial counted here is
// one no placement explains.
func (a *Auditor) shortfall(decs []auditRecord, unseen []unseenCall) int64 {
	admits, within := a.promiseAdmits, a.promiseWithinUs
	if admits <= 0 {
		return 0
	}
	var lo, hi, units []int64 // the admissions' spans, by start, and their units
	var widest int64
	for _, r := range decs {
		if r.allowed() {
			lo, hi, units = append(lo, r.at()), append(hi, r.at()+r.width()), append(units, unitsOf(r.units))
			widest = max(widest, r.width())
		}
	}
	for _, u := range unseen {
		lo, hi, units = append(lo, u.sentUs), append(hi, math.MaxInt64), append(units, unitsOf(u.units))
	}
	if len(unseen) > 0 {
		sort.Sort(spans{lo, hi, units})
	}
	var n int64
	for _, d := range decs {
		if d.allowed() {
			continue
		}
		dlo, dhi := d.at(), d.at()+d.width()
		// Admissions that may lie in (t-within, t] for some instant t of
		// the denial: started by dhi, ended after dlo-within.
		end := sort.Search(len(lo), func(i int) bool { return lo[i] > dhi })
		count := unitsOf(d.units)
		for k := end - 1; k >= 0 && count <= admits; k-- {
			if hi[k] > dlo-within {
				count += units[k]
			} else if len(unseen) == 0 && lo[k]+widest <= dlo-within {
				break // every earlier admission ended before the interval
			}
		}
		if count <= admits {
			n++
		}
	}
	return n
}

// spans sorts admissions' spans, with their units, by start.
type spans struct{ lo, hi, units []int64 }

func (s spans) Len() int           { return len(s.lo) }
func (s spans) Less(i, j int) bool { return s.lo[i] < s.lo[j] }
func (s spans) Swap(i, j int) {
	s.lo[i], s.lo[j] = s.lo[j], s.lo[i]
	s.hi[i], s.hi[j] = s.hi[j], s.hi[i]
	s.units[i], s.units[j] = s.units[j], s.units[i]
}

// power says what the audit could have caught, from what the run offered
// and what the model expected: an admission beyond the promise could show,
// replayed, only where the model denied some requests in every state the
// limiter may have been in (after a reset or a call whose outcome is
// unknown, a denial some state admits proves nothing), and, judged by the
// bound, where an identity offered more than the bound within one interval
// of one lifetime of its state (so also for the decisions of an identity
// the replay gave up on); a denial the semantics rule out, where the
// model admitted some, or the limiter states a promise to admit over an
// interval shorter than some identity's decisions spanned (spanMax).
// Decisions replayed at the times the limiter saw but judged at the true
// times (trueTimes: a limiter that decides by its caller's clock) could
// also show an excess wherever an identity offered more than the bound.
func (a *Auditor) power(res *result.Audit, offeredMax, spanMax int64, replayed, trueTimes bool) *result.Power {
	p := &result.Power{OfferedMaxInWindow: offeredMax, Replayed: replayed}
	if a.promiseAdmits > 0 {
		p.PromiseAdmits, p.PromiseWithinMs = a.promiseAdmits, float64(a.promiseWithinUs)/1000
	}
	p.Excess = offeredMax > res.BoundWindow
	if replayed {
		p.ExpectedDenied = a.certainDenied
		// Where the replay gave up on an identity, its later decisions
		// were held to the bound, which catches an excess where more
		// than the bound was offered; so do decisions judged at the true
		// times.
		p.Excess = p.ExpectedDenied > 0 || ((a.boundOnly > 0 || trueTimes) && p.Excess)
		p.Shortfall = res.ExpectedAllowed > 0
	} else {
		p.Shortfall = a.promiseAdmits > 0 && spanMax > a.promiseWithinUs
	}
	return p
}
