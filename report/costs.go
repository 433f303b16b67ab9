package report

import (
	"math"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// Costs are one algorithm's figures across the runs of a result, taken the
// same way wherever they are shown: the decision summary, the trade-off
// plot, and `rlbench algorithms` reading a baseline.
type Costs struct {
	Algorithm string
	// MostPerLimit is the most requests one identity had admitted within
	// one window, divided by the policy's limit, in the audited run where
	// that was highest (MostScenario): 1 for a limiter that never lets the
	// policy be passed, 2 for a fixed window hit across its boundary.
	MostPerLimit float64
	MostScenario string
	HaveAccuracy bool
	// BytesPerIdentity is the Redis memory per identity of the run that
	// held the most identities (MemoryScenario): the figure that least
	// depends on allocator noise.
	BytesPerIdentity float64
	MemoryScenario   string
	HaveMemory       bool
	// UsecPerCall is the server time per decision over all its runs: the
	// sum of their server time over the sum of their calls.
	UsecPerCall float64
	HaveServer  bool
	// PolicyExcess is the most one identity got past the limit of its
	// run's policy within one window, in the audited run where that was
	// most (ExcessScenario); HaveExcess says some run was audited.
	PolicyExcess   int64
	ExcessScenario string
	HaveExcess     bool
	// WorstP99Us is the highest p99 (corrected) of its runs whose
	// generator kept the schedule, in P99Scenario: a run that slipped
	// measured the generator's own queue, not the limiter. Slipped says
	// some run slipped.
	WorstP99Us  int64
	P99Scenario string
	HaveP99     bool
	Slipped     bool
	// Replayed says some run judged it decision by decision against its
	// reference model; otherwise the audit held it to its bound only.
	Replayed bool
	// IdealDecisions, FalseAdmits and FalseDenies add up its runs'
	// comparisons with the ideal limiter of their policy (runs[].accuracy:
	// the ideal fed the same arrivals); HaveWrong says some run was
	// compared. Ideal names the ideal, or holds "mixed" when its runs
	// were set beside different ones.
	IdealDecisions, FalseAdmits, FalseDenies int64
	Ideal                                    string
	HaveWrong                                bool
	// NoMemory, NoServer, NoExcess and NoWrong say why the figure is
	// missing, from the run that should have given it (the one with the
	// most identities, for memory); empty when the figure is there.
	NoMemory, NoServer, NoExcess, NoWrong string
	// NoP99 says why there is no worst p99: every run slipped (the
	// generator's queue, not the limiter's latency) or measured none.
	NoP99 string
	// P99InFaults says the run of WorstP99Us had scheduled faults: its
	// latency is theirs as much as the limiter's.
	P99InFaults bool
	// Policies are what each caller's error policy cost it under faults,
	// in the order the runs came.
	Policies []PolicyCost
}

// PolicyCost is what one error policy (params.on_error) cost a limiter's
// runs with faults: the admissions on error that took one identity past
// the policy, those the limiter would have denied, and the denials it
// would have admitted.
type PolicyCost struct {
	Policy string
	// Excess is the most one identity got past the policy in one window
	// because of admissions on error (faults.policy_excess), the worst
	// of the runs.
	Excess int64
	// Admitted counts the admissions on error the limiter would have
	// denied (faults.admitted_by_fault), Denied the denials on error it
	// would have admitted (faults.denied_by_fault), over the runs;
	// HaveModel says every run had them (a limiter without a reference
	// model has neither).
	Admitted, Denied int64
	HaveModel        bool
}

// addPolicy counts run's faults under its error policy.
func (c *Costs) addPolicy(run *result.Run) {
	f := run.Faults
	if run.Params.OnError == "" || f == nil {
		return
	}
	i := slices.IndexFunc(c.Policies, func(p PolicyCost) bool { return p.Policy == run.Params.OnError })
	if i < 0 {
		c.Policies = append(c.Policies, PolicyCost{Policy: run.Params.OnError, HaveModel: true})
		i = len(c.Policies) - 1
	}
	p := &c.Policies[i]
	p.Excess = max(p.Excess, f.PolicyExcess)
	if f.AdmittedByFault == nil || f.DeniedByFault == nil {
		p.HaveModel = false
		return
	}
	p.Admitted += *f.AdmittedByFault
	p.Denied += *f.DeniedByFault
}

// scheduledFaults reports whether run had faults its profile scheduled.
func scheduledFaults(run *result.Run) bool {
	if run.Faults == nil {
		return false
	}
	return slices.ContainsFunc(run.Faults.Windows, func(w result.FaultWindow) bool { return !w.Unscheduled })
}

// WrongShare is the share of its compared decisions it decided otherwise
// than the ideal: its false admits and false denies over every decision
// compared, 0 to 1.
func (c *Costs) WrongShare() float64 {
	if c.IdealDecisions == 0 {
		return 0
	}
	return float64(c.FalseAdmits+c.FalseDenies) / float64(c.IdealDecisions)
}

// mixedIdeals is Costs.Ideal when an algorithm's runs were set beside
// different ideals.
const mixedIdeals = "mixed"

// addAccuracy adds a run's comparison with the ideal to c.
func (c *Costs) addAccuracy(a *result.Accuracy) {
	// A comparison of no decision (every one excused by a fault) is no
	// share of wrong decisions, not a share of 0.
	if a == nil || a.Decisions == 0 {
		return
	}
	switch {
	case !c.HaveWrong:
		c.Ideal = a.Ideal
	case c.Ideal != a.Ideal:
		c.Ideal = mixedIdeals
	}
	c.IdealDecisions += a.Decisions
	c.FalseAdmits += a.FalseAdmits
	c.FalseDenies += a.FalseDenies
	c.HaveWrong = true
}

// AlgorithmCosts gathers each algorithm's Costs, by name.
func AlgorithmCosts(r *result.Result) map[string]*Costs {
	out := map[string]*Costs{}
	held := map[string]int64{}
	widest := map[string]int{}
	calls := map[string]int64{}
	usec := map[string]int64{}
	// Why runs gave no p99 of the limiter's: their generator slipped, or
	// they measured none.
	slipWhy, noLatency := map[string]string{}, map[string]string{}
	for i := range r.Runs {
		run := &r.Runs[i]
		c := out[run.Algorithm]
		if c == nil {
			c = &Costs{Algorithm: run.Algorithm}
			out[run.Algorithm] = c
		}
		if a := run.Audit; a != nil {
			if !c.HaveExcess || a.PolicyExcess > c.PolicyExcess {
				c.PolicyExcess, c.ExcessScenario, c.HaveExcess = a.PolicyExcess, run.Scenario, true
			}
			c.Replayed = c.Replayed || a.HasModel()
			limit := run.Params.Limit
			if limit <= 0 {
				limit = r.Profile.Policy.Limit
			}
			if limit > 0 {
				if f := float64(a.MaxWindowAdmitted) / float64(limit); !c.HaveAccuracy || f > c.MostPerLimit {
					c.MostPerLimit, c.MostScenario, c.HaveAccuracy = f, run.Scenario, true
				}
			}
		}
		c.addAccuracy(run.Accuracy)
		c.addPolicy(run)
		if ScheduleSlipped(run) {
			c.Slipped = true
		} else if run.LatencyUs.Count > 0 && (!c.HaveP99 || run.LatencyUs.P99 > c.WorstP99Us) {
			c.WorstP99Us, c.P99Scenario, c.HaveP99 = run.LatencyUs.P99, run.Scenario, true
			c.P99InFaults = scheduledFaults(run)
		}
		if b, ok := run.Memory.PerIdentity(); ok && measuredOver(run.Memory) > held[run.Algorithm] {
			c.BytesPerIdentity, c.MemoryScenario, c.HaveMemory = b, run.Scenario, true
			held[run.Algorithm] = measuredOver(run.Memory)
		} else if !ok && (c.NoMemory == "" || run.Identities > widest[run.Algorithm]) {
			c.NoMemory, widest[run.Algorithm] = WhyNoMemory(r, run), run.Identities
		}
		if c.NoExcess == "" {
			c.NoExcess = WhyNoExcess(run)
		}
		if c.NoServer == "" {
			c.NoServer = WhyNoServerTime(r, run)
		}
		if c.NoWrong == "" {
			c.NoWrong = WhyNoWrong(run)
		}
		if w := WhySlipped(run); w != "" && slipWhy[run.Algorithm] == "" {
			slipWhy[run.Algorithm] = w
		} else if w := WhyNoLatency(run); w != "" && noLatency[run.Algorithm] == "" {
			noLatency[run.Algorithm] = w
		}
		if s := run.Server; s != nil && s.Calls > 0 {
			calls[run.Algorithm] += s.Calls
			// Results written before usec was recorded carry only the
			// time per call.
			if s.Usec > 0 {
				usec[run.Algorithm] += s.Usec
			} else {
				usec[run.Algorithm] += int64(math.Round(s.UsecPerCall * float64(s.Calls)))
			}
		}
	}
	for alg, n := range calls {
		out[alg].UsecPerCall, out[alg].HaveServer = float64(usec[alg])/float64(n), true
	}
	for _, c := range out {
		if c.HaveMemory {
			c.NoMemory = ""
		}
		if c.HaveServer {
			c.NoServer = ""
		}
		if c.HaveExcess {
			c.NoExcess = ""
		}
		if c.HaveWrong {
			c.NoWrong = ""
		}
		if !c.HaveP99 {
			// A run that slipped says so first: its figure exists, but is
			// the generator's queue.
			c.NoP99 = noLatency[c.Algorithm]
			if w := slipWhy[c.Algorithm]; w != "" {
				c.NoP99 = "no run of it kept its schedule: " + w
			}
		}
	}
	return out
}

// measuredOver is how many identities a memory figure was measured over:
// the fill's, or those holding a key after the run.
func measuredOver(m *result.Memory) int64 {
	if m.Fill != nil {
		return m.Fill.Identities
	}
	return m.Identities
}

// Cell says what the error policy cost, as the decision tables show it:
// how far its admissions on error took one identity past the policy, and
// how many requests it decided otherwise than the limiter would have
// (admitted that the limiter would deny, denied that it would admit).
func (p PolicyCost) Cell() string {
	var parts []string
	if p.Excess > 0 || !p.HaveModel {
		parts = append(parts, FormatCount(p.Excess)+" past the policy")
	}
	if p.HaveModel {
		if p.Admitted > 0 || p.Denied == 0 {
			parts = append(parts, FormatCount(p.Admitted)+" let through")
		}
		if p.Denied > 0 {
			parts = append(parts, FormatCount(p.Denied)+" denied in error")
		}
	}
	return strings.Join(parts, ", ")
}

// ErrorPolicies are the error policies r's runs ran under, in the order
// they first appear.
func ErrorPolicies(r *result.Result) []string {
	var out []string
	for i := range r.Runs {
		if p := r.Runs[i].Params.OnError; p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Policy is c's cost under the error policy named; false when no run of
// it had faults under that policy.
func (c *Costs) Policy(name string) (PolicyCost, bool) {
	i := slices.IndexFunc(c.Policies, func(p PolicyCost) bool { return p.Policy == name })
	if i < 0 {
		return PolicyCost{}, false
	}
	return c.Policies[i], true
}
